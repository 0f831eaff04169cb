package session

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// stageFixture returns a root directory and an empty store in a
// temporary directory.
func stageFixture(t *testing.T) (string, graph.Store) {
	t.Helper()
	root, err := CanonicalDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return root, st
}

// publish writes an empty snapshot of the repository at root, of stage.
func publish(t *testing.T, st graph.Store, root, stage string) {
	t.Helper()
	ctx := context.Background()
	repo, err := st.EnsureRepository(ctx, root, "example.com/staged")
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.BeginSnapshot(ctx, repo, "")
	if err != nil {
		t.Fatal(err)
	}
	if stage != "" {
		w.(graph.Stager).SetStage(stage)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
}

// A root whose snapshot is only a syntax stage (the run that published it
// was killed) serves the calls syntax answers at once and starts the
// complete index in the background; a call that needs types waits for it
// and reads the complete snapshot.
func TestSyntaxStage(t *testing.T) {
	ctx := context.Background()
	root, st := stageFixture(t)
	publish(t, st, root, graph.StageSyntax)

	started := make(chan struct{}, 4)
	release := make(chan struct{})
	s, err := New(st, []string{root}, func(ctx context.Context, r string, progress func(Progress)) error {
		started <- struct{}{}
		<-release
		publish(t, st, r, "")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close() // its watches: Windows removes no watched directory
	s.Settings().SetRefresh(false)
	s.Settings().SetPatience(time.Minute) // a server's session: a command line's waits for the complete index

	v, err := s.Open(WithSyntax(ctx), nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Use("example.com/staged")
	if env := v.Envelope(); env.Stage != graph.StageSyntax {
		t.Errorf("a syntax call read stage %q, want %q", env.Stage, graph.StageSyntax)
	}
	v.Close()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no complete index was started for the syntax stage")
	}

	// A call that needs types, with no patience, is told to call again.
	if _, err := s.Open(WithPatience(ctx, 0), nil); graph.CodeOf(err) != graph.CodeIndexNotReady {
		t.Errorf("a call needing types over a syntax stage: %v, want INDEX_NOT_READY", err)
	}
	close(release)
	v, err = s.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.Use("example.com/staged")
	if env := v.Envelope(); env.Stage != "" {
		t.Errorf("after the run, stage %q", env.Stage)
	}
	if n := len(started); n != 0 {
		t.Errorf("%d more index runs started", n)
	}
}

// A run that publishes a types stage answers a call that types answer
// (WithStage) as soon as the stage is out, and a syntax call too, while a
// call that needs the complete snapshot waits for the end of the run.
func TestTypesStage(t *testing.T) {
	ctx := context.Background()
	root, st := stageFixture(t)

	runs := make(chan struct{}, 4)
	release := make(chan struct{})
	s, err := New(st, []string{root}, func(ctx context.Context, r string, progress func(Progress)) error {
		runs <- struct{}{}
		publish(t, st, r, graph.StageTypes)
		progress(Progress{Phase: graph.StageTypes, Done: 1, Total: 1})
		<-release
		publish(t, st, r, "")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Settings().SetRefresh(false)
	s.Settings().SetPatience(time.Minute)

	for _, stage := range []string{graph.StageTypes, graph.StageSyntax} {
		v, err := s.Open(WithStage(ctx, stage), nil)
		if err != nil {
			t.Fatalf("a call reading stage %s: %v", stage, err)
		}
		v.Use("example.com/staged")
		if env := v.Envelope(); env.Stage != graph.StageTypes {
			t.Errorf("a call reading stage %s read stage %q, want %q", stage, env.Stage, graph.StageTypes)
		}
		v.Close()
	}
	if _, err := s.Open(WithPatience(ctx, 0), nil); graph.CodeOf(err) != graph.CodeIndexNotReady {
		t.Errorf("a call needing the complete snapshot over a types stage: %v, want INDEX_NOT_READY", err)
	}
	close(release)
	v, err := s.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.Use("example.com/staged")
	if env := v.Envelope(); env.Stage != "" {
		t.Errorf("after the run, stage %q", env.Stage)
	}
	if n := len(runs); n != 1 {
		t.Errorf("%d index runs, want 1", n)
	}
}
