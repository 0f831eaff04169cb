package live

import (
	"context"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// writeModule writes files (relative path → content) under a fresh
// directory and returns it, symlinks resolved.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		write(t, dir, name, content)
	}
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

var module = map[string]string{
	"go.mod":         "module example.com/m\n\ngo 1.24\n",
	"a/a.go":         "package a\n\nimport \"example.com/m/b\"\n\nconst A = b.B\n",
	"a/a_test.go":    "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { _ = A }\n",
	"a/ext_test.go":  "package a_test\n\nimport \"example.com/m/a\"\n\nvar _ = a.A\n",
	"b/b.go":         "package b\n\n// B is read by package a.\nconst B = 1\n",
	"c/c.go":         "package c\n\nfunc C() int { return 3 }\n",
	"broken/x.go":    "package broken\n\nfunc Good() int { return 1 }\n\nfunc Bad( {\n",
	"other/other.go": "package other\n\nvar O = 1\n",
}

// typeOfA returns the type of constant A as the cache sees it now.
func typeOfA(t *testing.T, c *Cache, root string) string {
	t.Helper()
	p, err := c.Get(context.Background(), root, "a/a.go")
	if err != nil {
		t.Fatal(err)
	}
	obj := p.Pkg.Types.Scope().Lookup("A")
	if obj == nil {
		t.Fatalf("no A in %s", p.Pkg.ID)
	}
	return obj.Type().String() + " " + obj.(*types.Const).Val().String()
}

// TestInvalidation checks that a cached package is reused while nothing it
// depends on changes, and reloaded on the first use after a change: its
// own file edited, a file added to its directory, a file of a package it
// imports edited, go.mod edited. A touched file whose content is the same
// is not a change.
func TestInvalidation(t *testing.T) {
	root := writeModule(t, module)
	c := New(0)
	loads := func() int64 { return c.Stats().Loads }
	if got := typeOfA(t, c, root); got != "untyped int 1" {
		t.Fatalf("A = %s, want untyped int 1", got)
	}
	typeOfA(t, c, root)
	if loads() != 1 {
		t.Fatalf("second use loaded again: %d loads", loads())
	}

	// Same content, new modification time: the hash says nothing changed.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "a/a.go"), future, future); err != nil {
		t.Fatal(err)
	}
	typeOfA(t, c, root)
	if loads() != 1 {
		t.Fatalf("touching a file reloaded the package: %d loads", loads())
	}

	// Each step changes the disk; the next use must see it, by loading
	// the package again with the go command or, for an edit of the
	// package's own files that keeps its imports, by type-checking it
	// again in memory.
	steps := []struct {
		name   string
		writes [][2]string // file, content
		want   string
		reload bool
	}{
		{"edit own file", [][2]string{{"a/a.go", "package a\n\nimport \"example.com/m/b\"\n\nconst A = b.B + 1\n"}}, "untyped int 2", false},
		{"edit imported package", [][2]string{{"b/b.go", "package b\n\nconst B = \"s\"\n"}, {"a/a.go", "package a\n\nimport \"example.com/m/b\"\n\nconst A = b.B + \"1\"\n"}}, "untyped string \"s1\"", true},
		{"change own imports", [][2]string{{"a/a.go", "package a\n\nimport (\n\t\"example.com/m/b\"\n\t\"example.com/m/c\"\n)\n\nconst A = b.B + \"2\"\n\nvar _ = c.C\n"}}, "untyped string \"s2\"", true},
		{"add a file", [][2]string{{"a/more.go", "package a\n\nconst More = 1\n"}}, "untyped string \"s2\"", true},
		{"edit go.mod", [][2]string{{"go.mod", "module example.com/m\n\ngo 1.25\n"}}, "untyped string \"s2\"", true},
		{"edit own file again", [][2]string{{"a/more.go", "package a\n\nconst More = 2\n"}}, "untyped string \"s2\"", false},
	}
	wantLoads, wantRechecks := int64(1), int64(0)
	for _, s := range steps {
		for _, w := range s.writes {
			write(t, root, w[0], w[1])
		}
		if s.reload {
			wantLoads++
		} else {
			wantRechecks++
		}
		if got := typeOfA(t, c, root); got != s.want {
			t.Errorf("%s: A = %s, want %s", s.name, got, s.want)
		}
		if st := c.Stats(); st.Loads != wantLoads || st.Rechecks != wantRechecks {
			t.Errorf("%s: %d loads and %d rechecks, want %d and %d", s.name, st.Loads, st.Rechecks, wantLoads, wantRechecks)
		}
	}
	// A package the file does not import changing is not a reason to reload.
	write(t, root, "other/other.go", "package other\n\nvar O = 2\n")
	typeOfA(t, c, root)
	if got := loads(); got != wantLoads {
		t.Errorf("an unrelated package's edit reloaded: %d loads", got)
	}
	// Editing a package it imports (c, since "change own imports") is.
	write(t, root, "c/c.go", "package c\n\nfunc C() int { return 4 }\n")
	typeOfA(t, c, root)
	if got := loads(); got != wantLoads+1 {
		t.Errorf("an imported package's edit did not reload: %d loads", got)
	}
	// Deleting a file of the package is a change.
	if err := os.Remove(filepath.Join(root, "a/more.go")); err != nil {
		t.Fatal(err)
	}
	typeOfA(t, c, root)
	if got := loads(); got != wantLoads+2 {
		t.Errorf("deleting a file did not reload: %d loads", got)
	}
}

// TestLRU checks that the cache stays within its byte bound by evicting
// the least recently used package, and reloads an evicted one on use.
func TestLRU(t *testing.T) {
	root := writeModule(t, module)
	ctx := context.Background()
	// One package's estimate is 2 MiB plus 40 bytes per source byte: a
	// bound of 3 MiB holds one of these small packages, not two.
	const bound = 3 << 20
	c := New(bound)
	for _, f := range []string{"c/c.go", "other/other.go"} {
		if _, err := c.Get(ctx, root, f); err != nil {
			t.Fatal(err)
		}
	}
	st := c.Stats()
	if st.Entries != 1 || st.Bytes > bound {
		t.Fatalf("after two loads under a one-package bound: %+v", st)
	}
	if _, err := c.Get(ctx, root, "other/other.go"); err != nil {
		t.Fatal(err)
	}
	if c.Stats().Loads != 2 {
		t.Fatalf("the most recent package was evicted: %+v", c.Stats())
	}
	if _, err := c.Get(ctx, root, "c/c.go"); err != nil {
		t.Fatal(err)
	}
	if c.Stats().Loads != 3 {
		t.Fatalf("the evicted package was not reloaded: %+v", c.Stats())
	}

	big := New(0)
	for _, f := range []string{"c/c.go", "other/other.go", "b/b.go"} {
		if _, err := big.Get(ctx, root, f); err != nil {
			t.Fatal(err)
		}
	}
	if st := big.Stats(); st.Entries != 3 {
		t.Fatalf("a large bound evicted: %+v", st)
	}
}

// TestSingleflight checks that concurrent requests for one package share
// one load and get the same result.
func TestSingleflight(t *testing.T) {
	root := writeModule(t, module)
	c := New(0)
	const n = 8
	var wg sync.WaitGroup
	results := make([]*Package, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = c.Get(context.Background(), root, "b/b.go")
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if results[i].Result != results[0].Result {
			t.Errorf("request %d got a different load", i)
		}
	}
	if got := c.Stats().Loads; got != 1 {
		t.Errorf("%d concurrent requests ran %d loads, want 1", n, got)
	}
}

// TestVariantsAndErrors checks which package a file resolves to (the test
// variant for a test file, the external test package for its files), that
// a file with a syntax error still yields what parsed with its
// diagnostics, and the coded errors for bad files.
func TestVariantsAndErrors(t *testing.T) {
	root := writeModule(t, module)
	outside := t.TempDir()
	write(t, outside, "secret.go", "package secret\n")
	escape := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "a", "escape.go"))
	if escape == nil {
		_, escape = os.Lstat(filepath.Join(root, "a", "escape.go")) // Wine 8 reports success and makes no link
	}
	c := New(0)
	ctx := context.Background()
	for _, tc := range []struct{ file, id string }{
		{"a/a_test.go", "example.com/m/a [example.com/m/a.test]"},
		{"a/ext_test.go", "example.com/m/a_test [example.com/m/a.test]"},
		{"b/b.go", "example.com/m/b"},
	} {
		p, err := c.Get(ctx, root, tc.file)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if p.Pkg.ID != tc.id || p.File == nil {
			t.Errorf("%s: package %s (file found: %t), want %s", tc.file, p.Pkg.ID, p.File != nil, tc.id)
		}
	}

	p, err := c.Get(ctx, root, "broken/x.go")
	if err != nil {
		t.Fatal(err)
	}
	if p.File == nil || p.Pkg.Types.Scope().Lookup("Good") == nil {
		t.Errorf("a file with a syntax error lost what parsed")
	}
	diags := p.Diagnostics(nil)
	if len(diags) == 0 || diags[0].Source != "parse" || diags[0].Start.Line != 5 {
		t.Errorf("diagnostics of a syntax error: %+v", diags)
	}

	for _, tc := range []struct {
		file string
		code graph.Code
	}{
		{"a/escape.go", graph.CodeOutsideRoots},
		{"a/missing.go", graph.CodeFileNotFound},
		{"go.mod", graph.CodeInvalidArgument},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if tc.code == graph.CodeOutsideRoots && escape != nil {
				t.Skipf("no symlink to escape through: %v", escape)
			}
			_, err := c.Get(ctx, root, tc.file)
			if graph.CodeOf(err) != tc.code {
				t.Errorf("%s: %v, want %s", tc.file, err, tc.code)
			}
		})
	}
}

// TestRecheckErrors checks that an edit absorbed in memory reports the
// syntax and type errors it introduces, and that fixing them clears them.
func TestRecheckErrors(t *testing.T) {
	root := writeModule(t, module)
	c := New(0)
	ctx := context.Background()
	diags := func() []string {
		t.Helper()
		p, err := c.Get(ctx, root, "c/c.go")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range p.Diagnostics(nil) {
			out = append(out, fmt.Sprintf("%d:%d %s %s", d.Start.Line, d.Start.Column, d.Source, d.Code))
		}
		return out
	}
	if d := diags(); len(d) != 0 {
		t.Fatalf("clean package: %v", d)
	}
	for _, tc := range []struct {
		content string
		want    []string
	}{
		{"package c\n\nfunc C() int { return \"é\" }\n", []string{"3:23 type IncompatibleAssign"}},
		{"package c\n\nfunc C() int { return 3 \n", []string{"3:26 parse parse", "3:26 parse parse"}},
		{"package c\n\nfunc C() int { return 3 }\n", nil},
	} {
		write(t, root, "c/c.go", tc.content)
		if got := diags(); !slices.Equal(got, tc.want) {
			t.Errorf("after writing %q: %v, want %v", tc.content, got, tc.want)
		}
	}
	if st := c.Stats(); st.Loads != 1 || st.Rechecks != 3 {
		t.Errorf("%+v, want 1 load and 3 rechecks", st)
	}
}

// TestSSAGrowsTheEstimate checks that building a package's SSA form counts
// against the cache's bound.
func TestSSAGrowsTheEstimate(t *testing.T) {
	root := writeModule(t, module)
	c := New(0)
	p, err := c.Get(context.Background(), root, "c/c.go")
	if err != nil {
		t.Fatal(err)
	}
	before := c.Stats().Bytes
	pkg, err := p.SSA()
	if err != nil {
		t.Fatal(err)
	}
	if pkg.Func("C") == nil {
		t.Errorf("no SSA function C")
	}
	if after := c.Stats().Bytes; after <= before {
		t.Errorf("SSA did not grow the estimate: %d → %d bytes", before, after)
	}
}

// TestWorkspace checks that a module used by the root's go.work loads
// through the workspace (its imports of another workspace module
// resolve), and that a module outside the workspace loads on its own.
func TestWorkspace(t *testing.T) {
	root := writeModule(t, map[string]string{
		"go.work":        "go 1.24\n\nuse (\n\t./app\n\t./lib\n)\n",
		"app/go.mod":     "module example.com/app\n\ngo 1.24\n",
		"app/main.go":    "package main\n\nimport \"example.com/lib\"\n\nvar X = lib.L\n\nfunc main() {}\n",
		"lib/go.mod":     "module example.com/lib\n\ngo 1.24\n",
		"lib/lib.go":     "package lib\n\nconst L = 1.5\n",
		"alone/go.mod":   "module example.com/alone\n\ngo 1.24\n",
		"alone/alone.go": "package alone\n\nvar A = 1\n",
	})
	c := New(0)
	p, err := c.Get(context.Background(), root, "app/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Unit.Workspace || p.Unit.Dir != root {
		t.Errorf("app loads as %+v, want the workspace at the root", p.Unit)
	}
	if x := p.Pkg.Types.Scope().Lookup("X"); x == nil || x.Type().String() != "float64" || len(p.Pkg.Errors) > 0 {
		t.Errorf("X through the workspace: %v, errors %v", x, p.Pkg.Errors)
	}
	q, err := c.Get(context.Background(), root, "alone/alone.go")
	if err != nil {
		t.Fatal(err)
	}
	if q.Unit.Workspace || q.Unit.Dir != filepath.Join(root, "alone") {
		t.Errorf("alone loads as %+v, want its own module", q.Unit)
	}
}
