package index

import (
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// collect runs Extract and returns what it emitted.
func collect(t *testing.T, root string, pkgs []*packages.Package) []PackageRecords {
	t.Helper()
	var recs []PackageRecords
	err := Extract("repo", root, []graph.Module{{Path: "example.com/m", Dir: "."}}, pkgs, Sink{Package: func(r PackageRecords) error {
		recs = append(recs, r)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// Packages that failed early come with any of their fields missing.
// Extract must index what there is and never panic.
func TestExtractMissingFields(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := "// Package a is partly there.\npackage a\n\n// F is found from the syntax alone.\nfunc F(x int) string { return \"\" }\n\ntype T struct{ A, b int }\n\nfunc (t *T) M() {}\n"
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	errs := []packages.Error{
		{Pos: file + ":5:6", Msg: "some error", Kind: packages.TypeError},
		{Pos: "a.go:5", Msg: "relative position", Kind: packages.ListError},
		{Pos: "-", Msg: "no position", Kind: packages.UnknownError},
		{Pos: "", Msg: "no position either"},
		{Pos: "/elsewhere/x.go:1:2", Msg: "outside the root", Kind: packages.TypeError},
		{Pos: "a.go:not:numbers", Msg: "odd position"},
	}
	fset := token.NewFileSet()
	pkgs := []*packages.Package{
		nil,
		{}, // nothing at all
		{ID: "example.com/m/a", PkgPath: "example.com/m/a", Name: "a", GoFiles: []string{file}, Errors: errs},
		// Syntax without a file set, a file set without syntax, nil
		// syntax trees, empty type information, types without info.
		{ID: "example.com/m/b", PkgPath: "example.com/m/b", GoFiles: []string{file}, Syntax: []*ast.File{nil, {}}},
		{ID: "example.com/m/c", PkgPath: "example.com/m/c", GoFiles: []string{file}, Fset: fset, Syntax: []*ast.File{nil, {}}, TypesInfo: &types.Info{}},
		{ID: "example.com/m/d", PkgPath: "example.com/m/d", GoFiles: []string{file}, Fset: fset, Types: types.NewPackage("example.com/m/d", "d")},
		// Files outside the root, missing files, non-Go files.
		{ID: "example.com/m/e", PkgPath: "example.com/m/e", GoFiles: []string{"/elsewhere/e.go", filepath.Join(dir, "gone.go")}, IgnoredFiles: []string{filepath.Join(dir, "x.s")}},
		{ID: "example.com/m/f [example.com/m/f.test]", PkgPath: "example.com/m/f", Module: &packages.Module{Path: "example.com/m", Dir: dir}},
	}
	recs := collect(t, dir, pkgs)
	var a PackageRecords
	for _, r := range recs {
		if r.Package.Path == "example.com/m/a" {
			a = r
		}
	}
	if len(a.Files) != 1 || a.Files[0].Path != "a.go" || a.Package.Hash == "" {
		t.Errorf("files of a: %+v", a.Files)
	}
	var syms []string
	for _, s := range a.Symbols {
		syms = append(syms, string(s.Kind)+" "+s.QualifiedName+" "+s.Signature)
	}
	want := []string{
		"package example.com/m/a package a",
		"func F func F(x int) string",
		"type T type T struct{...}",
		"field T.A A int",
		"field T.b b int",
		"method T.M func (t *T) M()",
	}
	if strings.Join(syms, "\n") != strings.Join(want, "\n") {
		t.Errorf("symbols of a:\n%s\nwant:\n%s", strings.Join(syms, "\n"), strings.Join(want, "\n"))
	}
	var diags []string
	for _, d := range a.Diagnostics {
		diags = append(diags, d.Kind+" "+posString(d)+" "+d.Message)
	}
	wantDiags := []string{
		"unknown - no position",
		"unknown - no position either",
		"type - /elsewhere/x.go:1:2: outside the root",
		"unknown - a.go:not:numbers: odd position",
		"list a.go:5:0 relative position",
		"type a.go:5:6 some error",
	}
	if strings.Join(diags, "\n") != strings.Join(wantDiags, "\n") {
		t.Errorf("diagnostics of a:\n%s\nwant:\n%s", strings.Join(diags, "\n"), strings.Join(wantDiags, "\n"))
	}
	if a.Package.Errors != len(a.Diagnostics) {
		t.Errorf("Errors = %d, want %d", a.Package.Errors, len(a.Diagnostics))
	}
	for _, r := range recs {
		if r.Package.Path == "example.com/m/e" {
			if len(r.Files) != 0 || len(r.Diagnostics) != 1 || r.Diagnostics[0].Path != "gone.go" {
				t.Errorf("package e: files %+v diagnostics %+v", r.Files, r.Diagnostics)
			}
		}
	}
}

func TestSplitPos(t *testing.T) {
	for _, tc := range []struct {
		pos       string
		file      string
		line, col int
	}{
		{"", "", 0, 0},
		{"-", "", 0, 0},
		{"a.go", "a.go", 0, 0},
		{"a.go:3", "a.go", 3, 0},
		{"a.go:3:4", "a.go", 3, 4},
		{`C:\x\a.go:3:4`, `C:\x\a.go`, 3, 4},
	} {
		file, line, col := splitPos(tc.pos)
		if file != tc.file || line != tc.line || col != tc.col {
			t.Errorf("splitPos(%q) = %q %d %d", tc.pos, file, line, col)
		}
	}
}

func TestCharColumn(t *testing.T) {
	content := []byte("ab\n→é x\n\xff\xfe y\n")
	// siteFiles reads the file and must agree with charColumnAt.
	name := filepath.Join(t.TempDir(), "c.go")
	if err := os.WriteFile(name, content, 0o644); err != nil {
		t.Fatal(err)
	}
	sites := siteFiles{}
	for _, tc := range []struct{ line, byteCol, want int }{
		{1, 1, 1},
		{1, 3, 3},
		{2, 1, 1},
		{2, 6, 3}, // after "→é" (3+2 bytes)
		{2, 7, 4}, // x
		{3, 4, 4}, // invalid bytes count one character each
		{9, 5, 5}, // beyond the content: unchanged
		{2, 99, 99},
		{4, 2, 2}, // the empty last line: nothing to count
		{5, 2, 2}, // no such line
	} {
		if got := position.CharColumnAt(content, tc.line, tc.byteCol); got != tc.want {
			t.Errorf("line %d byte column %d: got %d, want %d", tc.line, tc.byteCol, got, tc.want)
		}
		if got := sites.charColumnAt(name, tc.line, tc.byteCol); got != tc.want {
			t.Errorf("siteFiles: line %d byte column %d: got %d, want %d", tc.line, tc.byteCol, got, tc.want)
		}
	}
}

// A cgo file is indexed from its Go source, cgo not run even with a C
// compiler at hand: its declarations are all there, with one diagnostic
// saying what is missing.
func TestExtractCgo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler")
	}
	t.Setenv("CGO_ENABLED", "1")
	t.Setenv("GOPROXY", "off")
	dir := txtartest.Write(t, "testdata/cgo.txtar.in")
	plan, pkgs := loadFixture(t, dir)
	recs := collect(t, dir, pkgs)
	_ = plan
	if len(recs) != 1 {
		t.Fatalf("got %d packages", len(recs))
	}
	r := recs[0]
	var files, syms []string
	for _, f := range r.Files {
		files = append(files, f.Path)
	}
	for _, s := range r.Symbols {
		syms = append(syms, s.QualifiedName+" "+s.Path+" "+s.Signature)
	}
	if strings.Join(files, " ") != "c.go plain.go" {
		t.Errorf("files %q", files)
	}
	want := "example.com/cgo c.go package c\nAdd c.go func Add(a int, b int) int\nPlain plain.go func Plain() int"
	if got := strings.Join(syms, "\n"); got != want {
		t.Errorf("symbols:\n%s\nwant:\n%s", got, want)
	}
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Message != load.CgoNotRun {
		t.Errorf("diagnostics: %+v, want one saying cgo was not run", r.Diagnostics)
	}
}

// Diagnostics give character columns: several errors in one file, on
// lines with multi-byte characters, each converted from its byte column
// (one table of line starts per file serves them all), and a position past
// the file's end kept as it came.
func TestDiagnosticColumns(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := "package a\n\nvar é, ü = 1, \"ß\"\n\nfunc F() { _ = \"äöü\" + x }\n"
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	errs := []packages.Error{
		{Pos: file + ":3:9", Msg: "at ü", Kind: packages.TypeError},  // bytes: "var é, " is 8
		{Pos: file + ":5:27", Msg: "at x", Kind: packages.TypeError}, // bytes: 3 two-byte letters before
		{Pos: file + ":1:9", Msg: "at a", Kind: packages.TypeError},  // ASCII
		{Pos: file + ":40:5", Msg: "past the end", Kind: packages.TypeError},
	}
	pkgs := []*packages.Package{{ID: "example.com/m/a", PkgPath: "example.com/m/a", Name: "a", GoFiles: []string{file}, Errors: errs}}
	var got []string
	for _, r := range collect(t, dir, pkgs) {
		for _, d := range r.Diagnostics {
			got = append(got, posString(d)+" "+d.Message)
		}
	}
	want := []string{"a.go:1:9 at a", "a.go:3:8 at ü", "a.go:5:24 at x", "a.go:40:5 past the end"} // in file order
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
