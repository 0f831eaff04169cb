package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// dropTestRuns turns a database back into one from before schema version
// 11, for the upgrade tests.
var dropTestRuns = []string{`DROP TABLE test_decls`, `DROP TABLE test_cover`, `DROP TABLE test_runs`, `DROP TABLE test_recordings`}

// TestUpgradeToTestRuns opens a version 11 database, which has no test
// recordings: the upgrade adds their tables in place, the snapshots stay,
// and a recording is written and read back.
func TestUpgradeToTestRuns(t *testing.T) {
	ctx := context.Background()
	s := upgraded(t, 11, append(dropFormat, dropTestRuns...)...)
	repos, err := graph.Repositories(ctx, s)
	if err != nil || len(repos) != 1 {
		t.Fatalf("repositories after upgrade = %v, %v; want the one", repos, err)
	}
	rec := graph.TestRecording{Repository: "old", RecordedAt: time.Now()}
	if err := s.RecordTests(ctx, rec, []graph.TestRun{{Package: "old/a", Dir: "a", Name: "TestA", Kind: "test", Status: graph.TestPassed,
		Covered: []graph.Covered{{Key: "K", BodyHash: "h"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, cov, err := s.TestsCovering(ctx, "old", []string{"K"}); err != nil || len(cov) != 1 {
		t.Fatalf("TestsCovering after upgrade = %v, %v", cov, err)
	}
}

// TestCoversByID holds TestsCovering to name the covering runs from the
// runs TestRecording kept, by id, only while they are of the recorded_at
// the statement reads: before the recording is read, and after it is
// written again, it joins instead, with the same answer.
func TestCoversByID(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	at := time.UnixMilli(time.Now().UnixMilli())
	write := func(name string) {
		t.Helper()
		if err := s.RecordTests(ctx, graph.TestRecording{Repository: "m", RecordedAt: at, Known: []graph.Covered{{Key: "K", BodyHash: "h"}}},
			[]graph.TestRun{{Package: "m", Dir: ".", Name: name, Kind: "test", Status: graph.TestPassed, Covered: []graph.Covered{{Key: "K", BodyHash: "h"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	byID := func(want string) {
		t.Helper()
		known := map[string]string{}
		cov, ok, err := s.coversByID(ctx, "m", []string{"K"}, known)
		if err != nil {
			t.Fatal(err)
		}
		if want == "" {
			if ok {
				t.Errorf("coversByID named %+v, want it to leave the names to the join", cov)
			}
			return
		}
		if !ok || len(cov) != 1 || cov[0].Name != want || known["K"] != "h" {
			t.Errorf("coversByID = %+v, %v, known %v; want %s by id", cov, ok, known, want)
		}
	}
	write("TestA")
	byID("") // nothing kept yet
	if _, _, err := s.TestRecording(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	byID("TestA")
	// The newest run's row goes and its id is given to the next: kept
	// by the id alone, it would be named TestA.
	if _, err := s.wdb.ExecContext(ctx, `DELETE FROM test_cover; DELETE FROM test_runs`); err != nil {
		t.Fatal(err)
	}
	write("TestB")
	byID("") // the runs kept are of the first recorded_at
	if _, cov, err := s.TestsCovering(ctx, "m", []string{"K"}); err != nil || len(cov) != 1 || cov[0].Name != "TestB" {
		t.Fatalf("TestsCovering after the second write = %+v, %v; want TestB", cov, err)
	}
	if _, _, err := s.TestRecording(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	byID("TestB")
}
