package sextant_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/syntax"
)

// maxMethods bounds the methods a type of internal/query, internal/session
// or internal/lsptools declares: a type
// past it does several things, and a newcomer reading one tool's logic
// meets all of them.
const maxMethods = 15

// sourceFiles lists the non-test Go files of dir.
func sourceFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range names {
		if !strings.HasSuffix(name, "_test.go") {
			out = append(out, name)
		}
	}
	return out
}

// methodCounts counts the methods declared on each receiver base type in
// the non-test Go files of dir.
func methodCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	fset := token.NewFileSet()
	for _, name := range sourceFiles(t, dir) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			counts[syntax.ReceiverBase(fd.Recv.List[0].Type)]++
		}
	}
	return counts
}

// smallTypeDirs are the packages whose types TestQueryTypesSmall bounds:
// the tools and the capabilities they call.
var smallTypeDirs = []string{"internal/query", "internal/blind", "internal/impact", "internal/typeproto", "internal/typeexplain", "internal/rank", "internal/srcfile", "internal/overview", "internal/outline", "internal/callwalk", "internal/effectrow"}

// TestQueryTypesSmall: no type of internal/query, or of the capabilities
// it calls, declares more than maxMethods methods (docs/design.md, the
// internal/query row of Layers).
func TestQueryTypesSmall(t *testing.T) {
	for _, dir := range smallTypeDirs {
		for typ, n := range methodCounts(t, dir) {
			if n > maxMethods {
				t.Errorf("%s: %s declares %d methods, more than %d: split what it does", dir, typ, n, maxMethods)
			}
		}
	}
}

// TestServingTypesSmall: no type of the packages that serve every call
// beside internal/query (the session, the language-server bridge)
// declares more than maxMethods methods either: each responsibility of
// theirs (settings, freshness, indexing runs, the server pool) is a type
// of its own.
func TestServingTypesSmall(t *testing.T) {
	for _, dir := range []string{"internal/session", "internal/lsptools", "internal/webui"} {
		for typ, n := range methodCounts(t, dir) {
			if n > maxMethods {
				t.Errorf("%s: %s declares %d methods, more than %d: split what it does", dir, typ, n, maxMethods)
			}
		}
	}
}

// maxQueryLines bounds the lines of internal/query outside its tests:
// the tools' shells, selectors, budgets and texts. An engine that grows
// in it (a tool's own analysis) belongs in a package of its own, as
// change impact's, a type's protocol and the call walks are.
const maxQueryLines = 7000

// TestQuerySmall holds internal/query to maxQueryLines.
func TestQuerySmall(t *testing.T) {
	lines := 0
	for _, name := range sourceFiles(t, filepath.Join("internal", "query")) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(src), "\n")
	}
	t.Logf("internal/query: %d lines outside tests", lines)
	if lines < 1000 || lines > maxQueryLines {
		t.Errorf("internal/query has %d lines outside tests, want at most %d (and a tree that has it): move a tool's engine into a package of its own", lines, maxQueryLines)
	}
}

func TestMethodCounts(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\ntype T struct{}\ntype G[K any] struct{}\n\nfunc (T) A() {}\nfunc (*T) B() {}\nfunc (G[K]) C() {}\nfunc F() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nfunc (T) D() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := methodCounts(t, dir)
	if got["T"] != 2 || got["G"] != 1 || len(got) != 2 {
		t.Errorf("methodCounts = %v, want T:2 G:1", got)
	}
}

// maxInterfaceMethods bounds the methods an interface of internal/graph
// declares itself (those it embeds are counted in their own): a store
// implements each role, and a caller needs only the one it names.
const maxInterfaceMethods = 12

// TestGraphInterfacesSmall holds the interfaces of internal/graph to
// maxInterfaceMethods methods each.
func TestGraphInterfacesSmall(t *testing.T) {
	fset := token.NewFileSet()
	seen := 0
	for _, name := range sourceFiles(t, filepath.Join("internal", "graph")) {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			it, ok := ts.Type.(*ast.InterfaceType)
			if !ok {
				return true
			}
			seen++
			methods := 0
			for _, m := range it.Methods.List {
				if _, ok := m.Type.(*ast.FuncType); ok {
					methods += len(m.Names)
				}
			}
			if methods > maxInterfaceMethods {
				t.Errorf("%s: interface %s declares %d methods, more than %d: split it by role", name, ts.Name.Name, methods, maxInterfaceMethods)
			}
			return true
		})
	}
	if seen == 0 {
		t.Fatal("no interface found in internal/graph")
	}
}
