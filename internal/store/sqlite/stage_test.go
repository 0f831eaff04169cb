package sqlite

import (
	"context"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// A syntax stage holds the symbols find_symbol reads, but no search rows:
// search_code waits for the complete snapshot, which has them.
func TestSyntaxStageHasNoSearchRows(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	repo, err := s.EnsureRepository(ctx, "/src/st", "st")
	if err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{graph.StageSyntax, ""} {
		w, err := s.BeginSnapshot(ctx, repo, "")
		if err != nil {
			t.Fatal(err)
		}
		w.(graph.Stager).SetStage(stage)
		pkg := graph.Package{Path: "example.com/st", Name: "st", Dir: ".", Hash: "h"}
		sym := graph.Symbol{Key: graph.StableKey(graph.Identity{Language: "go", Repository: "st", PackagePath: pkg.Path,
			QualifiedName: "Frobnicate", Kind: graph.KindFunc}), Repository: "st", PackagePath: pkg.Path, PackageName: "st",
			Path: "f.go", Name: "Frobnicate", QualifiedName: "Frobnicate", Kind: graph.KindFunc, Exported: true,
			StartLine: 1, StartCol: 1, EndLine: 1, EndCol: 2, Doc: "Frobnicate turns the widgets."}
		if err := w.AddPackage(ctx, pkg, []graph.File{{Path: "f.go", Package: pkg.Path, Hash: "h"}}, []graph.Symbol{sym}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Publish(ctx); err != nil {
			t.Fatal(err)
		}
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Frobnicate", Mode: graph.MatchExact})
		if err != nil || len(syms) != 1 {
			t.Errorf("stage %q: FindSymbols = %v, %v; want the symbol", stage, syms, err)
		}
		hits, err := r.SearchText(ctx, graph.TextQuery{Words: []string{"widgets"}})
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want := stage == ""; (len(hits) == 1) != want {
			t.Errorf("stage %q: SearchText found %d, want the symbol %v", stage, len(hits), want)
		}
	}
}
