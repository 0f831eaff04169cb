package query

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// waitFixture is a service over an unindexed module whose index runs
// report progress, then block until release is closed (or their context
// ends), then index for real. runs counts the runs started; ended
// receives each run's context error.
type waitFixture struct {
	svc     *Service
	root    string
	release chan struct{}
	runs    atomic.Int32
	ended   chan error
}

func newWaitFixture(t *testing.T) *waitFixture {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/w\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "w.go"), []byte("package w\n\n// W waits.\nfunc W() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &waitFixture{root: root, release: make(chan struct{}), ended: make(chan error, 4)}
	f.svc, err = New(st, []string{root}, func(ctx context.Context, root string, progress func(Progress)) error {
		f.runs.Add(1)
		progress(Progress{Root: root, Phase: "load", Done: 0, Total: 4})
		time.Sleep(50 * time.Millisecond)
		progress(Progress{Root: root, Phase: "load", Done: 1, Total: 4})
		select {
		case <-f.release:
		case <-ctx.Done():
			f.ended <- ctx.Err()
			return ctx.Err()
		}
		_, err := index.Index(ctx, st, root, index.Options{})
		f.ended <- err
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Closed before t.TempDir removes root, which Windows refuses while
	// the service watches it.
	t.Cleanup(func() { f.svc.Close() })
	return f
}

func callList(t *testing.T, svc *Service, args string, progress func(Progress)) (Answer, error) {
	t.Helper()
	tl, _ := LookupTool("list_repositories")
	return tl.Call(context.Background(), svc, json.RawMessage(args), progress)
}

// A call waits at most its wait, hearing progress meanwhile, then answers
// INDEX_NOT_READY with the stage, the progress and an estimate; the run
// goes on, and the next call gets the answer from the same run.
func TestWaitThenNotReady(t *testing.T) {
	f := newWaitFixture(t)
	var (
		mu    sync.Mutex
		heard []Progress
	)
	start := time.Now()
	_, err := callList(t, f.svc, `{"wait": 3}`, func(p Progress) {
		mu.Lock()
		heard = append(heard, p)
		mu.Unlock()
	})
	took := time.Since(start)
	ge, ok := asError(err)
	if !ok || ge.Code != graph.CodeIndexNotReady {
		t.Fatalf("want INDEX_NOT_READY, got %v", err)
	}
	if took < 3*time.Second || took > 6*time.Second {
		t.Errorf("wait 3 answered after %v", took)
	}
	if ge.Data["stage"] != "load" || ge.Data["done"] != 1 || ge.Data["total"] != 4 {
		t.Errorf("data %v, want stage load, done 1 of 4", ge.Data)
	}
	if est, ok := ge.Data["estimate_seconds"].(float64); !ok || est <= 0 {
		t.Errorf("no estimate of the time left: %v", ge.Data)
	}
	mu.Lock()
	n := len(heard)
	mu.Unlock()
	// Two reports of the run, then a heartbeat every two seconds.
	if n < 3 {
		t.Errorf("heard %d progress reports in 3 s, want the run's and a heartbeat at least every 2 s", n)
	}

	if _, err := callList(t, f.svc, `{"wait": 0}`, nil); graph.CodeOf(err) != graph.CodeIndexNotReady {
		t.Errorf("wait 0 while indexing: %v, want INDEX_NOT_READY at once", err)
	}
	close(f.release)
	if _, err := callList(t, f.svc, `{}`, nil); err != nil {
		t.Fatalf("after the run: %v", err)
	}
	if r := f.runs.Load(); r != 1 {
		t.Errorf("%d runs started, want 1", r)
	}
	if _, err := callList(t, f.svc, `{"wait": 601}`, nil); graph.CodeOf(err) != graph.CodeInvalidArgument {
		t.Errorf("wait 601: %v, want INVALID_ARGUMENT", err)
	}
}

// The end of the session's lifetime (the server shutting down) cancels
// the run, which no call's end does.
func TestLifetimeCancelsRun(t *testing.T) {
	f := newWaitFixture(t)
	life, stop := context.WithCancel(context.Background())
	f.svc.SetLifetime(life)
	if _, err := callList(t, f.svc, `{"wait": 1}`, nil); graph.CodeOf(err) != graph.CodeIndexNotReady {
		t.Fatalf("want INDEX_NOT_READY, got %v", err)
	}
	select {
	case err := <-f.ended:
		t.Fatalf("the run ended with its call: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	stop()
	select {
	case err := <-f.ended:
		if err != context.Canceled {
			t.Errorf("the run ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run went on after the lifetime ended")
	}
}

// A refresh of a stale root that outlasts the call's wait is no failure:
// the call answers from the snapshot there, marked stale, and the refresh
// goes on.
func TestWaitOnRefresh(t *testing.T) {
	f := newWaitFixture(t)
	go func() { f.release <- struct{}{} }() // the first run goes through
	if _, err := callList(t, f.svc, `{"wait": 60}`, nil); err != nil {
		t.Fatalf("first index: %v", err)
	}
	<-f.ended
	time.Sleep(10 * time.Millisecond) // past the snapshot's time
	if err := os.WriteFile(filepath.Join(f.root, "w.go"), []byte("package w\n\n// W waits longer.\nfunc W() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := callList(t, f.svc, `{"wait": 1}`, nil)
	if err != nil {
		t.Fatalf("a refresh outlasting the wait: %v, want the stale answer", err)
	}
	out := a.(*ListRepositoriesOutput)
	if len(out.Results) != 1 || out.Results[0].Fresh {
		t.Errorf("want one repository marked stale: %+v", out.Results)
	}
	if r := f.runs.Load(); r != 2 {
		t.Errorf("%d runs, want the first index and one refresh", r)
	}
	close(f.release)
	if err := <-f.ended; err != nil {
		t.Errorf("the refresh failed: %v", err)
	}
}
