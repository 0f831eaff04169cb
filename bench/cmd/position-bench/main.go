// Command position-bench measures infer_type on golang.org/x/tools beside
// gopls hover on the same positions, in one run:
//
//   - cold: the first infer_type on a package the live cache has not
//     loaded (a new Service per position; the go build cache is warm, as
//     on a developer's machine: one untimed pass fills it first), and
//     gopls's first hover on the same position after its initialization;
//   - warm: repeated infer_type calls on positions whose packages are
//     cached (target: p50 ≤ 5 ms), and repeated gopls hovers;
//   - after an edit: the first infer_type after a file of the package
//     changed on disk (the cache notices and reloads).
//
// infer_type runs in-process through the tool registry (JSON arguments in,
// the typed answer out, as the MCP server calls it); gopls over its stdio
// LSP. Run it from the module root:
//
//	go run ./bench/cmd/position-bench
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
	"runtime"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/query"
)

// files are the packages the positions come from: a leaf and some with
// many dependencies, in several corners of the module.
var files = []string{
	"go/ssa/builder.go",
	"go/packages/packages.go",
	"go/analysis/passes/printf/printf.go",
	"go/callgraph/vta/vta.go",
	"cmd/stringer/stringer.go",
	"internal/typesinternal/types.go",
}

type position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Name   string `json:"name"`
}

type coldRow struct {
	position
	Sextant   time.Duration `json:"sextant_ns"`
	Gopls     time.Duration `json:"gopls_ns"`
	Type      string        `json:"type"`
	GoplsType string        `json:"gopls_hover"`
}

type results struct {
	Module        string          `json:"module"`
	Date          string          `json:"date"`
	GoVersion     string          `json:"go"`
	CPUs          int             `json:"cpus"`
	GoplsInit     time.Duration   `json:"gopls_initialize_ns"`
	Cold          []coldRow       `json:"cold"`
	ColdP50       time.Duration   `json:"cold_sextant_p50_ns"`
	ColdGoplsP50  time.Duration   `json:"cold_gopls_p50_ns"`
	Warm          harness.Latency `json:"warm_sextant"`
	WarmGopls     harness.Latency `json:"warm_gopls"`
	AfterEdit     harness.Latency `json:"after_edit_sextant"`
	WarmTargetMet bool            `json:"warm_p50_within_5ms"`
}

func main() {
	f := harness.NewFlags("position-bench")
	f.CorpusFlags("golang.org/x/tools@v0.52.0", "corpus, MODULE@VERSION", "an existing writable copy of -module, dependencies downloaded")
	f.WorkFlags(false, "work directory (default: a new temporary one, removed at the end)")
	f.GoplsFlag("gopls binary (default: on PATH, else $(go env GOPATH)/bin/gopls)")
	warmCalls := flag.Int("warm", 50, "warm calls per position, for each contender")
	edits := flag.Int("edits", 10, "edit-then-call rounds")
	f.OutFlag("", "JSON results here (default bench/results/DATE-position-tools-v0.52.0-COMMIT.json; - for stdout)")
	flag.Parse()
	f.Run(true, func(ctx context.Context, env harness.Env) error { return run(ctx, env, f, *warmCalls, *edits) })
}

func run(ctx context.Context, env harness.Env, f *harness.Flags, warmCalls, edits int) error {
	root, corpus := env.Root, env.Corpus
	goplsBin, err := harness.FindGopls(f.Gopls)
	if err != nil {
		return err
	}
	var positions []position
	for _, f := range files {
		p, err := pickPosition(corpus, f)
		if err != nil {
			return err
		}
		positions = append(positions, p)
	}
	r := &results{Module: f.Module, Date: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU()}

	// Fill the build cache (export data of every dependency), untimed.
	harness.Logf("warming the build cache")
	svc, err := query.New(nil, []string{corpus}, nil)
	if err != nil {
		return err
	}
	for _, p := range positions {
		if _, _, err := inferType(ctx, svc, p); err != nil {
			return err
		}
	}

	// Cold: a new Service (empty live cache) per position.
	harness.Logf("cold infer_type")
	var coldS []time.Duration
	for _, p := range positions {
		fresh, _ := query.New(nil, []string{corpus}, nil)
		d, typ, err := inferType(ctx, fresh, p)
		if err != nil {
			return err
		}
		r.Cold = append(r.Cold, coldRow{position: p, Sextant: d, Type: typ})
		coldS = append(coldS, d)
	}

	harness.Logf("starting gopls")
	start := time.Now()
	lc, err := lsptest.Start(goplsBin, corpus, "serve")
	if err != nil {
		return err
	}
	defer lc.Close()
	r.GoplsInit = time.Since(start)
	var coldG []time.Duration
	for i, p := range positions {
		d, text, err := hover(lc, corpus, p)
		if err != nil {
			return err
		}
		r.Cold[i].Gopls, r.Cold[i].GoplsType = d, text
		coldG = append(coldG, d)
	}
	r.ColdP50 = harness.Summarize(coldS).P50
	r.ColdGoplsP50 = harness.Summarize(coldG).P50

	harness.Logf("warm calls")
	var warmS, warmG []time.Duration
	for range warmCalls {
		for _, p := range positions {
			d, _, err := inferType(ctx, svc, p)
			if err != nil {
				return err
			}
			warmS = append(warmS, d)
			g, _, err := hover(lc, corpus, p)
			if err != nil {
				return err
			}
			warmG = append(warmG, g)
		}
	}
	r.Warm, r.WarmGopls = harness.Summarize(warmS), harness.Summarize(warmG)
	r.WarmTargetMet = r.Warm.P50 <= 5*time.Millisecond

	harness.Logf("edit, then call")
	leaf := positions[len(positions)-1]
	path := filepath.Join(corpus, filepath.FromSlash(leaf.File))
	orig, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	defer os.WriteFile(path, orig, 0o644)
	var afterEdit []time.Duration
	for i := range edits {
		edited := append(append([]byte{}, orig...), fmt.Sprintf("\n// edit %d\n", i)...)
		if err := os.WriteFile(path, edited, 0o644); err != nil {
			return err
		}
		d, _, err := inferType(ctx, svc, leaf)
		if err != nil {
			return err
		}
		afterEdit = append(afterEdit, d)
	}
	r.AfterEdit = harness.Summarize(afterEdit)

	report(r)
	return harness.WriteJSON(root, f.Out, "position-tools-v0.52.0", r)
}

// inferType times one infer_type call through the registry.
func inferType(ctx context.Context, svc *query.Service, p position) (time.Duration, string, error) {
	t, _ := query.LookupTool("infer_type")
	args, _ := json.Marshal(map[string]any{"file": p.File, "line": p.Line, "column": p.Column})
	start := time.Now()
	ans, err := t.Call(ctx, svc, args, nil)
	d := time.Since(start)
	if err != nil {
		return d, "", fmt.Errorf("infer_type %s:%d:%d: %w", p.File, p.Line, p.Column, err)
	}
	return d, ans.(*query.InferTypeOutput).Results.Type, nil
}

// hover times one gopls hover.
func hover(lc *lsptest.Client, corpus string, p position) (time.Duration, string, error) {
	line := lineOf(corpus, p)
	var res struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	start := time.Now()
	err := lc.Call("textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": lsptest.FileURI(filepath.Join(corpus, filepath.FromSlash(p.File)))},
		"position":     lsptest.Position{Line: p.Line - 1, Character: lsptest.UTF16Column(line, p.Column)},
	}, &res)
	d := time.Since(start)
	if err != nil {
		return d, "", fmt.Errorf("gopls hover %s:%d:%d: %w", p.File, p.Line, p.Column, err)
	}
	v := strings.TrimPrefix(res.Contents.Value, "```go\n")
	v, _, _ = strings.Cut(v, "\n")
	return d, v, nil
}

func lineOf(corpus string, p position) string {
	data, _ := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(p.File)))
	lines := strings.Split(string(data), "\n")
	if p.Line-1 < len(lines) {
		return lines[p.Line-1]
	}
	return ""
}

// pickPosition takes the first local variable defined with := in a
// function body of the file.
func pickPosition(corpus, rel string) (position, error) {
	src, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(rel)))
	if err != nil {
		return position{}, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return position{}, err
	}
	var found *ast.Ident
	ast.Inspect(f, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
			if id, ok := as.Lhs[0].(*ast.Ident); ok && id.Name != "_" {
				found = id
			}
		}
		return true
	})
	if found == nil {
		return position{}, fmt.Errorf("no local variable in %s", rel)
	}
	p := fset.Position(found.Pos())
	lines := strings.Split(string(src), "\n")
	return position{File: rel, Line: p.Line, Column: lsptest.ByteToCharColumn(lines[p.Line-1], p.Column), Name: found.Name}, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

func report(r *results) {
	fmt.Printf("infer_type on %s (%d CPUs, %s)\n\n", r.Module, r.CPUs, r.GoVersion)
	fmt.Printf("cold: first call on a package (sextant: empty live cache, warm build cache; gopls: first hover after initialize, which took %s)\n", ms(r.GoplsInit))
	fmt.Printf("  %-45s %12s %12s\n", "position", "infer_type", "gopls hover")
	for _, c := range r.Cold {
		fmt.Printf("  %-45s %12s %12s   %s | %s\n", fmt.Sprintf("%s:%d:%d", c.File, c.Line, c.Column), ms(c.Sextant), ms(c.Gopls), c.Type, c.GoplsType)
	}
	fmt.Printf("  %-45s %12s %12s\n\n", "p50", ms(r.ColdP50), ms(r.ColdGoplsP50))
	verdict := "MISS"
	if r.WarmTargetMet {
		verdict = "PASS"
	}
	fmt.Printf("warm (%d calls each): infer_type p50 %s p90 %s p99 %s   gopls hover p50 %s p90 %s   target p50 ≤ 5 ms: %s\n",
		r.Warm.N, ms(r.Warm.P50), ms(r.Warm.P90), ms(r.Warm.P99), ms(r.WarmGopls.P50), ms(r.WarmGopls.P90), verdict)
	fmt.Printf("after editing the file (%d rounds): infer_type p50 %s max %s\n", r.AfterEdit.N, ms(r.AfterEdit.P50), ms(r.AfterEdit.Max))
}
