package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/internal/query"
)

// loadArgs are arguments that succeed on the load fixture, for the tools
// known when this test was written. A tool added later gets arguments
// built from its input fields (argsFor) and may fail with a coded error;
// it still runs under load and must never be INTERNAL.
var loadArgs = map[string][]map[string]any{
	"list_repositories":    {{}},
	"find_symbol":          {{"name": "P"}, {"name": "t", "mode": "prefix"}, {"name": "M", "kind": "method"}},
	"get_symbol":           {{"qualified_name": "T"}, {"qualified_name": "T.M"}, {"file": "p.go", "name": "P"}},
	"get_file_outline":     {{"path": "p.go"}, {"path": "."}},
	"find_references":      {{"qualified_name": "P"}, {"qualified_name": "I.M"}},
	"get_callers":          {{"qualified_name": "P", "depth": 2}},
	"get_callees":          {{"qualified_name": "T.M"}},
	"find_implementations": {{"qualified_name": "I"}, {"qualified_name": "T"}},
}

// argsFor builds arguments for a tool from its input fields: one selector
// and a path, from names the tools share.
func argsFor(t query.Tool) map[string]any {
	fields := map[string]bool{}
	for i := range t.Input.NumField() {
		name, _, _ := strings.Cut(t.Input.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	args := map[string]any{}
	switch {
	case fields["qualified_name"]:
		args["qualified_name"] = "T.M"
	case fields["name"]:
		args["name"] = "P"
	case fields["file"]:
		args["file"] = "p.go"
	case fields["path"]:
		args["path"] = "p.go"
	}
	for _, q := range []string{"question", "query"} { // a question in words (search_code and the like)
		if fields[q] {
			args = map[string]any{q: "does nothing"}
		}
	}
	// Position tools (the language-server bridge and any like it): the
	// name P where it is declared.
	if fields["line"] && fields["column"] && fields["file"] {
		delete(args, "qualified_name")
		delete(args, "name")
		args["file"], args["line"], args["column"] = "p.go", 13, 6
	}
	return args
}

func loadFixture() map[string]string {
	return map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n",
		"p.go": "package p\n\n// I is an interface.\ntype I interface{ M() }\n\n// T implements I.\ntype T struct{ F int }\n\n// M calls P.\nfunc (T) M() { P() }\n\n// P does nothing.\nfunc P() {}\n\n// Use calls through I.\nfunc Use(i I) { i.M() }\n"}
}

// openFDs counts the process's file descriptors, leaving out those of
// the SQLite files: the read pool keeps up to a fixed number of idle
// connections open by design, which the load fills.
func openFDs() int {
	n := 0
	for _, l := range fdTargets() {
		if !strings.Contains(l, string(os.PathSeparator)+"db") {
			n++
		}
	}
	return n
}

// settle waits until f() is at most want, for resources released in the
// background (sessions closing, connections draining); it returns the
// last value seen.
func settle(f func() int, want int) int {
	got := f()
	for i := 0; i < 200 && got > want; i++ {
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
		got = f()
	}
	return got
}

func fdTargets() []string {
	if runtime.GOOS != "linux" {
		return nil // /proc/self/fd is Linux's; under Wine it lists Wine's own
	}
	es, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, e := range es {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		out = append(out, l)
	}
	return out
}

func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestLoad runs 100 clients over streamable HTTP on loopback, each
// calling every tool of the registry in turn for SEXTANT_LOAD_SECONDS
// (default 3; .ci/harden.sh runs 60, and a shorter -race variant;
// SEXTANT_LOAD_TOOLS=PROFILE narrows the tools, SEXTANT_LOAD_CLIENTS the
// clients). No
// call may fail; after the clients disconnect the server holds no more
// goroutines or file descriptors than before they came, and its heap is
// flat. Latency percentiles are logged, not asserted.
func TestLoad(t *testing.T) {
	seconds := 3.0
	if s := os.Getenv("SEXTANT_LOAD_SECONDS"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("SEXTANT_LOAD_SECONDS=%q: %v", s, err)
		}
		seconds = v
	}
	clients := 100
	if s := os.Getenv("SEXTANT_LOAD_CLIENTS"); s != "" {
		clients, _ = strconv.Atoi(s)
	}
	h := newHarness(t, loadFixture())
	srv := httptest.NewServer(NewHTTPHandler(h.server(t), HTTPOptions{}))
	defer srv.Close()
	tools := query.Tools()
	if spec := os.Getenv("SEXTANT_LOAD_TOOLS"); spec != "" { // a profile, to look at one group alone
		var err error
		if tools, err = query.SelectTools(spec); err != nil {
			t.Fatal(err)
		}
	}

	// Warm up (first calls build caches), then take the baseline.
	warm := func() {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "warm", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tl.Name, Arguments: argsFor(tl)})
		}
		cs.Close()
	}
	warm()
	http.DefaultClient.CloseIdleConnections()
	baseG, baseFD := runtime.NumGoroutine(), openFDs()
	baseHeap := heapInuse()

	deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	var (
		mu        sync.Mutex
		latencies []time.Duration
		byTool    = map[string][]time.Duration{}
		failures  []string
		coded     = map[string]int{} // coded failures of tools without known-good arguments
		calls     int
		midHeap   uint64
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		if len(failures) < 20 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("load-%d", c), Version: "0"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: transport}}, nil)
			if err != nil {
				fail("client %d: connect: %v", c, err)
				return
			}
			defer cs.Close()
			var mine []time.Duration
			mineByTool := map[string][]time.Duration{}
			for i := 0; time.Now().Before(deadline); i++ {
				tl := tools[(c+i)%len(tools)]
				argSets, known := loadArgs[tl.Name]
				args := argsFor(tl)
				if known {
					args = argSets[i%len(argSets)]
				}
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tl.Name, Arguments: args})
				mine = append(mine, time.Since(start))
				mineByTool[tl.Name] = append(mineByTool[tl.Name], mine[len(mine)-1])
				switch {
				case err != nil:
					fail("client %d: %s: %v", c, tl.Name, err)
				case res.IsError:
					b, _ := json.Marshal(res.StructuredContent)
					if known || strings.Contains(string(b), `"INTERNAL"`) {
						fail("client %d: %s %v: %s", c, tl.Name, args, textOf(res))
					} else {
						mu.Lock()
						coded[tl.Name]++
						mu.Unlock()
					}
				}
			}
			mu.Lock()
			for name, ds := range mineByTool {
				byTool[name] = append(byTool[name], ds...)
			}
			latencies = append(latencies, mine...)
			calls += len(mine)
			mu.Unlock()
		}()
	}
	go func() { // the heap half way through, while every client is busy
		time.Sleep(time.Until(deadline) / 2)
		h := heapInuse()
		mu.Lock()
		midHeap = h
		mu.Unlock()
	}()
	wg.Wait()
	transport.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()

	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	t.Logf("%d clients, %.0f s, %d calls (%.0f/s): p50 %v, p90 %v, p99 %v, max %v",
		clients, seconds, calls, float64(calls)/seconds, pct(0.50), pct(0.90), pct(0.99), pct(1))
	for _, tl := range tools {
		ds := byTool[tl.Name]
		slices.Sort(ds)
		if len(ds) > 0 {
			t.Logf("  %-22s %5d calls  p50 %v  p99 %v", tl.Name, len(ds), ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*99/100)])
		}
	}
	if len(coded) > 0 {
		t.Logf("coded failures of tools without load arguments (generic arguments): %v", coded)
	}
	for _, f := range failures {
		t.Error(f)
	}

	g := settle(runtime.NumGoroutine, baseG)
	fd := settle(openFDs, baseFD)
	endHeap := heapInuse()
	t.Logf("after disconnect: goroutines %d (before %d), fds %d (before %d), heap in use %d KiB before, %d KiB mid-run, %d KiB after",
		g, baseG, fd, baseFD, baseHeap>>10, midHeap>>10, endHeap>>10)
	if g > baseG {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Errorf("goroutines grew from %d to %d after the clients left:\n%.6000s", baseG, g, buf[:n])
	}
	if fd > baseFD {
		t.Errorf("file descriptors grew from %d to %d after the clients left: %v", baseFD, fd, fdTargets())
	}
	// Flat: what remains after the clients is within a small margin of
	// what was there before them (caches of one fixture are bounded).
	if endHeap > baseHeap+baseHeap/2+8<<20 {
		t.Errorf("heap in use grew from %d KiB to %d KiB after the clients left", baseHeap>>10, endHeap>>10)
	}
}
