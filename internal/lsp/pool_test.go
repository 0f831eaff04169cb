package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/lsp/lspfake"
)

// TestMain turns the test binary into the fake language server when the
// pool starts it.
func TestMain(m *testing.M) {
	if os.Getenv(lspfake.Env) != "" {
		lspfake.Main()
		return
	}
	os.Exit(m.Run())
}

// fakeSpec runs this test binary as the fake server with env added.
func fakeSpec(t testing.TB, env ...string) lsp.ServerSpec {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := lsp.ServerSpec{Name: "fake", Command: exe, Globs: []string{"*.txt"}, LanguageID: "plaintext",
		Env: map[string]string{lspfake.Env: "1"}, MemoryMB: -1}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		spec.Env[k] = v
	}
	return spec
}

func testPool(t testing.TB, cfg lsp.PoolConfig) *lsp.Pool {
	if cfg.QuietPeriod.Duration == 0 {
		cfg.QuietPeriod.Duration = 200 * time.Millisecond
	}
	p := lsp.NewPool(cfg)
	t.Cleanup(p.Close)
	return p
}

// file writes text to name in dir and returns its path.
func file(t testing.TB, dir, name, text string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func acquire(t testing.TB, p *lsp.Pool, spec lsp.ServerSpec, root string) *lsp.Lease {
	t.Helper()
	l, err := p.Acquire(context.Background(), spec, root)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	return l
}

// hover syncs path and asks for the hover at an agent's point.
func hover(ctx context.Context, l *lsp.Lease, path string, pt lsp.Point) (string, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	uri, err := l.Sync(path, "plaintext", text)
	if err != nil {
		return "", err
	}
	pos, _ := lsp.ToLSP(text, pt, l.Encoding())
	var res struct {
		Contents json.RawMessage `json:"contents"`
	}
	err = l.Call(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos}, &res)
	return string(res.Contents), err
}

func code(err error) graph.Code {
	if err == nil {
		return ""
	}
	return graph.CodeOf(err)
}

// TestPositionsThroughServers checks the conversion both ways against a
// server that counts UTF-8 bytes and one that counts UTF-16 units: the
// hover names the character at the agent's column, and a definition
// comes back at the agent's column of the word.
func TestPositionsThroughServers(t *testing.T) {
	dir := t.TempDir()
	path := file(t, dir, "a.txt", "é 世界 😀 e\u0301 target\nuse target\n")
	for _, enc := range []string{"utf-8", "utf-16"} {
		t.Run(enc, func(t *testing.T) {
			p := testPool(t, lsp.PoolConfig{})
			l := acquire(t, p, fakeSpec(t, "LSPFAKE_ENCODING="+enc), dir)
			defer l.Release()
			if string(l.Encoding()) != enc {
				t.Fatalf("negotiated %s, want %s", l.Encoding(), enc)
			}
			for col, want := range map[int]string{1: "é", 3: "世", 4: "界", 6: "😀", 8: "e", 9: "\u0301", 11: "t"} {
				got, err := hover(context.Background(), l, path, lsp.Point{Line: 1, Column: col})
				if err != nil {
					t.Fatal(err)
				}
				var v struct{ Value string }
				_ = json.Unmarshal([]byte(got), &v)
				if !strings.HasPrefix(v.Value, "char \""+want+"\"") && !strings.HasPrefix(v.Value, "char "+jsonQuote(want)) {
					t.Errorf("column %d: hover %q, want the character %q", col, v.Value, want)
				}
			}
			text, _ := os.ReadFile(path)
			uri := lsp.FileURI(path)
			pos, _ := lsp.ToLSP(text, lsp.Point{Line: 2, Column: 6}, l.Encoding())
			var locs []struct {
				URI   string    `json:"uri"`
				Range lsp.Range `json:"range"`
			}
			if err := l.Call(context.Background(), "textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos}, &locs); err != nil {
				t.Fatal(err)
			}
			if len(locs) != 1 {
				t.Fatalf("definition: %+v", locs)
			}
			if got := lsp.FromLSP(text, locs[0].Range.Start, l.Encoding()); got != (lsp.Point{Line: 1, Column: 11}) {
				t.Errorf("definition at %+v, want 1:11", got)
			}
		})
	}
}

func jsonQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestWaitingDoesNotBlockOthers: a diagnostics wait and a request the
// server never answers are both pending while other calls on the same
// file go through.
func TestWaitingDoesNotBlockOthers(t *testing.T) {
	dir := t.TempDir()
	slow := file(t, dir, "slow.txt", "DELAY 4000\nERROR here\nHANG\nword\n")
	p := testPool(t, lsp.PoolConfig{RequestTimeout: lsp.Duration{Duration: time.Minute}})
	l := acquire(t, p, fakeSpec(t), dir)
	defer l.Release()
	text, _ := os.ReadFile(slow)
	uri, err := l.Sync(slow, "plaintext", text)
	if err != nil {
		t.Fatal(err)
	}
	diagDone := make(chan lsp.DiagnosticsResult, 1)
	go func() { diagDone <- l.Diagnostics(context.Background(), uri, 30*time.Second) }()
	ctx, cancel := context.WithCancel(context.Background())
	hangDone := make(chan error, 1)
	go func() {
		_, err := hover(ctx, l, slow, lsp.Point{Line: 3, Column: 1})
		hangDone <- err
	}()
	for i := 0; i < 20; i++ {
		if _, err := hover(context.Background(), l, slow, lsp.Point{Line: 4, Column: 2}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-diagDone:
		t.Fatal("diagnostics settled before the server published them")
	case <-hangDone:
		t.Fatal("the never-answered request returned")
	default:
	}
	cancel()
	if err := <-hangDone; code(err) != graph.CodeLSPTimeout {
		t.Errorf("cancelled hang: %v", err)
	}
	res := <-diagDone
	if !res.Complete || len(res.Diagnostics) != 1 {
		t.Errorf("diagnostics: %+v", res)
	}
}

// TestIncompleteThenSettled: a short wait says INCOMPLETE with what is
// pending, the next call goes on and settles, and once settled an
// unchanged file answers at once.
func TestIncompleteThenSettled(t *testing.T) {
	dir := t.TempDir()
	path := file(t, dir, "d.txt", "BUSY 600\nDELAY 600\n  é😀ERROR\n")
	p := testPool(t, lsp.PoolConfig{QuietPeriod: lsp.Duration{Duration: 300 * time.Millisecond}})
	l := acquire(t, p, fakeSpec(t, "LSPFAKE_ENCODING=utf-16"), dir)
	defer l.Release()
	text, _ := os.ReadFile(path)
	uri, _ := l.Sync(path, "plaintext", text)
	first := l.Diagnostics(context.Background(), uri, 100*time.Millisecond)
	if first.Complete || len(first.Pending) == 0 || !strings.Contains(strings.Join(first.Pending, ";"), "no diagnostics published yet") {
		t.Fatalf("first call: %+v, want incomplete with pending work", first)
	}
	second := l.Diagnostics(context.Background(), uri, 30*time.Second)
	if !second.Complete || len(second.Diagnostics) != 1 {
		t.Fatalf("second call: %+v", second)
	}
	if got := lsp.FromLSP(text, second.Diagnostics[0].Range.Start, l.Encoding()); got != (lsp.Point{Line: 3, Column: 5}) {
		t.Errorf("diagnostic at %+v, want 3:5", got)
	}
	third := l.Diagnostics(context.Background(), uri, 30*time.Second)
	if !third.Complete || third.Waited >= 300*time.Millisecond {
		t.Errorf("unchanged settled file: %+v, want complete at once", third)
	}
	// A change is a new version: its diagnostics are pending again.
	file(t, dir, "d.txt", "DELAY 600\nclean\n")
	text, _ = os.ReadFile(path)
	l.Sync(path, "plaintext", text)
	if r := l.Diagnostics(context.Background(), uri, 30*time.Second); !r.Complete || len(r.Diagnostics) != 0 {
		t.Errorf("after the change: %+v, want settled and clean", r)
	}
}

// TestBusyIsPending: a server's work-done progress counts as pending.
func TestBusyIsPending(t *testing.T) {
	dir := t.TempDir()
	path := file(t, dir, "b.txt", "BUSY 3000\nERROR\n")
	p := testPool(t, lsp.PoolConfig{})
	l := acquire(t, p, fakeSpec(t), dir)
	defer l.Release()
	text, _ := os.ReadFile(path)
	uri, _ := l.Sync(path, "plaintext", text)
	for i := 0; i < 100; i++ {
		r := l.Diagnostics(context.Background(), uri, 50*time.Millisecond)
		if strings.Contains(strings.Join(r.Pending, ";"), "server busy: fake analysis") {
			return
		}
	}
	t.Fatal("the server's progress never showed as pending")
}

// TestServerDiesMidRequest: the call fails with the exit and stderr tail;
// the next call restarts the server and says so.
func TestServerDiesMidRequest(t *testing.T) {
	dir := t.TempDir()
	path := file(t, dir, "x.txt", "DIE\nok\n")
	p := testPool(t, lsp.PoolConfig{})
	spec := fakeSpec(t)
	l := acquire(t, p, spec, dir)
	pid := l.Pid()
	_, err := hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1})
	l.Release()
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Code != graph.CodeLSPUnavailable || !strings.Contains(ge.Message, "dying as asked") || !strings.Contains(ge.Message, "exit status 3") {
		t.Fatalf("dying call: %v", err)
	}
	gone(t, pid)
	l = acquire(t, p, spec, dir)
	defer l.Release()
	if l.Pid() == pid {
		t.Fatal("same process after death")
	}
	if note := strings.Join(l.Notices, "\n"); !strings.Contains(note, "restarted") || !strings.Contains(note, "dying as asked") {
		t.Errorf("notices %q, want the restart and the stderr tail", l.Notices)
	}
	if _, err := hover(context.Background(), l, path, lsp.Point{Line: 2, Column: 1}); err != nil {
		t.Errorf("after restart: %v", err)
	}
}

// TestHangingServer: LSP_TIMEOUT at the deadline, and the server is sent
// $/cancelRequest for the request.
func TestHangingServer(t *testing.T) {
	dir := t.TempDir()
	path := file(t, dir, "h.txt", "HANG\n")
	p := testPool(t, lsp.PoolConfig{RequestTimeout: lsp.Duration{Duration: 300 * time.Millisecond}})
	l := acquire(t, p, fakeSpec(t), dir)
	defer l.Release()
	_, err := hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1})
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Code != graph.CodeLSPTimeout || !strings.Contains(ge.Message, "$/cancelRequest") {
		t.Fatalf("hang: %v", err)
	}
	var cancelled []int
	if err := l.Call(context.Background(), "fake/cancelled", nil, &cancelled); err != nil {
		t.Fatal(err)
	}
	if len(cancelled) != 1 {
		t.Errorf("server saw cancellations %v, want the hover's id", cancelled)
	}
}

// TestStderrFlood: a server writing megabytes to stderr keeps answering;
// only a bounded tail is kept.
func TestStderrFlood(t *testing.T) {
	dir := t.TempDir()
	path := file(t, dir, "f.txt", "word\n")
	p := testPool(t, lsp.PoolConfig{})
	// Some 16 MiB of stderr; on Windows a tenth, which still overflows
	// every pipe buffer and the kept tail many times over: Wine's pipes
	// carry the whole flood in some 100 s.
	lines := 4000000
	if runtime.GOOS == "windows" {
		lines /= 10
	}
	l := acquire(t, p, fakeSpec(t, fmt.Sprintf("LSPFAKE_STDERR=%d", lines)), dir)
	defer l.Release()
	for i := 0; i < 5; i++ {
		if _, err := hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if tail := l.StderrTail(1 << 20); !strings.Contains(tail, "flood") || len(tail) > 16<<10 {
		t.Errorf("stderr tail of %d bytes", len(tail))
	}
}

// TestPoolLRU: at max_servers the least recently used idle server makes
// room; when all are busy the call is refused.
func TestPoolLRU(t *testing.T) {
	// The roots first, so that they are removed after the pool has
	// stopped its servers: Windows keeps a process's directory in use.
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	p := testPool(t, lsp.PoolConfig{MaxServers: 2})
	spec := fakeSpec(t)
	la := acquire(t, p, spec, a)
	pidA := la.Pid()
	la.Release()
	lb := acquire(t, p, spec, b)
	lb.Release()
	la = acquire(t, p, spec, a) // a is now the most recently used
	la.Release()
	lc := acquire(t, p, spec, c)
	running := p.Running()
	if len(running) != 2 || running[0].Root == b && running[1].Root == b {
		t.Fatalf("running %v", running)
	}
	for _, k := range running {
		if k.Root == b {
			t.Errorf("b, the least recently used, still runs: %v", running)
		}
	}
	if !alive(pidA) {
		t.Error("a was shut down, not b")
	}
	la = acquire(t, p, spec, a)
	// a and c are both held: a third root is refused, not queued.
	_, err := p.Acquire(context.Background(), spec, b)
	if code(err) != graph.CodeLSPUnavailable || !strings.Contains(err.Error(), "busy") {
		t.Errorf("acquire with all busy: %v", err)
	}
	la.Release()
	lc.Release()
}

// TestIdleShutdown: an unused server is shut down after the idle timeout,
// never while a call holds it.
func TestIdleShutdown(t *testing.T) {
	dir := t.TempDir()
	p := testPool(t, lsp.PoolConfig{IdleTimeout: lsp.Duration{Duration: 200 * time.Millisecond}})
	l := acquire(t, p, fakeSpec(t), dir)
	pid := l.Pid()
	// Held well past the idle timeout: still running.
	time.Sleep(time.Second)
	if len(p.Running()) != 1 || !alive(pid) {
		t.Fatal("a held server was shut down")
	}
	l.Release()
	gone(t, pid)
	if len(p.Running()) != 0 {
		t.Errorf("running after idle shutdown: %v", p.Running())
	}
}

// TestConcurrentStart: callers arriving together share one process.
func TestConcurrentStart(t *testing.T) {
	dir := t.TempDir()
	p := testPool(t, lsp.PoolConfig{})
	spec := fakeSpec(t)
	var wg sync.WaitGroup
	pids := make([]int, 8)
	for i := range pids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := acquire(t, p, spec, dir)
			pids[i] = l.Pid()
			l.Release()
		}()
	}
	wg.Wait()
	for _, pid := range pids {
		if pid != pids[0] {
			t.Fatalf("pids %v: more than one process for one (server, root)", pids)
		}
	}
}

// TestMemoryCap: a server growing past its hard cap dies, and the next
// call restarts it; the pool reports what the kernel counted.
func TestMemoryCap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under an address-space cap")
	}
	dir := t.TempDir()
	path := file(t, dir, "m.txt", "ALLOC 64\n")
	p := testPool(t, lsp.PoolConfig{SoftMemoryMB: 100})
	spec := fakeSpec(t)
	spec.MemoryMB = 2048 // a Go program needs about 1 GiB of address space to start
	l := acquire(t, p, spec, dir)
	var err error
	for i := 0; i < 40 && err == nil; i++ {
		_, err = hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1})
	}
	l.Release()
	if code(err) != graph.CodeLSPUnavailable {
		t.Fatalf("growing past the cap: %v", err)
	}
	l = acquire(t, p, spec, dir)
	defer l.Release()
	if !strings.Contains(strings.Join(l.Notices, "\n"), "restarted") {
		t.Errorf("notices %q", l.Notices)
	}
}

// TestSoftLimit: a server above the soft limit is reported, not stopped.
func TestSoftLimit(t *testing.T) {
	dir := t.TempDir()
	path := file(t, dir, "m.txt", "ALLOC 80\n")
	p := testPool(t, lsp.PoolConfig{SoftMemoryMB: 50})
	spec := fakeSpec(t)
	l := acquire(t, p, spec, dir)
	if _, err := hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1}); err != nil {
		t.Fatal(err)
	}
	l.Release()
	for i := 0; i < 100; i++ { // the footprint is measured at most every 2 s
		l = acquire(t, p, spec, dir)
		l.Release()
		if strings.Contains(strings.Join(l.Notices, "\n"), "SERVER LARGE") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no SERVER LARGE notice above the soft limit")
}

// TestOpenFilesBound: beyond max_open_files the least recently used file
// is closed on the server (the fake then no longer searches it).
func TestOpenFilesBound(t *testing.T) {
	dir := t.TempDir()
	p := testPool(t, lsp.PoolConfig{MaxOpenFiles: 2})
	l := acquire(t, p, fakeSpec(t), dir)
	defer l.Release()
	var uri string
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		path := file(t, dir, name, "shared\n")
		var err error
		if uri, err = l.Sync(path, "plaintext", []byte("shared\n")); err != nil {
			t.Fatal(err)
		}
	}
	var locs []struct {
		URI string `json:"uri"`
	}
	if err := l.Call(context.Background(), "textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "position": lsp.Position{}, "context": map[string]any{}}, &locs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, loc := range locs {
		got = append(got, filepath.Base(lsp.URIPath(loc.URI)))
	}
	if strings.Join(got, " ") != "b.txt c.txt" {
		t.Errorf("files open on the server: %v, want b.txt c.txt", got)
	}
}
