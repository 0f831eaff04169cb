package graph_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxInterfaceMethods bounds the method set of an interface of this
// package, embedded interfaces included: a backend or a language
// frontend implements the roles it serves, and a role past this bound
// asks it to serve several things at once.
const maxInterfaceMethods = 12

// TestInterfacesSmall type-checks the package and holds every interface
// it declares to maxInterfaceMethods (docs/design.md, the internal/graph
// row of Layers).
func TestInterfacesSmall(t *testing.T) {
	for name, n := range interfaceSizes(t, ".") {
		if n > maxInterfaceMethods {
			t.Errorf("interface %s has %d methods, more than %d: split it into roles", name, n, maxInterfaceMethods)
		}
	}
}

func TestInterfaceSizes(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nimport \"io\"\n\ntype A interface{ F(); G() }\ntype B interface {\n\tA\n\tio.Closer\n\tH()\n}\ntype S struct{ A }\n"
	if err := writeFile(filepath.Join(dir, "p.go"), src); err != nil {
		t.Fatal(err)
	}
	got := interfaceSizes(t, dir)
	if got["A"] != 2 || got["B"] != 4 || len(got) != 2 {
		t.Errorf("interfaceSizes = %v, want A:2 B:4", got)
	}
}

// interfaceSizes type-checks the non-test Go files of dir and returns the
// size of the method set of each interface type declared at package level.
func interfaceSizes(t *testing.T, dir string) map[string]int {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("p", fset, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{}
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		if it, ok := tn.Type().Underlying().(*types.Interface); ok {
			sizes[name] = it.NumMethods()
		}
	}
	return sizes
}

func writeFile(name, src string) error { return os.WriteFile(name, []byte(src), 0o644) }
