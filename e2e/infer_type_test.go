package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// genericsFile is added to a private copy of cobra: cobra itself (go
// 1.15) instantiates nothing generic, so this file (upgraded to go1.21 by
// its build line) gives the generic-instantiation positions: calls of
// standard library generics, of a local generic function, a generic type
// instantiated in a composite literal, and the max builtin.
const genericsFile = `//go:build go1.21

package cobra

import (
	"slices"
	"strings"
)

// parityNames sorts the names of cmds, for the infer_type parity test.
func parityNames(cmds []*Command) []string {
	names := parityMap(cmds, func(c *Command) string { return c.Name() })
	slices.Sort(names)
	if slices.Contains(names, "help") {
		names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, "_") })
	}
	p := parityPair[string, int]{First: "x", Second: len(names)}
	idx := slices.Index(names, p.First)
	_ = max(idx, p.Second)
	return slices.Clip(names)
}

func parityMap[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

type parityPair[K comparable, V any] struct {
	First  K
	Second V
}
`

// inferTypeDifferences lists the positions where gopls v0.23.0 hover and
// infer_type are known to disagree, keyed "path:line:column", with the
// reason.
var inferTypeDifferences = map[string]string{}

// inferQuota is how many positions of each category the test asks about.
var inferQuota = map[string]int{"param": 20, "local": 20, "selector": 24, "composite": 12, "generic": 100}

type inferPos struct {
	category  string
	path      string
	line, col int // 1-based, characters
	name      string
}

// TestInferTypeGoplsParity holds infer_type to gopls v0.23.0 hover on a
// copy of cobra: positions of parameters, locals, selector expressions,
// composite literal types and generic instantiations, picked from the
// syntax of cobra's files, are asked of both, and the type each gives is
// compared once both are normalised to the type (gopls prints a
// declaration: "var x T", "field F T", "func (r R) M() T", "type T ...").
func TestInferTypeGoplsParity(t *testing.T) {
	goplsBin := goplsBinary(t)
	dir := freshCopy(t)
	if err := os.WriteFile(filepath.Join(dir, "parity_generics.go"), []byte(genericsFile), 0o644); err != nil {
		t.Fatal(err)
	}
	positions := pickInferPositions(t, dir)
	if len(positions) < 50 {
		t.Fatalf("picked %d positions, want at least 50", len(positions))
	}

	cs := connectTools(t, "core", filepath.Join(t.TempDir(), "db"), dir)
	lc := startLSP(t, goplsBin, dir, "serve")
	limit := 5 * time.Minute
	if os.Getenv("SEXTANT_GOPLS_ALL") != "" {
		limit = time.Hour
	}
	watchdog := time.AfterFunc(limit, func() { _ = lc.Cmd.Process.Kill() })
	defer watchdog.Stop()
	files := newFileCache(dir)

	counts := map[string]int{}
	matched := 0
	used := map[string]bool{}
	for _, p := range positions {
		where := fmt.Sprintf("%s:%d:%d", p.path, p.line, p.col)
		var hover struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		}
		if err := lc.call("textDocument/hover", map[string]any{
			"textDocument": map[string]any{"uri": fileURI(filepath.Join(dir, filepath.FromSlash(p.path)))},
			"position":     lspPosition{Line: p.line - 1, Character: utf16Column(files.line(p.path, p.line), p.col)},
		}, &hover); err != nil {
			t.Fatalf("gopls hover at %s: %v", where, err)
		}
		want, ok := goplsHoverType(hover.Contents.Value)
		if !ok {
			t.Errorf("%s %s (%s): gopls hover has no declaration: %q", p.category, where, p.name, hover.Contents.Value)
			continue
		}
		got := callTool(t, cs, "infer_type", map[string]any{"file": p.path, "line": p.line, "column": p.col})
		if got.IsError {
			t.Errorf("%s %s (%s): infer_type failed: %s", p.category, where, p.name, toolText(got))
			continue
		}
		var out struct {
			Results struct {
				Token, Type, Kind, Signature string
			} `json:"results"`
		}
		raw, _ := json.Marshal(got.StructuredContent)
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		r := out.Results
		gotType := r.Type
		switch r.Kind {
		case "func", "method":
			gotType = declType(r.Signature)
		case "type":
			// gopls shows the declaration: the bare name, uninstantiated.
			gotType, _, _ = strings.Cut(gotType[strings.LastIndex(gotType, ".")+1:], "[")
		}
		counts[p.category]++
		if r.Token != p.name {
			t.Errorf("%s %s: infer_type found token %q, want %q", p.category, where, r.Token, p.name)
		}
		if gotType == want {
			matched++
			continue
		}
		if _, ok := inferTypeDifferences[where]; ok {
			used[where] = true
			continue
		}
		t.Errorf("%s %s (%s): infer_type %s %q, gopls %q\n    gopls hover: %q\n    %s",
			p.category, where, p.name, r.Kind, gotType, want, firstBlock(hover.Contents.Value), files.text(where))
	}
	for k := range inferTypeDifferences {
		if !used[k] {
			t.Errorf("listed difference at %s no longer occurs; remove it", k)
		}
	}
	t.Logf("infer_type vs gopls hover: %d positions %v, %d agree, %d listed differences", len(positions), counts, matched, len(used))
}

// connectTools starts `sextant serve --tools tools` over stdio.
func connectTools(t *testing.T, tools, db string, roots ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--tools", tools, "--db", db}, roots...)...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-e2e", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting to sextant serve: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// firstBlock returns the first fenced code block of a hover, or the
// hover's first line.
func firstBlock(md string) string {
	if i := strings.Index(md, "```go\n"); i >= 0 {
		rest := md[i+len("```go\n"):]
		if j := strings.Index(rest, "\n```"); j >= 0 {
			return rest[:j]
		}
	}
	line, _, _ := strings.Cut(md, "\n")
	return line
}

var (
	fieldTag = regexp.MustCompile(" `[^`]*`$")
	// func (recv) Name[typeparams](params) results; gopls writes a
	// method of an unnamed receiver (error's Error) as func (error).Error().
	funcDecl = regexp.MustCompile(`^func (?:\([^)]*\)[ .])?[\pL_][\pL\pN_.]*`)
)

// goplsHoverType normalises gopls's hover declaration to the type it
// gives: var/field/const NAME TYPE → TYPE; a function's declaration →
// its type (see declType); type NAME ... → NAME.
func goplsHoverType(md string) (string, bool) {
	decl := firstBlock(md)
	// For an instantiation gopls adds the generic declaration as a
	// comment, after the instantiated one: drop it.
	var keep []string
	for _, l := range strings.Split(decl, "\n") {
		if strings.HasPrefix(l, "//") {
			continue
		}
		if i := strings.Index(l, " // "); i >= 0 {
			l = l[:i]
		}
		keep = append(keep, l)
	}
	decl = strings.Join(keep, "\n")
	first, _, _ := strings.Cut(decl, "\n")
	switch {
	case strings.HasPrefix(first, "var "), strings.HasPrefix(first, "field "), strings.HasPrefix(first, "const "):
		_, rest, _ := strings.Cut(first, " ")
		_, typ, ok := strings.Cut(rest, " ")
		typ, _, _ = strings.Cut(typ, " = ") // const x T = value
		return fieldTag.ReplaceAllString(typ, ""), ok
	case strings.HasPrefix(first, "func "):
		return declType(decl), true
	case strings.HasPrefix(first, "type "):
		name := strings.Fields(first)[1]
		name, _, _ = strings.Cut(name, "[")
		return name, true
	}
	return "", false
}

// declType turns a function declaration (func (r R) Name[T any](params)
// results) into its type (func[T any](params) results).
func declType(decl string) string {
	decl = strings.Join(strings.Fields(decl), " ")
	loc := funcDecl.FindStringIndex(decl)
	if loc == nil {
		return decl
	}
	return "func" + decl[loc[1]:]
}

// pickInferPositions walks the syntax of cobra's files (not the tests)
// for identifiers of each category and picks each category's quota,
// spread evenly, in file and line order.
func pickInferPositions(t *testing.T, dir string) []inferPos {
	t.Helper()
	byCat := map[string][]inferPos{}
	for _, sub := range []string{".", "doc"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_win.go") {
				continue
			}
			rel := filepath.ToSlash(filepath.Join(sub, name))
			for cat, ps := range inferCandidates(t, dir, rel) {
				byCat[cat] = append(byCat[cat], ps...)
			}
		}
	}
	var picked []inferPos
	for cat, quota := range inferQuota {
		if os.Getenv("SEXTANT_GOPLS_ALL") != "" {
			quota = 1 << 20 // every candidate, for a thorough local run
		}
		cands := byCat[cat]
		n := min(quota, len(cands))
		if n == 0 {
			t.Fatalf("no candidate positions of category %s", cat)
		}
		for i := 0; i < n; i++ {
			picked = append(picked, cands[i*len(cands)/n])
		}
	}
	sort.Slice(picked, func(i, j int) bool {
		a, b := picked[i], picked[j]
		if a.path != b.path {
			return a.path < b.path
		}
		if a.line != b.line {
			return a.line < b.line
		}
		return a.col < b.col
	})
	return picked
}

// inferCandidates lists one file's candidate positions by category.
func inferCandidates(t *testing.T, dir, rel string) map[string][]inferPos {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	imports := map[string]bool{}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = true
	}
	out := map[string][]inferPos{}
	add := func(cat string, id *ast.Ident) {
		if id == nil || id.Name == "_" {
			return
		}
		p := fset.Position(id.Pos())
		out[cat] = append(out[cat], inferPos{category: cat, path: rel, line: p.Line, col: byteToCharColumn(lines[p.Line-1], p.Column), name: id.Name})
	}
	generic := rel == "parity_generics.go"
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			for _, fld := range n.Type.Params.List {
				for _, id := range fld.Names {
					add("param", id)
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						add("local", id)
					}
				}
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && imports[x.Name] {
				if generic {
					return true
				}
			} else if !generic {
				add("selector", n.Sel)
			}
		case *ast.CompositeLit:
			switch ty := n.Type.(type) {
			case *ast.Ident:
				add("composite", ty)
			case *ast.SelectorExpr:
				add("composite", ty.Sel)
			case *ast.IndexListExpr:
				if generic {
					add("generic", ty.X.(*ast.Ident))
				}
			}
		case *ast.CallExpr:
			if !generic {
				return true
			}
			switch fn := n.Fun.(type) {
			case *ast.Ident:
				if strings.HasPrefix(fn.Name, "parity") { // not the builtins
					add("generic", fn)
				}
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); ok && imports[x.Name] {
					add("generic", fn.Sel)
				}
			}
		}
		return true
	})
	return out
}
