package sqlite

import (
	"context"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// addFrobnicate adds to w a package with one documented function,
// which a search for "widgets" finds.
func addFrobnicate(t *testing.T, w graph.SnapshotWriter) {
	t.Helper()
	pkg := graph.Package{Path: "example.com/st", Name: "st", Dir: ".", Hash: "h"}
	sym := graph.Symbol{Key: graph.StableKey(graph.Identity{Language: "go", Repository: "st", PackagePath: pkg.Path,
		QualifiedName: "Frobnicate", Kind: graph.KindFunc}), Repository: "st", PackagePath: pkg.Path, PackageName: "st",
		Path: "f.go", Name: "Frobnicate", QualifiedName: "Frobnicate", Kind: graph.KindFunc, Exported: true,
		StartLine: 1, StartCol: 1, EndLine: 1, EndCol: 2, Doc: "Frobnicate turns the widgets."}
	if err := w.AddPackage(context.Background(), pkg, []graph.File{{Path: "f.go", Package: pkg.Path, Hash: "h"}}, []graph.Symbol{sym}, nil); err != nil {
		t.Fatal(err)
	}
}

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
		addFrobnicate(t, w)
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

// A snapshot published as stage types and then whole: the stage is
// current with its references and no call edges; the whole snapshot
// that follows has a snapshot id of its own, the edges and the stage's
// rows; and the syntax stage before them is collected only then. A
// writer aborted after its stage leaves the stage current.
func TestPublishStage(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	repo, err := s.EnsureRepository(ctx, "/src/st", "st")
	if err != nil {
		t.Fatal(err)
	}
	pkg := graph.Package{Path: "example.com/st", Name: "st", Dir: ".", Hash: "h"}
	key := func(name string) string {
		return graph.StableKey(graph.Identity{Language: "go", Repository: "st", PackagePath: pkg.Path, QualifiedName: name, Kind: graph.KindFunc})
	}
	sym := func(name string, line int) graph.Symbol {
		return graph.Symbol{Key: key(name), Repository: "st", PackagePath: pkg.Path, PackageName: "st", Path: "f.go",
			Name: name, QualifiedName: name, Kind: graph.KindFunc, StartLine: line, StartCol: 1, EndLine: line, EndCol: 2}
	}
	status := func() graph.RepositoryStatus {
		t.Helper()
		repos, err := graph.Repositories(ctx, s)
		if err != nil || len(repos) != 1 {
			t.Fatalf("repositories: %v, %v", repos, err)
		}
		return repos[0]
	}
	current := func() graph.Snapshot { t.Helper(); return status().Snapshot }
	counts := func() (refs, edges int) {
		t.Helper()
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		_, refs, err = r.Refs(ctx, graph.RefQuery{Targets: []string{key("G")}, IncludeTests: true})
		if err != nil {
			t.Fatal(err)
		}
		es, err := r.CallEdges(ctx, graph.EdgeQuery{Callees: []string{key("G")}})
		if err != nil {
			t.Fatal(err)
		}
		return refs, len(es)
	}
	write := func(w graph.SnapshotWriter) {
		t.Helper()
		if err := w.AddPackage(ctx, pkg, []graph.File{{Path: "f.go", Package: pkg.Path, Hash: "h"}},
			[]graph.Symbol{sym("F", 1), sym("G", 2)}, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.AddRefs(ctx, []graph.Ref{{Target: key("G"), Path: "f.go", Line: 1, Col: 5, EndCol: 6, Enclosing: key("F"), Kind: graph.RefCall}}); err != nil {
			t.Fatal(err)
		}
	}

	// The syntax stage, then the types stage.
	w, err := s.BeginSnapshot(ctx, repo, "")
	if err != nil {
		t.Fatal(err)
	}
	w.(graph.Stager).SetStage(graph.StageSyntax)
	if err := w.AddPackage(ctx, pkg, []graph.File{{Path: "f.go", Package: pkg.Path, Hash: "h"}}, []graph.Symbol{sym("F", 1), sym("G", 2)}, nil); err != nil {
		t.Fatal(err)
	}
	syntax, err := w.Publish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err = s.BeginSnapshot(ctx, repo, "")
	if err != nil {
		t.Fatal(err)
	}
	write(w)
	staged, err := w.(graph.StagePublisher).PublishStage(ctx, graph.StageTypes)
	if err != nil {
		t.Fatal(err)
	}
	if cur := current(); cur.ID != staged.ID || cur.Stage != graph.StageTypes {
		t.Errorf("after PublishStage the current snapshot is %d stage %q, want %d stage types", cur.ID, cur.Stage, staged.ID)
	}
	if refs, edges := counts(); refs != 1 || edges != 0 {
		t.Errorf("the types stage has %d references and %d edges, want 1 and 0", refs, edges)
	}
	var left int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM symbols WHERE snapshot_id = ?`, syntax.ID).Scan(&left); err != nil || left != 2 {
		t.Errorf("the syntax stage has %d symbols (%v) after PublishStage, want its 2: it is collected only by Publish", left, err)
	}
	if err := w.AddCallEdges(ctx, []graph.CallEdge{{Caller: key("F"), Callee: key("G"), Path: "f.go", Line: 1, Col: 5, Coverage: graph.CoverageExact}}); err != nil {
		t.Fatal(err)
	}
	whole, err := w.Publish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if whole.ID == staged.ID {
		t.Errorf("the whole snapshot has the stage's id %d", whole.ID)
	}
	if st := status(); st.Snapshot.ID != whole.ID || st.Snapshot.Stage != "" || st.Symbols != 2 {
		t.Errorf("after Publish the current snapshot is %+v with %d symbols, want %d, whole, 2 symbols", st.Snapshot, st.Symbols, whole.ID)
	}
	if refs, edges := counts(); refs != 1 || edges != 1 {
		t.Errorf("the whole snapshot has %d references and %d edges, want 1 and 1", refs, edges)
	}
	if n, ok := rowCounts(t, s)[syntax.ID]; ok {
		t.Errorf("the syntax stage keeps rows after the whole snapshot: %v", n)
	}

	// A stage whose writer is aborted stays current.
	w, err = s.BeginSnapshot(ctx, repo, "")
	if err != nil {
		t.Fatal(err)
	}
	write(w)
	staged, err = w.(graph.StagePublisher).PublishStage(ctx, graph.StageTypes)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddCallEdges(ctx, []graph.CallEdge{{Caller: key("F"), Callee: key("G"), Path: "f.go", Line: 1, Col: 5, Coverage: graph.CoverageExact}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if cur := current(); cur.ID != staged.ID || cur.Stage != graph.StageTypes {
		t.Errorf("after Abort the current snapshot is %d stage %q, want the stage %d", cur.ID, cur.Stage, staged.ID)
	}
	if refs, edges := counts(); refs != 1 || edges != 0 {
		t.Errorf("after Abort: %d references and %d edges, want the stage's 1 and 0", refs, edges)
	}
}

// A writer set to stage types holds its search rows back: the stage
// published has none, and the whole snapshot that follows has them.
func TestTypesStageSearchRowsFollow(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	repo, err := s.EnsureRepository(ctx, "/src/st", "st")
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.BeginSnapshot(ctx, repo, "")
	if err != nil {
		t.Fatal(err)
	}
	w.(graph.Stager).SetStage(graph.StageTypes)
	addFrobnicate(t, w)
	hits := func() int {
		t.Helper()
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		found, err := r.SearchText(ctx, graph.TextQuery{Words: []string{"widgets"}})
		if err != nil {
			t.Fatal(err)
		}
		return len(found)
	}
	if _, err := w.(graph.StagePublisher).PublishStage(ctx, graph.StageTypes); err != nil {
		t.Fatal(err)
	}
	if n := hits(); n != 0 {
		t.Errorf("the types stage has %d search hits, want none", n)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	if n := hits(); n != 1 {
		t.Errorf("the whole snapshot has %d search hits, want the symbol", n)
	}
}
