package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	sent := sentProgress(s, "first")
	cs := connect(t, s, &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
	ctx := context.Background()
	p := &mcp.CallToolParams{Name: "list_repositories", Arguments: map[string]any{}}
	p.SetProgressToken("first")
	res, err := cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("list_repositories: %v %s", err, textOf(res))
	}
	// The answer can overtake notifications the client has read but not
	// yet handled: wait for all the server sent.
	for deadline := time.Now().Add(10 * time.Second); len(log.of("first")) < sent() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
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
	handled := handledCalls(s)
	sent := sentProgress(s, "cancelled")
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
	// Counted as the server sends them: a heartbeat sent just before the
	// cancellation took hold may still be on its way to the client, and
	// the client's reply to a ping can overtake a notification it has
	// read but not yet handled.
	before := sent()
	close(g.gate)
	<-g.finished
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if after := sent(); after != before {
		t.Errorf("progress sent for a cancelled call: %d notifications, %d at cancellation (client saw %v)", after, before, log.of("cancelled"))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_symbol", Arguments: map[string]any{"name": "C"}})
	if err != nil || res.IsError {
		t.Fatalf("the next call after the cancelled one: %v %s", err, textOf(res))
	}
}

// gatedServer is a server whose index of the root waits for the test's
// gate, with a hook telling when each tools/call handler returned.
func gatedServer(t *testing.T, extra ...query.Tool) (s *mcp.Server, g *gatedIndex, handled chan struct{}) {
	realIndex, svcFor := newRoot(t)
	g = &gatedIndex{started: make(chan struct{}), gate: make(chan struct{}), finished: make(chan struct{})}
	svc := svcFor(func(ctx context.Context, root string, progress func(query.Progress)) error {
		defer close(g.finished)
		close(g.started)
		<-g.gate
		if progress == nil {
			progress = func(query.Progress) {}
		}
		return realIndex(ctx, root, progress)
	})
	s, err := New(svc, nil, append(query.Tools(), extra...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.open(); <-g.finished })
	return s, g, handledCalls(s)
}

// handledCalls is the server's own view of its calls: a value each time a
// tools/call handler returns.
func handledCalls(s *mcp.Server) chan struct{} {
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
	return handled
}

// sentProgress counts the progress notifications the server sends for
// one progress token.
func sentProgress(s *mcp.Server, token any) func() int {
	var (
		mu sync.Mutex
		n  int
	)
	s.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ProgressNotificationParams); ok && method == "notifications/progress" && p.ProgressToken == token {
				mu.Lock()
				n++
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// open lets the gated index go on; it may be called more than once.
func (g *gatedIndex) open() {
	select {
	case <-g.gate:
	default:
		close(g.gate)
	}
}

// TestStdioCancelledCallIsNotAnswered: a call the client cancels
// (notifications/cancelled) ends at once, and the server sends no answer
// for it (MCP: the receiver should not answer a cancelled request), least
// of all an INTERNAL one: neither for a call waiting on indexing nor for
// a tool that returns its context's error.
func TestStdioCancelledCallIsNotAnswered(t *testing.T) {
	entered := make(chan struct{}, 1)
	s, g, handled := gatedServer(t, holdTool(entered, nil))
	ss := newStdioSession(t, s)
	for i, c := range []struct {
		tool    string
		started <-chan struct{}
	}{{"list_repositories", g.started}, {"hold", entered}} {
		id := fmt.Sprintf(`"slow-%d"`, i)
		ss.send(t, callLine(id, c.tool, "{}"))
		<-c.started
		ss.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"the user stopped it"}}`)
		select {
		case <-handled:
		case <-time.After(testTimeout):
			t.Fatalf("%s: the cancelled call still runs", c.tool)
		}
		time.Sleep(100 * time.Millisecond) // an answer written after the handler returned
		after := fmt.Sprintf(`"after-%d"`, i)
		ss.send(t, `{"jsonrpc":"2.0","id":`+after+`,"method":"ping"}`)
		for {
			l := <-ss.lines
			var r rawReply
			if err := json.Unmarshal(l, &r); err != nil {
				t.Fatalf("not a JSON object: %q", l)
			}
			if string(r.ID) == after {
				break
			}
			if string(r.ID) == id && (r.Error == nil || !strings.Contains(strings.ToLower(r.Error.Message), "cancel")) {
				t.Errorf("%s: the cancelled call was answered: %.400s", c.tool, l)
			}
		}
	}
}

// TestHTTPClosedConnectionCancelsCall: over streamable HTTP, a client that
// closes its connection while its call waits on indexing cancels that
// call: its handler returns at once instead of working on for nobody. So
// in a session (2025-11-25) and without one (2026-07-28).
func TestHTTPClosedConnectionCancelsCall(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			s, g, handled := gatedServer(t)
			srv := httptest.NewServer(NewHTTPHandler(s, HTTPOptions{}))
			t.Cleanup(srv.Close)
			t.Cleanup(g.open) // first: srv.Close waits for the handler
			header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"Mcp-Protocol-Version": {version}}
			params := `{"name":"list_repositories","arguments":{}}`
			var hs *httpSession
			if version < "2026-07-28" {
				hs = newHTTPSession(t, srv.URL)
				header.Set("Mcp-Session-Id", hs.id)
			} else {
				header.Set("Mcp-Method", "tools/call")
				header.Set("Mcp-Name", "list_repositories")
				params = `{"name":"list_repositories","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
					`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}`
			}
			ctx, cancel := context.WithCancel(context.Background())
			sent := make(chan string, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL,
					strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+params+`}`))
				req.Header = header
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					sent <- err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				sent <- fmt.Sprintf("%d %s", resp.StatusCode, b)
			}()
			select {
			case <-g.started:
			case got := <-sent:
				t.Fatalf("the call was answered before it started indexing: %.300s", got)
			}
			cancel() // the client goes away: its connection closes
			<-sent
			select {
			case <-handled:
			case <-time.After(5 * time.Second):
				t.Fatal("the call of a client that closed its connection still runs 5 s later")
			}
			if hs != nil { // the session serves the next call
				if _, r := hs.replies(t, `{"jsonrpc":"2.0","id":"next","method":"ping"}`); len(r) != 1 || r[0].Error != nil {
					t.Errorf("ping after the closed call: %+v", r)
				}
			}
		})
	}
}
