package storetest

import (
	"context"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// testLanguage: a symbol's language comes back as written, from every
// read of whole symbols; a Go symbol written without one reads back
// without one ("" is Go).
func testLanguage(t *testing.T, s graph.Store) {
	ctx := context.Background()
	repo := ensure(t, s, "mixed")
	w := begin(t, s, repo)
	defer w.Abort()
	py := sym(repo.Name, "pkg", "pkg", "pkg/m.py", "Base", graph.KindType, 1, func(s *graph.Symbol) { s.Language = "python" })
	run := sym(repo.Name, "pkg", "pkg", "pkg/m.py", "Base.run", graph.KindMethod, 3, child(py, ""), func(s *graph.Symbol) { s.Language = "python" })
	goSym := sym(repo.Name, "example.com/mixed", "mixed", "m.go", "Run", graph.KindFunc, 1)
	if err := w.AddPackage(ctx, graph.Package{Path: "pkg", Name: "pkg", Dir: "pkg"}, []graph.File{{Path: "pkg/m.py", Package: "pkg"}},
		[]graph.Symbol{py, run}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.AddPackage(ctx, graph.Package{Path: "example.com/mixed", Name: "mixed", Dir: "."}, []graph.File{{Path: "m.go", Package: "example.com/mixed"}},
		[]graph.Symbol{goSym}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	r := read(t, s)
	for _, want := range []graph.Symbol{py, run, goSym} {
		got, err := r.SymbolByKey(ctx, want.Key)
		if err != nil || got.Language != want.Language {
			t.Errorf("SymbolByKey(%s): language %q, %v; want %q", want.QualifiedName, got.Language, err, want.Language)
		}
	}
	found, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Base", Mode: graph.MatchExact})
	if err != nil || len(found) != 1 || found[0].Language != "python" {
		t.Errorf("FindSymbols(Base) = %+v, %v; want the python type", found, err)
	}
	kids, err := r.Children(ctx, repo.Name, py.Key)
	if err != nil || len(kids) != 1 || kids[0].Language != "python" {
		t.Errorf("Children(Base) = %+v, %v; want the python method", kids, err)
	}
}
