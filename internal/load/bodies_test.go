package load

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBlankBodies(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"func", "package p\n\nfunc F() int {\n\treturn 1\n}\n", "package p\n\nfunc F() int {\n         \n}\n"},
		{"method and generics", "package p\nfunc (r *T[K]) M[X any](x X) (int, error) { return 0, nil }\n",
			"package p\nfunc (r *T[K]) M[X any](x X) (int, error) {               }\n"},
		{"result types with braces", "package p\nfunc F() struct{ x int } { return struct{ x int }{} }\nfunc G() map[string]interface{ M() } { return nil }\n",
			"package p\nfunc F() struct{ x int } {                          }\nfunc G() map[string]interface{ M() } {            }\n"},
		{"func results", "package p\nfunc F() func() {}\nfunc G() func() { return nil }\n", "package p\nfunc F() func() {}\nfunc G() func() {            }\n"},
		{"assembly", "package p\nfunc F(x int) int\nfunc G() { F(1) }\n", "package p\nfunc F(x int) int\nfunc G() {      }\n"},
		{"literals stay", "package p\nvar a = [...]func(){f, g}\nvar h = func() int { return 2 }\nvar (\n\tk = func() {}\n)\n", ""},
		{"braces in strings and comments", "package p\nfunc F() { _ = \"}\"; /* } */ _ = '}' // }\n}\nfunc G() {}\n",
			"package p\nfunc F() {                              \n}\nfunc G() {}\n"},
		{"line directive", "package p\nfunc F() {\n//line x.go:1\n}\n", ""},
		{"line directive in a block comment", "package p\nfunc F() { /*line x.go:1*/ }\n", ""},
		{"mention of line directives", "package p\n\n// A //line directive moves positions.\nfunc F() { return }\n", "package p\n\n// A //line directive moves positions.\nfunc F() {        }\n"},
		{"does not scan", "package p\nfunc F() { \"unterminated }\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.src
			}
			in := []byte(c.src)
			if got := string(blankBodies(in)); got != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
			if string(in) != c.src {
				t.Errorf("the source was changed")
			}
		})
	}
}

// On the standard library, blanking leaves every declaration as it was:
// the same positions, the same text outside function bodies.
func TestBlankBodiesKeepsDeclarations(t *testing.T) {
	dirs := []string{"fmt", "strings", "net/http", "go/types", "runtime", "reflect", "syscall", "os"}
	if testing.Short() {
		dirs = dirs[:2]
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	files := 0
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(goroot, "src", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			checkSameDecls(t, name, src)
			files++
		}
	}
	if files < 100 {
		t.Errorf("compared %d files, expected the standard library's", files)
	}
}

// checkSameDecls checks that src and its blanked form declare the same
// things at the same positions, with function bodies emptied.
func checkSameDecls(t *testing.T, name string, src []byte) {
	t.Helper()
	fset := token.NewFileSet()
	whole, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return // nothing to compare with
	}
	blanked, err := parser.ParseFile(fset, name, blankBodies(src), parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: parses whole but not blanked: %v", name, err)
	}
	if len(whole.Decls) != len(blanked.Decls) {
		t.Fatalf("%s: %d declarations, %d blanked", name, len(whole.Decls), len(blanked.Decls))
	}
	for i, d := range whole.Decls {
		b := blanked.Decls[i]
		off := func(p token.Pos) int { return fset.Position(p).Offset }
		if off(d.Pos()) != off(b.Pos()) || off(d.End()) != off(b.End()) {
			t.Errorf("%s: declaration %d moved", name, i)
		}
		if fd, ok := d.(*ast.FuncDecl); ok {
			bd := b.(*ast.FuncDecl)
			if (fd.Body == nil) != (bd.Body == nil) || (bd.Body != nil && len(bd.Body.List) != 0 && !hasLineDirective(src)) {
				t.Errorf("%s: %s: body not blanked as it should be", name, fd.Name.Name)
			}
			fd, bd = &ast.FuncDecl{Recv: fd.Recv, Name: fd.Name, Type: fd.Type}, &ast.FuncDecl{Recv: bd.Recv, Name: bd.Name, Type: bd.Type}
			d, b = fd, bd
		}
		if got, want := printed(fset, b), printed(fset, d); got != want {
			t.Errorf("%s: declaration %d differs:\n%s\nwant\n%s", name, i, got, want)
		}
	}
}

func printed(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, n); err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimSpace(b.String())
}

// FuzzBlankBodies: for any source that parses, the blanked source parses
// to the same declarations at the same positions.
func FuzzBlankBodies(f *testing.F) {
	for _, s := range []string{
		"package p\nfunc F() int { return 1 }\n",
		"package p\nvar a = [...]func(){f, g}\nfunc (T) M() struct{}{ return struct{}{} }\n",
		"package p\nfunc F[T interface{ ~int }](x T) (r map[T]func() int) { if x > 0 { return nil }; return }\nfunc G()\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkSameDecls(t, "fuzz.go", src)
	})
}
