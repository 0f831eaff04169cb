package overlay_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/overlay"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/store/storetest"
)

func openSQLite(t *testing.T, name string) graph.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatalf("opening %s: %v", name, err)
	}
	return s
}

// TestConformance runs the store suite against an overlay whose local
// index is SQLite, over a shared graph in SQLite: every write goes to the
// local side, so each repository is one only the working copy has, and
// the overlay must answer for it as a store of its own would.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) graph.Store {
		return overlay.New(openSQLite(t, "shared.db"), openSQLite(t, "local.db"))
	})
}

// TestConformancePostgres is TestConformance over a shared graph in
// PostgreSQL, as `sextant serve --shared` runs it.
func TestConformancePostgres(t *testing.T) {
	pgtest.URL(t)
	storetest.Run(t, func(t *testing.T) graph.Store {
		shared, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatalf("opening the shared graph: %v", err)
		}
		return overlay.New(shared, openSQLite(t, "local.db"))
	})
}

// counting is a store whose test recordings are counted as they are
// asked for: how many times get_impact's two questions reach each layer.
type counting struct {
	graph.Store
	recordings, covering int
}

func (c *counting) RecordTests(ctx context.Context, rec graph.TestRecording, runs []graph.TestRun) error {
	return c.Store.(graph.TestRecorder).RecordTests(ctx, rec, runs)
}

func (c *counting) TestRecording(ctx context.Context, repo string) (graph.TestRecording, []graph.TestRun, error) {
	c.recordings++
	return c.Store.(graph.TestRecorder).TestRecording(ctx, repo)
}

func (c *counting) TestsCovering(ctx context.Context, repo string, keys []string) (map[string]string, []graph.TestCover, error) {
	c.covering++
	return c.Store.(graph.TestRecorder).TestsCovering(ctx, repo, keys)
}

// TestRecordingLayers reads a test recording through the overlay as
// get_impact does (the recording, then the tests covering keys): the
// shared graph's while the working copy has none, each layer asked at
// most once for each question, then the working copy's own once it
// records one, without asking the shared graph again.
func TestRecordingLayers(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testRecordingLayers(t, openSQLite(t, "shared.db")) })
	t.Run("postgres", func(t *testing.T) {
		pgtest.URL(t)
		shared, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatalf("opening the shared graph: %v", err)
		}
		testRecordingLayers(t, shared)
	})
}

func testRecordingLayers(t *testing.T, sharedStore graph.Store) {
	ctx := context.Background()
	shared, local := &counting{Store: sharedStore}, &counting{Store: openSQLite(t, "local.db")}
	o := overlay.New(shared, local)
	t.Cleanup(func() { // before the temporary directory goes: Windows removes no open file
		if err := o.Close(); err != nil {
			t.Error(err)
		}
	})
	tr := graph.TestRecorder(o)
	at := time.UnixMilli(time.Now().UnixMilli()).UTC()
	run := func(name, key, hash string) graph.TestRun {
		return graph.TestRun{Package: "m/a", Dir: "a", Name: name, Kind: "test", Status: graph.TestPassed,
			Covered: []graph.Covered{{Key: key, BodyHash: hash}}}
	}
	if err := shared.RecordTests(ctx, graph.TestRecording{Repository: "m", RecordedAt: at, VCSHead: "ci",
		Known: []graph.Covered{{Key: "K", BodyHash: "h"}}}, []graph.TestRun{run("TestShared", "K", "h")}); err != nil {
		t.Fatal(err)
	}
	ask := func() (graph.TestRecording, string) {
		t.Helper()
		shared.recordings, shared.covering, local.recordings, local.covering = 0, 0, 0, 0
		rec, _, err := tr.TestRecording(ctx, "m")
		if err != nil {
			t.Fatalf("TestRecording: %v", err)
		}
		known, covers, err := tr.TestsCovering(ctx, "m", []string{"K"})
		if err != nil {
			t.Fatalf("TestsCovering: %v", err)
		}
		var names []string
		for _, c := range covers {
			names = append(names, c.Name+"@"+known[c.Key])
		}
		return rec, strings.Join(names, ",")
	}

	rec, covers := ask()
	if rec.VCSHead != "ci" || covers != "TestShared@h" {
		t.Fatalf("without a local recording: %+v, covers %q; want the shared graph's (ci, TestShared@h)", rec, covers)
	}
	if shared.recordings != 1 || shared.covering != 1 || local.recordings != 2 || local.covering != 0 {
		t.Errorf("without a local recording, asked shared %d+%d, local %d+%d times; want shared 1+1, local 2+0",
			shared.recordings, shared.covering, local.recordings, local.covering)
	}

	if err := tr.RecordTests(ctx, graph.TestRecording{Repository: "m", RecordedAt: at, VCSHead: "wip",
		Known: []graph.Covered{{Key: "K", BodyHash: "h2"}}}, []graph.TestRun{run("TestLocal", "K", "h2")}); err != nil {
		t.Fatal(err)
	}
	rec, covers = ask()
	if rec.VCSHead != "wip" || covers != "TestLocal@h2" {
		t.Fatalf("with a local recording: %+v, covers %q; want the working copy's (wip, TestLocal@h2)", rec, covers)
	}
	if shared.recordings != 0 || shared.covering != 0 || local.recordings != 2 || local.covering != 1 {
		t.Errorf("with a local recording, asked shared %d+%d, local %d+%d times; want shared 0+0, local 2+1",
			shared.recordings, shared.covering, local.recordings, local.covering)
	}
}
