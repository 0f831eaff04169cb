// Command fresh-bench measures read-your-writes on golang.org/x/tools: how
// long the first call after an edit takes to answer with the edit in it,
// and what the freshness check costs when nothing changed.
//
//   - edit to fresh answer, leaf: a statement is added to a function body
//     in a package nothing else imports (cmd/stringer), then read_source
//     of that function is called; the time runs from the write to the
//     answer, which must show the new statement (target: p50 ≤ 500 ms).
//     One untimed edit comes first, so the timed ones find the package
//     in the amend cache (live.Cache), as an agent's second and
//     later edits of a package do;
//   - edit to fresh answer, hub: the same in the package of the module
//     that the most other packages of it depend on (target: p50 ≤ 3 s);
//   - both again without the cache, every edit loading its package with
//     the go command: what the first edit of a package costs (reported);
//   - no change: get_symbol by stable key, repeated with nothing edited,
//     with the directory watch (the default; target p50 ≤ 5 ms) and
//     without it, statting every file (target p50 ≤ 50 ms). The figure is
//     the whole call, so it bounds the check from above.
//
// Calls go in-process through the tool registry, as the MCP server makes
// them, on a Service that refreshes with index.Refresh (the shipped
// wiring, less the background whole index that follows an amend). Run it
// from the module root:
//
//	go run ./bench/cmd/fresh-bench
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

type result struct {
	Module     string          `json:"module"`
	Leaf       editResult      `json:"leaf"`
	Hub        editResult      `json:"hub"`
	LeafCold   editResult      `json:"leaf_go_command"`
	HubCold    editResult      `json:"hub_go_command"`
	NoChange   harness.Latency `json:"no_change_watch"`
	NoChangeNW harness.Latency `json:"no_change_stat"`
	Checks     []harness.Check `json:"checks"`
}

type editResult struct {
	Package   string          `json:"package"`
	File      string          `json:"file"`
	Function  string          `json:"function"`
	Importers int             `json:"importers"` // packages of the module that depend on it
	Packages  int             `json:"packages"`  // packages of the module
	Amended   int             `json:"amended"`   // rounds answered from an amended snapshot
	Latency   harness.Latency `json:"latency"`
}

func main() {
	f := harness.NewFlags("fresh-bench")
	f.CorpusFlags("golang.org/x/tools@v0.52.0", "corpus, MODULE@VERSION", "an existing writable copy of -module, dependencies downloaded (it is edited and restored)")
	f.WorkFlags(false, "work directory (default: a new temporary one, removed at the end)")
	leafPkg := flag.String("leaf", "cmd/stringer", "directory of the leaf package")
	rounds := flag.Int("edits", 20, "edit-then-call rounds per package")
	calls := flag.Int("calls", 500, "no-change calls per variant")
	f.OutFlag("", "JSON results here (default bench/results/DATE-fresh-tools-COMMIT.json; - for stdout)")
	flag.Parse()
	f.Run(true, func(ctx context.Context, env harness.Env) error { return run(ctx, env, f, *leafPkg, *rounds, *calls) })
}

func run(ctx context.Context, env harness.Env, f *harness.Flags, leafDir string, rounds, calls int) error {
	root, work, corpus := env.Root, env.Work, env.Corpus
	hubDir, importers, total, err := hub(ctx, corpus)
	if err != nil {
		return err
	}

	st, err := sqlite.Open(ctx, filepath.Join(work, "fresh.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	harness.Logf("indexing %s", corpus)
	if _, err := index.Index(ctx, st, corpus, index.Options{}); err != nil {
		return err
	}
	cache := live.New(0)
	refresh := func(ctx context.Context, root string, _ func(query.Progress)) error {
		_, err := index.Refresh(ctx, st, root, index.Options{Cache: cache})
		return err
	}
	svc, err := query.New(st, []string{corpus}, refresh)
	if err != nil {
		return err
	}
	// Without the cache every amend loads its package with the go
	// command, as the first edit of a package in a session does.
	noCache := func(ctx context.Context, root string, _ func(query.Progress)) error {
		_, err := index.Refresh(ctx, st, root, index.Options{})
		return err
	}
	cold, err := query.New(st, []string{corpus}, noCache)
	if err != nil {
		return err
	}
	r := result{Module: f.Module}
	// The first, untimed edit of each round set loads the package (and
	// fills the go build cache for it); the timed ones follow.
	for _, run := range []struct {
		svc *query.Service
		dir string
		res *editResult
	}{{svc, leafDir, &r.Leaf}, {svc, hubDir, &r.Hub}, {cold, leafDir, &r.LeafCold}, {cold, hubDir, &r.HubCold}} {
		if run.dir == hubDir {
			run.res.Importers, run.res.Packages = importers, total
		}
		if err := editRounds(ctx, run.svc, st, corpus, run.dir, rounds, run.res); err != nil {
			return err
		}
	}

	key, err := anyKey(ctx, st)
	if err != nil {
		return err
	}
	r.NoChange, err = noChange(ctx, svc, key, calls)
	if err != nil {
		return err
	}
	nw, err := query.New(st, []string{corpus}, refresh)
	if err != nil {
		return err
	}
	nw.SetDirWatch(false)
	r.NoChangeNW, err = noChange(ctx, nw, key, calls)
	if err != nil {
		return err
	}
	r.Checks = []harness.Check{
		harness.AtMost("leaf edit to fresh answer p50", ms(r.Leaf.Latency.P50), 500, "ms", r.Leaf.Package),
		harness.AtMost("hub edit to fresh answer p50", ms(r.Hub.Latency.P50), 3000, "ms",
			fmt.Sprintf("%s, a dependency of %d of %d packages", r.Hub.Package, importers, total)),
		harness.AtMost("no-change call p50, directory watch", ms(r.NoChange.P50), 5, "ms", "whole get_symbol call"),
		harness.AtMost("no-change call p50, stat every file", ms(r.NoChangeNW.P50), 50, "ms", "whole get_symbol call"),
	}
	for _, c := range r.Checks {
		fmt.Printf("%-44s %10s  target ≤ %-8s %s  (%s)\n", c.Name, c.Format(c.Value), c.Format(c.Limit), c.Verdict(), c.Detail)
	}
	fmt.Printf("amended rounds: leaf %d/%d, hub %d/%d\n", r.Leaf.Amended, rounds, r.Hub.Amended, rounds)
	fmt.Printf("every edit loading with the go command (the first edit of a package): leaf p50 %.1f ms, hub p50 %.1f ms\n",
		ms(r.LeafCold.Latency.P50), ms(r.HubCold.Latency.P50))
	return harness.WriteJSON(root, f.Out, "fresh-tools", r)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// editRounds edits the first function with a body in the package at dir,
// rounds times plus one untimed, each time calling read_source on it and
// checking that the answer has the edit.
func editRounds(ctx context.Context, svc *query.Service, st graph.Store, corpus, dir string, rounds int, res *editResult) error {
	file, fn, err := firstFunc(filepath.Join(corpus, filepath.FromSlash(dir)))
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(corpus, file)
	res.Package, res.File, res.Function = dir, filepath.ToSlash(rel), fn
	orig, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	defer os.WriteFile(file, orig, 0o644)
	tool, _ := query.LookupTool("read_source")
	args, _ := json.Marshal(map[string]any{"ref": res.File + "::" + fn})
	var ds []time.Duration
	for i := 0; i <= rounds; i++ {
		mark := fmt.Sprintf("_ = %d // fresh-bench", 1000+i)
		edited := strings.Replace(string(orig), "func "+fn+"(", "func "+fn+"(", 1)
		at := bodyStart(edited, fn)
		if at < 0 {
			return fmt.Errorf("no body of %s in %s", fn, res.File)
		}
		edited = edited[:at] + "\n\t" + mark + edited[at:]
		// A new modification time even on a coarse clock.
		time.Sleep(10 * time.Millisecond)
		start := time.Now()
		if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
			return err
		}
		ans, err := tool.Call(ctx, svc, args, nil)
		d := time.Since(start)
		if err != nil {
			return fmt.Errorf("read_source %s after edit %d: %w", fn, i, err)
		}
		b, _ := json.Marshal(ans)
		if !strings.Contains(string(b), mark) {
			return fmt.Errorf("read_source %s after edit %d does not show the edit: %.300s", fn, i, b)
		}
		if i == 0 {
			continue
		}
		ds = append(ds, d)
		if amended(ctx, st) {
			res.Amended++
		}
	}
	res.Latency = harness.Summarize(ds)
	harness.Logf("%s: edit to fresh answer p50 %v p90 %v (%d/%d amended)", dir, res.Latency.P50, res.Latency.P90, res.Amended, rounds)
	return nil
}

func amended(ctx context.Context, st graph.Store) bool {
	r, err := st.Read(ctx)
	if err != nil {
		return false
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	return err == nil && len(repos) == 1 && len(repos[0].Snapshot.Amended) > 0
}

// bodyStart returns the offset just after the opening brace of fn's body.
func bodyStart(src, fn string) int {
	i := strings.Index(src, "\nfunc "+fn+"(")
	if i < 0 {
		return -1
	}
	j := strings.Index(src[i:], "{\n")
	if j < 0 {
		return -1
	}
	return i + j + 1
}

// firstFunc returns the first non-test file of the package at dir, in
// name order, and the first plain function in it with a body whose
// signature fits on its line.
func firstFunc(dir string) (string, string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		src, _ := os.ReadFile(path)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Recv == nil && fd.Body != nil && fd.Name.Name != "init" && bodyStart(string(src), fd.Name.Name) >= 0 {
				return path, fd.Name.Name, nil
			}
		}
	}
	return "", "", fmt.Errorf("no function with a body in %s", dir)
}

// hub returns the package directory of the module that the most other
// packages of the module depend on (directly or not), with that count and
// the number of packages.
func hub(ctx context.Context, corpus string) (string, int, int, error) {
	out, err := harness.GoOutput(ctx, corpus, nil, "list", "-f", `{{.ImportPath}} {{.Dir}} {{join .Deps " "}}`, "./...")
	if err != nil {
		return "", 0, 0, err
	}
	type pkg struct{ path, dir string }
	var pkgs []pkg
	count := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		pkgs = append(pkgs, pkg{f[0], f[1]})
		for _, d := range f[2:] {
			count[d]++
		}
	}
	sort.Slice(pkgs, func(i, j int) bool {
		if count[pkgs[i].path] != count[pkgs[j].path] {
			return count[pkgs[i].path] > count[pkgs[j].path]
		}
		return pkgs[i].path < pkgs[j].path
	})
	for _, p := range pkgs {
		if _, _, err := firstFunc(p.dir); err != nil {
			continue
		}
		rel, err := filepath.Rel(corpus, p.dir)
		if err != nil {
			continue
		}
		return filepath.ToSlash(rel), count[p.path], len(pkgs), nil
	}
	return "", 0, 0, fmt.Errorf("no package with a function in %s", corpus)
}

func anyKey(ctx context.Context, st graph.Store) (string, error) {
	r, err := st.Read(ctx)
	if err != nil {
		return "", err
	}
	defer r.Close()
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Inspector", Mode: graph.MatchExact, Limit: 1})
	if err != nil || len(syms) == 0 {
		return "", fmt.Errorf("no symbol Inspector: %v", err)
	}
	return syms[0].Key, nil
}

// noChange times get_symbol by key with nothing edited, after one
// untimed call that sets up the check.
func noChange(ctx context.Context, svc *query.Service, key string, n int) (harness.Latency, error) {
	tool, _ := query.LookupTool("get_symbol")
	args, _ := json.Marshal(map[string]any{"stable_key": key})
	var ds []time.Duration
	for i := 0; i <= n; i++ {
		start := time.Now()
		if _, err := tool.Call(ctx, svc, args, nil); err != nil {
			return harness.Latency{}, fmt.Errorf("get_symbol: %w", err)
		}
		if i > 0 {
			ds = append(ds, time.Since(start))
		}
	}
	return harness.Summarize(ds), nil
}
