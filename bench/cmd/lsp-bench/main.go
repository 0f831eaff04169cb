// Command lsp-bench measures the language-server bridge in one run:
//
//   - overhead: the same hover asked of the same kind of server, directly
//     (internal/lsptest, a bare client: one framed request, one answer)
//     and through the bridge (query.Service.LSPHover: the file re-read
//     from disk and hashed, the pool, the deadline, the position
//     conversions and the answer built). The figure is the difference of
//     the medians; the target is at most 1 ms. The server is the fake
//     (answers at once, so the bridge's own cost is what shows), and gopls
//     too when it is on PATH (-gopls).
//   - memory cap: a fake server told to grow 64 MiB a call under a hard
//     cap (RLIMIT_AS) of -cap MiB; the cap holds when the server dies
//     before its resident memory passes the cap, and the next call runs
//     on a restarted server that says so.
//
// The program is its own fake server: started with SEXTANT_LSPFAKE set,
// it serves LSP on stdio instead.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/lsptools"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp/lspfake"
	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/query"
)

func main() {
	if os.Getenv(lspfake.Env) != "" {
		lspfake.Main()
		return
	}
	calls := flag.Int("calls", 2000, "hover calls per contender and server")
	capMB := flag.Int("cap", 2048, "hard memory cap of the growing server, MiB")
	useGopls := flag.Bool("gopls", true, "also measure against gopls when it is on PATH")
	f := harness.NewFlags("lsp-bench")
	f.OutFlag("", "write the figures as JSON here (- for stdout)")
	flag.Parse()
	// run does not stop on a context: ^C ends the program as it is.
	if err := run(*calls, *capMB, *useGopls, f.Out); err != nil {
		fmt.Fprintln(os.Stderr, "lsp-bench:", err)
		os.Exit(1)
	}
}

type overhead struct {
	Server   string          `json:"server"`
	Direct   harness.Latency `json:"direct"`
	Bridge   harness.Latency `json:"bridge"`
	P50Delta time.Duration   `json:"p50_overhead_ns"`
	Pass     bool            `json:"pass"`
}

type capResult struct {
	CapMiB       int    `json:"cap_mib"`
	PeakRSSMiB   int64  `json:"peak_rss_mib"`
	GrewTo       string `json:"last_answer"`
	Died         bool   `json:"died"`
	DeathMessage string `json:"death"`
	Restarted    bool   `json:"restarted"`
	Pass         bool   `json:"pass"`
}

func run(calls, capMB int, useGopls bool, out string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	work, cleanup, err := harness.WorkDir("", "sextant-lsp-bench", false)
	defer cleanup()
	if err != nil {
		return err
	}

	var results []overhead
	fakeDir := filepath.Join(work, "fake")
	text := "package p // é😀 word\nfunc Target() {}\n"
	if err := setup(fakeDir, map[string]string{
		"a.txt": text,
		"sextant.toml": fmt.Sprintf("[lsp]\n[[lsp.server]]\nname = \"fake\"\ncommand = %q\nglobs = [\"*.txt\"]\nmemory_mb = -1\nenv = { %s = \"1\" }\n",
			self, lspfake.Env),
	}); err != nil {
		return err
	}
	os.Setenv(lspfake.Env, "1")  // for the direct client's child only: this process checked it at start
	os.Setenv(lsp.TrustEnv, "1") // the corpus's sextant.toml names the fake server
	r, err := measure("fake", self, nil, fakeDir, "a.txt", 1, 17, calls)
	os.Unsetenv(lspfake.Env)
	if err != nil {
		return err
	}
	results = append(results, r)

	if gopls, err := lookPath("gopls"); err == nil && useGopls {
		goDir := filepath.Join(work, "go")
		if err := setup(goDir, map[string]string{
			"go.mod":  "module example.com/b\n\ngo 1.22\n",
			"main.go": "package main\n\n// Target is here: é😀.\nfunc Target() int { return 1 }\n\nfunc main() { _ = Target() }\n",
		}); err != nil {
			return err
		}
		r, err := measure("gopls", gopls, nil, goDir, "main.go", 6, 20, calls/4)
		if err != nil {
			return err
		}
		results = append(results, r)
	}

	cr, err := memoryCap(self, filepath.Join(work, "grow"), capMB)
	if err != nil {
		return err
	}

	fmt.Printf("LSP bridge, %d CPUs, %s\n\n", runtime.NumCPU(), time.Now().Format(time.DateOnly))
	fmt.Printf("%-8s %8s %12s %12s %12s %12s  %s\n", "server", "calls", "direct p50", "bridge p50", "overhead", "target", "verdict")
	for _, r := range results {
		fmt.Printf("%-8s %8d %12s %12s %12s %12s  %s\n", r.Server, r.Bridge.N, r.Direct.P50.Round(time.Microsecond), r.Bridge.P50.Round(time.Microsecond),
			r.P50Delta.Round(time.Microsecond), "≤ 1ms", verdict(r.Pass))
	}
	fmt.Printf("\nmemory cap %d MiB on a server growing 64 MiB a call: peak resident %d MiB, died: %v (%s), restarted and said so: %v  %s\n",
		cr.CapMiB, cr.PeakRSSMiB, cr.Died, firstLine(cr.DeathMessage), cr.Restarted, verdict(cr.Pass))
	if out == "" {
		return nil // no result file unless asked for
	}
	return harness.WriteJSON("", out, "", map[string]any{"date": time.Now().Format(time.RFC3339), "overhead": results, "memory_cap": cr})
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func setup(dir string, files map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func lookPath(name string) (string, error) {
	if p, err := execLookPath(name); err == nil {
		return p, nil
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	p := filepath.Join(gopath, "bin", name)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// measure times calls hovers at (line, col) of file in dir, alternating
// rounds of direct and bridged calls so that drift hits both alike.
func measure(name, bin string, args []string, dir, file string, line, col, calls int) (overhead, error) {
	direct, err := lsptest.Start(bin, dir, args...)
	if err != nil {
		return overhead{}, err
	}
	defer direct.Close()
	abs := filepath.Join(dir, file)
	text, err := os.ReadFile(abs)
	if err != nil {
		return overhead{}, err
	}
	uri := lsptest.FileURI(abs)
	if err := direct.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": strings.TrimPrefix(filepath.Ext(file), "."), "version": 1, "text": string(text)}}); err != nil {
		return overhead{}, err
	}
	lineText := strings.Split(string(text), "\n")[line-1]
	pos := map[string]any{"line": line - 1, "character": lsptest.UTF16Column(lineText, col)}
	svc, err := query.New(nil, []string{dir}, nil)
	if err != nil {
		return overhead{}, err
	}
	defer svc.Close()
	ctx := context.Background()
	in := lsptools.PositionInput{File: file, Line: line, Column: col}
	hoverDirect := func() error {
		var res json.RawMessage
		return direct.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos}, &res)
	}
	hoverBridge := func() error {
		_, err := svc.LSP().Hover(ctx, in)
		return err
	}
	// Warm both: the first answers load the server's caches.
	for i := 0; i < 20; i++ {
		if err := hoverDirect(); err != nil {
			return overhead{}, fmt.Errorf("%s direct: %w", name, err)
		}
		if err := hoverBridge(); err != nil {
			return overhead{}, fmt.Errorf("%s bridge: %w", name, err)
		}
	}
	var d, b []time.Duration
	const round = 50
	for len(d) < calls {
		for i := 0; i < round; i++ {
			t := time.Now()
			if err := hoverDirect(); err != nil {
				return overhead{}, err
			}
			d = append(d, time.Since(t))
		}
		for i := 0; i < round; i++ {
			t := time.Now()
			if err := hoverBridge(); err != nil {
				return overhead{}, err
			}
			b = append(b, time.Since(t))
		}
	}
	r := overhead{Server: name, Direct: harness.Summarize(d), Bridge: harness.Summarize(b)}
	r.P50Delta = r.Bridge.P50 - r.Direct.P50
	r.Pass = r.P50Delta <= time.Millisecond
	return r, nil
}

// memoryCap grows a fake server under a cap of capMB and watches its
// resident memory from /proc after every call.
func memoryCap(self, dir string, capMB int) (capResult, error) {
	r := capResult{CapMiB: capMB}
	if err := setup(dir, map[string]string{
		"grow.txt": "ALLOC 64\n",
		"sextant.toml": fmt.Sprintf("[lsp]\nsoft_memory_mb = %d\n[[lsp.server]]\nname = \"fake\"\ncommand = %q\nglobs = [\"*.txt\"]\nmemory_mb = %d\nenv = { %s = \"1\" }\n",
			capMB/2, self, capMB, lspfake.Env),
	}); err != nil {
		return r, err
	}
	svc, err := query.New(nil, []string{dir}, nil)
	if err != nil {
		return r, err
	}
	defer svc.Close()
	ctx := context.Background()
	in := lsptools.PositionInput{File: "grow.txt", Line: 1, Column: 1}
	for i := 0; i < 4*capMB/64+8; i++ {
		out, err := svc.LSP().Hover(ctx, in)
		if err != nil {
			if graph.CodeOf(err) != graph.CodeLSPUnavailable {
				return r, err
			}
			r.Died, r.DeathMessage = true, err.Error()
			break
		}
		r.GrewTo = out.Contents
		if st, err := harness.ProcStatus(out.Pid); err == nil {
			r.PeakRSSMiB = max(r.PeakRSSMiB, st.HWMKiB>>10)
		}
	}
	if r.Died {
		out, err := svc.LSP().Hover(ctx, lsptools.PositionInput{File: "grow.txt", Line: 1, Column: 1})
		if err != nil {
			return r, fmt.Errorf("the call after the death: %w", err)
		}
		r.Restarted = strings.Contains(out.Text(), "restarted")
	}
	r.Pass = r.Died && r.PeakRSSMiB <= int64(capMB) && r.Restarted
	return r, nil
}
