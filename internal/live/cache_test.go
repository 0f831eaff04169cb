package live

import (
	"context"
	"go/types"
	"os"
	"path/filepath"
	"strings"
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

	steps := []struct {
		name, file, content, want string
	}{
		{"edit own file", "a/a.go", "package a\n\nimport \"example.com/m/b\"\n\nconst A = b.B + 1\n", "untyped int 2"},
		{"edit imported package", "b/b.go", "package b\n\nconst B = \"s\"\n", "untyped string \"s1\""},
		{"add a file", "a/more.go", "package a\n\nconst More = 1\n", "untyped string \"s1\""},
		{"edit go.mod", "go.mod", "module example.com/m\n\ngo 1.25\n", "untyped string \"s1\""},
	}
	for i, s := range steps {
		if s.name == "edit imported package" {
			// A's constant depends on B's type: make it a string sum.
			write(t, root, "a/a.go", "package a\n\nimport \"example.com/m/b\"\n\nconst A = b.B + \"1\"\n")
		}
		write(t, root, s.file, s.content)
		if got := typeOfA(t, c, root); got != s.want {
			t.Errorf("%s: A = %s, want %s", s.name, got, s.want)
		}
		if want := int64(i + 2); loads() != want {
			t.Errorf("%s: %d loads, want %d", s.name, loads(), want)
		}
	}
	// A package the file does not import changing is not a reason to reload.
	write(t, root, "c/c.go", "package c\n\nfunc C() int { return 4 }\n")
	typeOfA(t, c, root)
	if got := loads(); got != int64(len(steps)+1) {
		t.Errorf("an unrelated package's edit reloaded: %d loads", got)
	}
	// Deleting a file of the package is a change.
	if err := os.Remove(filepath.Join(root, "a/more.go")); err != nil {
		t.Fatal(err)
	}
	typeOfA(t, c, root)
	if got := loads(); got != int64(len(steps)+2) {
		t.Errorf("deleting a file did not reload: %d loads", got)
	}
}

// TestLRU checks that the cache stays within its byte bound by evicting
// the least recently used package, and reloads an evicted one on use.
func TestLRU(t *testing.T) {
	root := writeModule(t, module)
	ctx := context.Background()
	// One package's estimate is 64 KiB plus 40 bytes per source byte: a
	// bound of 100 KiB holds one of these small packages, not two.
	c := New(100 << 10)
	for _, f := range []string{"c/c.go", "other/other.go"} {
		if _, err := c.Get(ctx, root, f); err != nil {
			t.Fatal(err)
		}
	}
	st := c.Stats()
	if st.Entries != 1 || st.Bytes > 100<<10 {
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
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "a", "escape.go")); err != nil {
		t.Fatal(err)
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
		_, err := c.Get(ctx, root, tc.file)
		if graph.CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.file, err, tc.code)
		}
	}
}

// TestOffset checks the character-column conversions both ways.
func TestOffset(t *testing.T) {
	src := []byte("ab\n→é x\n")
	for _, tc := range []struct {
		line, col, off int
		ok             bool
	}{
		{1, 1, 0, true}, {1, 3, 2, true}, {2, 2, 6, true}, {2, 4, 9, true}, {2, 6, 0, false}, {3, 1, 11, true}, {4, 1, 0, false},
	} {
		off, ok := Offset(src, tc.line, tc.col)
		if ok != tc.ok || (ok && off != tc.off) {
			t.Errorf("Offset(%d:%d) = %d, %t; want %d, %t", tc.line, tc.col, off, ok, tc.off, tc.ok)
		}
		if ok && tc.off < len(src) {
			lineStart := strings.LastIndexByte(string(src[:off]), '\n') + 1
			if got := charColumn(src, off, off-lineStart+1); got != tc.col {
				t.Errorf("charColumn at %d = %d, want %d", off, got, tc.col)
			}
		}
	}
}

// FuzzOffset checks the position conversions on arbitrary text (source
// files are outside input): an offset found for a line and column lies
// in the text, on that line, and converts back to the same column.
func FuzzOffset(f *testing.F) {
	f.Add([]byte("ab\n→é x\n"), 2, 3)
	f.Add([]byte("\xff\xfe\n\n"), 1, 2)
	f.Fuzz(func(t *testing.T, src []byte, line, col int) {
		off, ok := Offset(src, line, col)
		if !ok {
			return
		}
		if off < 0 || off > len(src) {
			t.Fatalf("Offset(%d:%d) = %d outside %d bytes", line, col, off, len(src))
		}
		lineStart := strings.LastIndexByte(string(src[:off]), '\n') + 1
		if got := strings.Count(string(src[:off]), "\n") + 1; got != line {
			t.Fatalf("Offset(%d:%d) = %d is on line %d", line, col, off, got)
		}
		if got := charColumn(src, off, off-lineStart+1); got != col {
			t.Fatalf("charColumn(%d) = %d, want %d", off, got, col)
		}
	})
}
