package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestDropRepository drops one of two repositories: its snapshot's rows
// go, the other's stay, and a reader pinned before keeps its view.
func TestDropRepository(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for _, name := range []string{"keep", "gone"} {
		repo, err := s.EnsureRepository(ctx, "/src/"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.BeginSnapshot(ctx, repo, "")
		if err != nil {
			t.Fatal(err)
		}
		pkg := graph.Package{Path: "example.com/" + name, Name: name, Dir: ".", Hash: "h"}
		sym := graph.Symbol{Key: graph.StableKey(graph.Identity{Language: "go", Repository: name, PackagePath: pkg.Path,
			QualifiedName: "F", Kind: graph.KindFunc}), Repository: name, PackagePath: pkg.Path, PackageName: name,
			Path: "f.go", Name: "F", QualifiedName: "F", Kind: graph.KindFunc, Exported: true, StartLine: 1, StartCol: 1, EndLine: 1, EndCol: 2}
		if err := w.AddPackage(ctx, pkg, []graph.File{{Path: "f.go", Package: pkg.Path, Hash: "h"}}, []graph.Symbol{sym}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pinned, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	if err := s.DropRepository(ctx, "gone"); err != nil {
		t.Fatalf("DropRepository: %v", err)
	}
	if err := s.DropRepository(ctx, "gone"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("dropping it again: %v, want graph.ErrNotFound", err)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	if err != nil || len(repos) != 1 || repos[0].Name != "keep" {
		t.Fatalf("Repositories after the drop = %+v, %v; want keep alone", repos, err)
	}
	if syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "F", Mode: graph.MatchExact}); err != nil || len(syms) != 1 || syms[0].Repository != "keep" {
		t.Errorf("FindSymbols(F) = %+v, %v; want keep's F alone", syms, err)
	}
	if old, err := pinned.Repositories(ctx); err != nil || len(old) != 2 {
		t.Errorf("a reader pinned before the drop sees %+v, %v; want both", old, err)
	}
	var rows int
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM symbols`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("%d symbol rows left, %v; want keep's one", rows, err)
	}
}
