package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestSearchAfterAmends: the text index of an amended snapshot, made from
// the index of the snapshot it amends (textindex.Cache.Amended), answers
// as one read whole from the database does, through a chain of amends
// with no search between: amends that remove a directory only (its ids
// at the top, which the next amend allocates again) and one that adds
// rows between the old ones.
func TestSearchAfterAmends(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "amends.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	repo, err := s.EnsureRepository(ctx, "/src/amends", "amends")
	if err != nil {
		t.Fatal(err)
	}
	snap := publishGeneration(t, s, repo, 1, 250) // p0, p1, p2
	questions := [][]string{{"g1", "things"}, {"does"}, {"amended", "retries"}, {"again", "request"}, {"g2", "150"}, {"request", "things", "p1"}}
	search := func(s *Store) []string {
		t.Helper()
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []string
		for _, q := range questions {
			hits, err := r.SearchText(ctx, graph.TextQuery{Words: q, Limit: 300})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%v %s:%d %s %v", q, h.Symbol.Path, h.Symbol.StartLine, h.Symbol.Name, h.Score))
			}
			out = append(out, "--")
		}
		return out
	}
	search(s) // the base's index, which the amends start from
	amend := func(dirs []string, gen int, syms ...graph.Symbol) {
		t.Helper()
		aw, err := s.BeginAmend(ctx, repo, snap.ID, fmt.Sprint("gen", gen))
		if err != nil {
			t.Fatal(err)
		}
		if err := aw.RemoveDirs(ctx, dirs); err != nil {
			t.Fatal(err)
		}
		if len(syms) > 0 {
			pkg := graph.Package{Path: syms[0].PackagePath, Name: syms[0].PackageName, ModulePath: "example.com/amends", Dir: dirs[0]}
			files := []graph.File{{Path: syms[0].Path, Package: pkg.Path, Hash: fmt.Sprint(gen)}}
			if err := aw.AddPackage(ctx, pkg, files, syms, nil); err != nil {
				t.Fatal(err)
			}
		}
		if snap, err = aw.Publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sym := func(dir, file, name, doc string, line int) graph.Symbol {
		pkgPath := "example.com/amends/" + dir
		return graph.Symbol{Key: graph.StableKey(graph.Identity{Language: "go", Repository: "amends", PackagePath: pkgPath,
			QualifiedName: name, Kind: graph.KindFunc}), PackagePath: pkgPath, PackageName: dir, ModulePath: "example.com/amends",
			Path: dir + "/" + file, Name: name, QualifiedName: name, Kind: graph.KindFunc, Exported: true, Doc: doc,
			StartLine: line, StartCol: 1, EndLine: line + 2, EndCol: 2}
	}
	// p2 holds the highest ids: removing it alone frees them, and the
	// next amend allocates them again.
	amend([]string{"p2"}, 2)
	amend([]string{"p2"}, 3, sym("p2", "f1.go", "Amended", "Amended retries a request.", 7),
		sym("p2", "f1.go", "G2_150", "G2_150 does other things.", 9))
	// Again: the rows just added go, and the next amend's ids are theirs,
	// a range that reaches into the one before.
	amend([]string{"p2"}, 4)
	amend([]string{"p2"}, 5, sym("p2", "f1.go", "Again", "Again retries a request.", 7))
	amend([]string{"p0"}, 6, sym("p0", "f3.go", "Between", "Between retries things.", 40))
	got := search(s)
	s2, err := Open(ctx, path) // a store of its own: every index read whole
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	want := search(s2)
	if len(got) != len(want) {
		t.Fatalf("after the amends: %d lines, read whole %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after the amends, line %d: %s; read whole: %s", i, got[i], want[i])
		}
	}
	if whole, amended := s.text.Made(); whole != 1 || amended != 1 {
		t.Errorf("indexes made: %d whole, %d from the base's; want 1 and 1 (five amends, one search)", whole, amended)
	}
}
