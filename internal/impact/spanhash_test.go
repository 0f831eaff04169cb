package impact

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// TestScanHashAgreesWithParse holds scanHash, on every function and
// method of real code read from its own lines (with its doc comment and
// without), to the hash the recording keeps (DeclHashes over the whole
// file) wherever it answers, and to answering for nearly all of them.
func TestScanHashAgreesWithParse(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	var files []string
	for _, dir := range []string{
		filepath.Join(goroot, "src", "net", "http"),
		filepath.Join(goroot, "src", "go", "types"),
		filepath.Join(goroot, "src", "encoding", "json"),
		".",
	} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		files = append(files, m...)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files to read, want at least 100", len(files))
	}
	decls, answered := 0, 0
	for _, name := range files {
		content, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, content, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		want := map[string]string{}
		for _, d := range DeclHashes(name, content) {
			want[string(d.Kind)+" "+d.QualifiedName] = d.Hash
		}
		lines := strings.SplitAfter(string(content), "\n")
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil || (fd.Recv == nil && fd.Name.Name == "init") {
				continue
			}
			kind, qname := graph.KindFunc, fd.Name.Name
			if fd.Recv != nil {
				kind, qname = graph.KindMethod, syntax.ReceiverBase(fd.Recv.List[0].Type)+"."+fd.Name.Name
			}
			end := fset.Position(fd.End()).Line
			starts := []token.Pos{fd.Pos()}
			if fd.Doc != nil {
				starts = append(starts, fd.Doc.Pos())
			}
			for _, from := range starts {
				start := fset.Position(from).Line
				span := strings.TrimSuffix(strings.Join(lines[start-1:end], ""), "\n")
				decls++
				got := scanHash(kind, qname, span)
				if got == "" {
					continue
				}
				answered++
				if w := want[string(kind)+" "+qname]; got != w {
					t.Errorf("%s: %s %s (lines %d-%d): scanHash %q, the whole file's %q", name, kind, qname, start, end, got, w)
				}
			}
		}
	}
	if decls < 2000 || answered*100 < decls*95 {
		t.Errorf("scanHash answered %d of %d spans, want at least 95%% of at least 2000", answered, decls)
	}
	t.Logf("scanHash answered %d of %d spans", answered, decls)
}

// TestScanHashGivesUp holds scanHash to leave to the parser what is not
// plainly one declaration of that name whole.
func TestScanHashGivesUp(t *testing.T) {
	for _, tc := range []struct {
		kind       graph.Kind
		name, span string
	}{
		{graph.KindFunc, "f", "func f()\n{\n}"},                               // a newline before the body's brace
		{graph.KindFunc, "f", "func f() { return 1 }; func g() { return 2 }"}, // two declarations
		{graph.KindFunc, "f", "func f() {\n}\nfunc g() {\n}"},                 // lines past its end
		{graph.KindFunc, "g", "func f() {}"},                                  // another name
		{graph.KindMethod, "T.f", "func f() {}"},                              // a function, asked as a method
		{graph.KindFunc, "f", "func (T) f() {}"},                              // a method, asked as a function
		{graph.KindFunc, "init", "func init() {}"},                            // several per package
		{graph.KindMethod, "T.f", "func (a, b T) f() {}"},                     // two receivers
		{graph.KindMethod, "T.f", "func (t p.T) f() {}"},                      // a qualified receiver
		{graph.KindMethod, "T.f", "func (t T[[]int]) f() {}"},                 // not type parameters
		{graph.KindFunc, "f", "func f() {"},                                   // cut short
		{graph.KindFunc, "f", "func f() { \"unterminated }"},                  // a scanning error
		{graph.KindFunc, "f", "var x = 1\nfunc f() {}"},                       // another declaration first
		{graph.KindFunc, "f", "func f() int; { return 1 }"},                   // no body: a brace after
	} {
		if got := scanHash(tc.kind, tc.name, tc.span); got != "" {
			t.Errorf("scanHash(%s %s, %q) = %q, want \"\"", tc.kind, tc.name, tc.span, got)
		}
	}
	for _, tc := range []struct {
		kind       graph.Kind
		name, span string
	}{
		{graph.KindMethod, "T.f", "func (t *T[K, V]) f() {}"},
		{graph.KindMethod, "T.f", "func (T) f() {}"},
		{graph.KindFunc, "f", "// f does.\nfunc f(g func() struct{ a int }) (r struct{}) { return struct{}{} } // trailing"},
		{graph.KindFunc, "f", "func f[T interface{ ~int }](x T) T {\n\treturn x\n}"},
	} {
		got := scanHash(tc.kind, tc.name, tc.span)
		want := hashOfParse(tc.kind, tc.name, tc.span)
		if got == "" || got != want {
			t.Errorf("scanHash(%s %s, %q) = %q, want the parser's %q", tc.kind, tc.name, tc.span, got, want)
		}
	}
}

// hashOfParse is the hash of the one declaration of span, parsed, ""
// when it is not that one declaration.
func hashOfParse(kind graph.Kind, name, span string) string {
	fv := parseVersion("decl.go", []byte("package p\n"+span))
	if fv.syntaxErr != "" || len(fv.decls) != 1 || fv.decls[0].QualifiedName != name || fv.decls[0].Kind != kind || !hashed(&fv.decls[0]) {
		return ""
	}
	return declHash(&fv.decls[0])
}

// FuzzScanHash holds scanHash to the parser's hash wherever both answer
// for the same span.
func FuzzScanHash(f *testing.F) {
	for _, s := range []string{
		"func f() {}", "func (t *T) f(x int) (y int) { return x }", "func f[T any](x T) {\n\t_ = x\n}",
		"func (T[K]) f() {}", "func f()\n{\n}", "func f() { a }; func g() {}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, span string) {
		for _, kind := range []graph.Kind{graph.KindFunc, graph.KindMethod} {
			fv := parseVersion("decl.go", []byte("package p\n"+span))
			if fv.syntaxErr != "" || len(fv.decls) != 1 {
				continue
			}
			name := fv.decls[0].QualifiedName
			got, want := scanHash(kind, name, span), hashOfParse(kind, name, span)
			if got != "" && got != want {
				t.Errorf("scanHash(%s %s, %q) = %q, the parser's %q", kind, name, span, got, want)
			}
		}
	})
}
