// Command cold-bench measures the first contact with a repository nobody
// has built yet: Sextant (`sextant serve`) and gopls (`gopls mcp`) side by
// side in one run, each launched with a fresh GOCACHE and user cache
// directory (XDG_CACHE_HOME and HOME point into a new directory; Sextant's
// database lives there too) and the same warm module cache. For each it
// prints the seconds from launch to the first find_symbol answer (gopls:
// go_search), to the first exact find_references answer (gopls:
// go_symbol_references), to the first get_callers answer (gopls has no
// callers tool), to the complete snapshot (Sextant: the first
// explain_effects answer, which needs the call graph and effects; gopls:
// its first answer, which waits for its whole workspace load), and the
// peak RSS of the whole process tree (the server and every descendant,
// summed, from /proc every 100 ms) until the tree is idle after its last
// answer (so that work a server leaves to the background counts too).
// Then the same again on a second launch with the caches kept.
//
// Before each cold launch the operating system's page cache is dropped
// (-drop-page-cache, Linux as root), so that each server reads the
// repository and the module cache from the disk, as on a machine that has
// not read them since it started; without that, the first server to run
// pays for reading them and the second finds them in memory (terraform:
// Sextant's first find_references 38 s from the disk, 24–28 s from
// memory).
//
//	go run ./bench/cmd/cold-bench -corpus cobra
//	go run ./bench/cmd/cold-bench -corpus moby -dir ~/corpora/moby
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// target is what a corpus is asked: a function or method, by the
// declaring file and the names each tool takes.
type target struct {
	module    string // MODULE@VERSION
	file      string // repo-relative declaring file
	name      string // find_symbol / go_search query
	qualified string // Sextant's qualified_name
	symbol    string // go_symbol_references's symbol: Name or Type.Method in file
	// snapshot: the corpus is not on the module proxy whole (moby's
	// vendor tree is not in its module zip; the others are workspaces
	// of their own), so -dir names a fetched snapshot at the commit
	// module gives, its dependencies already in the module cache.
	snapshot bool
}

var corpora = map[string]target{
	"cobra":      {"github.com/spf13/cobra@v1.10.2", "command.go", "AddCommand", "Command.AddCommand", "Command.AddCommand", false},
	"tools":      {"golang.org/x/tools@v0.52.0", "go/packages/packages.go", "Load", "packages.Load", "Load", false},
	"prometheus": {"github.com/prometheus/prometheus@v0.316.0", "tsdb/db.go", "Open", "tsdb.Open", "Open", false},
	// Workspaces of over 1,000 Go files of their own.
	"moby":        {"github.com/moby/moby@b985e2313a86", "errdefs/helpers.go", "NotFound", "errdefs.NotFound", "NotFound", true},
	"go-ethereum": {"github.com/ethereum/go-ethereum@02b73d4ea718", "common/types.go", "BytesToHash", "common.BytesToHash", "BytesToHash", true},
	"terraform":   {"github.com/hashicorp/terraform@883c7221ee2e", "internal/tfdiags/sourceless.go", "Sourceless", "tfdiags.Sourceless", "Sourceless", true},
}

// launch is one launch of one server: seconds from the start of the
// process to each first answer (-1: none), and the tree's peak RSS.
type launch struct {
	Server      string  `json:"server"`
	Launch      string  `json:"launch"` // cold or warm
	FirstSymbol float64 `json:"first_symbol_s"`
	FirstRefs   float64 `json:"first_references_s"`
	// RefsFrom is what Sextant's first find_references answer read: a
	// check of the symbol's package and its dependents ahead of the
	// whole index ("check"), the index's types stage ("types") or its
	// complete snapshot ("complete").
	RefsFrom     string  `json:"first_references_from,omitempty"`
	FirstCallers float64 `json:"first_callers_s"`
	Complete     float64 `json:"complete_snapshot_s"`
	// Settled is when the tree went idle after its last answer (below a
	// tenth of a core for a second, see settle): work a server does in
	// the background after answering, such as writing caches or a
	// sharper index, is done. PeakTreeKiB spans the launch up to then.
	Settled       float64 `json:"settled_s"`
	PeakTreeKiB   int64   `json:"peak_tree_rss_kib"`
	Notes         string  `json:"notes,omitempty"`
	SymbolTool    string  `json:"symbol_tool"`
	ReferenceTool string  `json:"references_tool"`
}

type result struct {
	Command []string `json:"command"`
	Date    string   `json:"date"`
	Go      string   `json:"go"`
	CPUs    int      `json:"cpus"`
	LoadAvg []string `json:"loadavg_start_end"`
	Corpus  string   `json:"corpus"`
	Gopls   string   `json:"gopls"`
	// PageCache says whether the page cache was dropped before each cold
	// launch ("dropped") or left as the previous launch left it ("kept").
	PageCache string    `json:"page_cache"`
	Launches  []*launch `json:"launches"`
}

func main() {
	f := harness.NewFlags("cold-bench")
	corpus := flag.String("corpus", "cobra", "cobra, tools, prometheus; or moby, go-ethereum, terraform with -dir")
	dir := flag.String("dir", "", "the corpus's fetched snapshot at the commit -corpus names (moby, go-ethereum, terraform), used in place")
	f.SextantFlag("sextant binary (default: build this checkout's)")
	f.GoplsFlag("gopls binary (default: gopls on PATH; install with GOFLAGS= go install golang.org/x/tools/gopls@v0.23.0)")
	f.WorkFlags(false, "work directory (default: a temporary one, removed at the end)")
	f.OutFlag("", "JSON output (default bench/results/DATE-cold-CORPUS-COMMIT.json; - for stdout)")
	only := flag.String("only", "", "run one server only: sextant or gopls")
	timeout := flag.Duration("timeout", 90*time.Minute, "give up on a launch after this long")
	drop := flag.Bool("drop-page-cache", true, "drop the operating system's page cache before each cold launch (Linux, as root); false leaves the files the previous launch read in memory, to the advantage of the later server")
	flag.Parse()
	harness.Main("cold-bench", func(ctx context.Context) error { return run(ctx, f, *corpus, *dir, *only, *timeout, *drop) })
}

// dropPageCache writes the dirty pages out and drops the clean ones, so
// that the next launch reads every file from the disk.
func dropPageCache() error {
	if err := exec.Command("sync").Run(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("dropping the page cache (Linux, as root; or run with -drop-page-cache=false): %w", err)
	}
	return nil
}

func run(ctx context.Context, f *harness.Flags, corpusName, dir, only string, timeout time.Duration, drop bool) error {
	tg, ok := corpora[corpusName]
	if !ok {
		return fmt.Errorf("-corpus %q: want cobra, tools, prometheus, moby, go-ethereum or terraform", corpusName)
	}
	switch {
	case tg.snapshot && dir == "":
		return fmt.Errorf("-corpus %s needs -dir: a snapshot of %s with its dependencies in the module cache", corpusName, tg.module)
	case !tg.snapshot && dir != "":
		return fmt.Errorf("-dir is for the fetched corpora; %s comes from the module proxy", corpusName)
	}
	f.Module, f.Corpus = tg.module, dir
	e, cleanup, err := f.Start(ctx, true)
	defer cleanup()
	if err != nil {
		return err
	}
	root, work, corpus := e.Root, e.Work, e.Corpus
	sextant, err := f.SextantBinary(ctx, root, work)
	if err != nil {
		return err
	}
	gopls, err := harness.FindGopls(f.Gopls)
	if err != nil {
		return err
	}
	gv, _ := exec.Command(gopls, "version").Output()
	gomodcache, err := harness.GoOutput(ctx, work, nil, "env", "GOMODCACHE")
	if err != nil {
		return err
	}
	gopath, _ := harness.GoOutput(ctx, work, nil, "env", "GOPATH")
	res := &result{Command: os.Args, Date: time.Now().UTC().Format(time.RFC3339), Go: runtime.Version(), CPUs: runtime.NumCPU(),
		Corpus: tg.module, Gopls: strings.TrimSpace(string(gv)), LoadAvg: []string{harness.LoadAvg()}, PageCache: "kept"}
	if drop {
		res.PageCache = "dropped"
	}
	servers := []string{"sextant", "gopls"}
	if only != "" {
		servers = []string{only}
	}
	for _, server := range servers {
		// Each server has caches of its own, fresh for the cold launch
		// and kept for the warm one; the module cache is shared and warm.
		home := filepath.Join(work, "home-"+server)
		if err := os.RemoveAll(home); err != nil {
			return err
		}
		env := []string{
			"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "GOCACHE=" + filepath.Join(home, "gocache"),
			"GOMODCACHE=" + strings.TrimSpace(gomodcache), "GOPATH=" + strings.TrimSpace(gopath),
			"GOTOOLCHAIN=local", "GOFLAGS=", "GOWORK=off", "GOPROXY=off",
		}
		for _, dir := range []string{home, filepath.Join(home, "cache"), filepath.Join(home, "gocache")} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		for _, which := range []string{"cold", "warm"} {
			if drop && which == "cold" {
				if err := dropPageCache(); err != nil {
					return err
				}
			}
			harness.Logf("%s %s launch on %s", which, server, tg.module)
			lctx, cancel := context.WithTimeout(ctx, timeout)
			var l *launch
			if server == "sextant" {
				l, err = runSextant(lctx, sextant, filepath.Join(home, "cache", "sextant.db"), corpus, env, tg)
			} else {
				l, err = runGopls(lctx, gopls, corpus, env, tg)
			}
			cancel()
			if err != nil {
				return fmt.Errorf("%s %s launch: %w", which, server, err)
			}
			l.Launch = which
			res.Launches = append(res.Launches, l)
			harness.Logf("%s %s: symbol %.2f s, references %.2f s%s, callers %.2f s, complete %.2f s, idle %.2f s, peak %d MiB",
				which, server, l.FirstSymbol, l.FirstRefs, fromNote(l.RefsFrom), l.FirstCallers, l.Complete, l.Settled, l.PeakTreeKiB>>10)
		}
	}
	res.LoadAvg = append(res.LoadAvg, harness.LoadAvg())
	print(res)
	return harness.WriteJSON(root, f.Out, "cold-"+corpusName, res)
}

// peak polls the process tree of pid every 100 ms until stop is closed,
// returning the largest sum of RSS seen.
// settle waits until the process tree of pid has used less than a tenth
// of a core over the last second (at most two minutes), and returns the
// seconds from start to then; -1 when its CPU time cannot be read.
func settle(pid int, start time.Time) float64 {
	const (
		step   = 250 * time.Millisecond
		window = 4 // steps: one second
	)
	var ticks []int64
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		t, ok := harness.TreeCPUTicks(pid)
		if !ok {
			return -1
		}
		ticks = append(ticks, t)
		if n := len(ticks); n > window && ticks[n-1]-ticks[n-1-window] < harness.ClockTicks/10 {
			return time.Since(start).Seconds()
		}
		time.Sleep(step)
	}
	return time.Since(start).Seconds()
}

func peak(pid int, stop <-chan struct{}) func() int64 {
	var (
		mu  sync.Mutex
		max int64
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if kib, ok := harness.TreeRSSKiB(pid); ok {
				mu.Lock()
				max = maxInt(max, kib)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return max
	}
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// session starts cmd as an MCP server, with its tree's memory sampled
// from launch; close ends it and returns the peak.
func session(ctx context.Context, cmd *exec.Cmd) (*mcp.ClientSession, time.Time, func() int64, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "cold-bench", Version: "0.1.0"}, nil)
	start := time.Now()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		return nil, start, nil, err
	}
	stop := make(chan struct{})
	result := peak(cmd.Process.Pid, stop)
	return cs, start, func() int64 {
		close(stop)
		p := result()
		cs.Close()
		return p
	}, nil
}

// first calls tool until it answers (a Sextant call answers
// INDEX_NOT_READY when its wait runs out: it is called again), and returns
// the seconds from start to the answer.
func first(ctx context.Context, cs *mcp.ClientSession, start time.Time, tool string, args map[string]any) (float64, error) {
	secs, _, err := firstAnswer(ctx, cs, start, tool, args)
	return secs, err
}

// firstAnswer is first, with the answer.
func firstAnswer(ctx context.Context, cs *mcp.ClientSession, start time.Time, tool string, args map[string]any) (float64, *mcp.CallToolResult, error) {
	for {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return -1, nil, fmt.Errorf("%s: %w", tool, err)
		}
		text := textOf(r)
		if r.IsError && strings.Contains(text, "INDEX_NOT_READY") {
			continue
		}
		if r.IsError {
			return -1, nil, fmt.Errorf("%s: %s", tool, text)
		}
		return time.Since(start).Seconds(), r, nil
	}
}

func fromNote(from string) string {
	if from == "" {
		return ""
	}
	return " (from " + from + ")"
}

// refsFrom says what a find_references answer read (see launch.RefsFrom).
func refsFrom(r *mcp.CallToolResult) string {
	var out struct {
		Stage   string `json:"stage"`
		Checked string `json:"checked"`
	}
	if b, err := json.Marshal(r.StructuredContent); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	switch {
	case out.Checked != "":
		return "check"
	case out.Stage != "":
		return out.Stage
	}
	return "complete"
}

// textOf joins the text content of a tool result.
var textOf = harness.ResultText

func runSextant(ctx context.Context, bin, db, corpus string, env []string, tg target) (*launch, error) {
	cmd := exec.Command(bin, "serve", "--db", db, "--tools", "all", corpus)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cs, start, stop, err := session(ctx, cmd)
	if err != nil {
		return nil, err
	}
	l := &launch{Server: "sextant", SymbolTool: "find_symbol", ReferenceTool: "find_references"}
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	if l.FirstSymbol, err = first(ctx, cs, start, "find_symbol", map[string]any{"name": tg.name, "mode": "exact", "wait": 60}); err != nil {
		return nil, err
	}
	sel := map[string]any{"qualified_name": tg.qualified, "wait": 60}
	var refs *mcp.CallToolResult
	if l.FirstRefs, refs, err = firstAnswer(ctx, cs, start, "find_references", sel); err != nil {
		return nil, err
	}
	l.RefsFrom = refsFrom(refs)
	if l.FirstCallers, err = first(ctx, cs, start, "get_callers", sel); err != nil {
		return nil, err
	}
	if l.Complete, err = first(ctx, cs, start, "explain_effects", sel); err != nil {
		return nil, err
	}
	l.Notes = "a first index publishes its declarations from syntax first: find_symbol answers from that stage; references, callers and effects wait for the complete snapshot"
	l.Settled = settle(cmd.Process.Pid, start)
	l.PeakTreeKiB = stop()
	stop = nil
	return l, nil
}

func runGopls(ctx context.Context, bin, corpus string, env []string, tg target) (*launch, error) {
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = corpus
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cs, start, stop, err := session(ctx, cmd)
	if err != nil {
		return nil, err
	}
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	l := &launch{Server: "gopls", SymbolTool: "go_search", ReferenceTool: "go_symbol_references", FirstCallers: -1}
	if l.FirstSymbol, err = first(ctx, cs, start, "go_search", map[string]any{"query": tg.name}); err != nil {
		return nil, err
	}
	refs := map[string]any{"file": filepath.Join(corpus, filepath.FromSlash(tg.file)), "symbol": tg.symbol}
	if l.FirstRefs, err = first(ctx, cs, start, "go_symbol_references", refs); err != nil {
		return nil, err
	}
	l.Complete = l.FirstSymbol
	l.Notes = "gopls mcp has no callers tool; its first answer waits for its whole workspace load, so complete is the first answer"
	l.Settled = settle(cmd.Process.Pid, start)
	l.PeakTreeKiB = stop()
	stop = nil
	return l, nil
}

func secs(v float64) string {
	if v < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", v)
}

func print(r *result) {
	fmt.Printf("corpus %s, %s, page cache %s before each cold launch, load %s\n\n", r.Corpus, r.Gopls, r.PageCache, strings.Join(r.LoadAvg, " → "))
	fmt.Println("| server | launch | first find_symbol s | first find_references s | first get_callers s | complete snapshot s | idle s | peak tree RSS MiB, to idle |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, l := range r.Launches {
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %d |\n", l.Server, l.Launch, secs(l.FirstSymbol), secs(l.FirstRefs), secs(l.FirstCallers), secs(l.Complete), secs(l.Settled), l.PeakTreeKiB>>10)
	}
	byKey := map[string]*launch{}
	for _, l := range r.Launches {
		byKey[l.Server+"/"+l.Launch] = l
	}
	s, g := byKey["sextant/cold"], byKey["gopls/cold"]
	if s == nil || g == nil {
		return
	}
	fmt.Println()
	ratio := func(name string, a, b, limit float64) {
		verdict := "PASS"
		if a/b > limit {
			verdict = "MISS"
		}
		fmt.Printf("%-45s %.2f× (target ≤ %.1f×) %s\n", name, a/b, limit, verdict)
	}
	ratio("cold first find_symbol / gopls first answer", s.FirstSymbol, g.FirstSymbol, 0.2)
	ratio("cold first find_references / gopls refs", s.FirstRefs, g.FirstRefs, 0.5)
	ratio("cold complete snapshot / gopls first answer", s.Complete, g.FirstSymbol, 1.0)
	ratio("cold peak tree RSS / gopls", float64(s.PeakTreeKiB), float64(g.PeakTreeKiB), 1.0)
}
