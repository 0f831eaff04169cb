package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// progressLog records the progress notifications a client receives.
type progressLog struct {
	mu   sync.Mutex
	byID map[any][]float64
	seen chan struct{}
}

func (p *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.byID[req.Params.ProgressToken] = append(p.byID[req.Params.ProgressToken], req.Params.Progress)
	p.mu.Unlock()
	select {
	case p.seen <- struct{}{}:
	default:
	}
}

func (p *progressLog) of(token any) []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]float64(nil), p.byID[token]...)
}

// gatedIndex is the real indexer behind a gate: it reports one step,
// waits for the test, then indexes for real with its progress.
type gatedIndex struct {
	started, gate, finished chan struct{}
}

// newRoot writes a small module and returns the real indexer into a real
// store, and a constructor of a Service over them with a given IndexFunc.
func newRoot(t *testing.T) (realIndex query.IndexFunc, svcFor func(query.IndexFunc) *query.Service) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "repo")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/c\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(root, "c.go"), []byte("package c\n\nfunc C() {}\n"), 0o644)
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	realIndex = func(ctx context.Context, root string, progress func(query.Progress)) error {
		_, err := index.Index(ctx, st, root, index.Options{Progress: func(p index.Progress) {
			progress(query.Progress{Root: root, Phase: p.Phase, Done: p.Done, Total: p.Total, Message: p.Message})
		}})
		return err
	}
	return realIndex, func(f query.IndexFunc) *query.Service {
		svc, err := query.New(st, []string{root}, f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		return svc
	}
}

// TestProgressIncreasesAndStops: a call that indexes on first use reports
// progress values that only increase, and none after its answer.
func TestProgressIncreasesAndStops(t *testing.T) {
	realIndex, svcFor := newRoot(t)
	svc := svcFor(realIndex)
	log := &progressLog{byID: map[any][]float64{}, seen: make(chan struct{}, 1)}
	s, err := New(svc, nil, query.Tools())
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
	ctx := context.Background()
	p := &mcp.CallToolParams{Name: "list_repositories", Arguments: map[string]any{}}
	p.SetProgressToken("first")
	res, err := cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("list_repositories: %v %s", err, textOf(res))
	}
	if err := cs.Ping(ctx, nil); err != nil { // flushes any notification sent after the answer
		t.Fatal(err)
	}
	got := log.of("first")
	if len(got) == 0 {
		t.Fatal("no progress while indexing on first use")
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("progress went from %v to %v: %v", got[i-1], got[i], got)
		}
	}
	if last := got[len(got)-1]; last > 100 {
		t.Fatalf("progress %v past its total 100", last)
	}
	t.Logf("progress: %v", got)
}

// TestCancelledCallHearsNothingMore: a call cancelled while the root it
// needs is being indexed returns at once; the server sends nothing more
// for it (no progress, no answer), and the indexing it started finishes
// for the next caller.
func TestCancelledCallHearsNothingMore(t *testing.T) {
	realIndex, svcFor := newRoot(t)
	g := &gatedIndex{started: make(chan struct{}), gate: make(chan struct{}), finished: make(chan struct{})}
	svc := svcFor(func(ctx context.Context, root string, progress func(query.Progress)) error {
		defer close(g.finished)
		progress(query.Progress{Root: root, Phase: "load", Done: 0, Total: 10})
		close(g.started)
		<-g.gate
		for i := 1; i <= 10; i++ {
			progress(query.Progress{Root: root, Phase: "load", Done: i, Total: 10})
		}
		return realIndex(ctx, root, progress)
	})
	log := &progressLog{byID: map[any][]float64{}, seen: make(chan struct{}, 1)}
	s, err := New(svc, nil, query.Tools())
	if err != nil {
		t.Fatal(err)
	}
	// The server's own view of the call: when its handler returns.
	handled := make(chan struct{}, 10)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				handled <- struct{}{}
			}
			return res, err
		}
	})
	cs := connect(t, s, &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
	callCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "list_repositories", Arguments: map[string]any{}}
		p.SetProgressToken("cancelled")
		_, err := cs.CallTool(callCtx, p)
		done <- err
	}()
	<-g.started
	<-log.seen // the first progress reached the client
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call returned an answer")
	}
	ctx := context.Background()
	<-handled // the server's handler returned: the call is over on both sides
	before := len(log.of("cancelled"))
	close(g.gate)
	<-g.finished
	if err := cs.Ping(ctx, nil); err != nil { // flush
		t.Fatal(err)
	}
	if after := log.of("cancelled"); len(after) != before {
		t.Errorf("progress sent for a cancelled call: %v (had %d at cancellation)", after, before)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_symbol", Arguments: map[string]any{"name": "C"}})
	if err != nil || res.IsError {
		t.Fatalf("the next call after the cancelled one: %v %s", err, textOf(res))
	}
}
