package index

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// A first index below Options.FirstMaxVTACalls' limit resolves dynamic
// calls with CHA and says so in Result.Coarse; the whole index after it
// resolves them with VTA, and is not coarse. A first index whose units
// are within the limit, and any index of a repository that has a
// snapshot, is not coarse either.
func TestFirstIndexCoarse(t *testing.T) {
	hermetic(t)
	t.Setenv(load.TypeCacheEnv, t.TempDir())
	dir := txtartest.Write(t, "testdata/coarse.txtar")
	ctx := context.Background()
	index := func(st graph.Store, opts Options) (Result, []string) {
		t.Helper()
		res, err := Index(ctx, st, dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res, callersOf(t, st, "B.M")
	}
	open := func() graph.Store {
		st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}

	st := open()
	res, callers := index(st, Options{Staged: true, FirstMaxVTACalls: -1})
	if !res.Coarse {
		t.Errorf("a first index resolved with CHA is not Coarse")
	}
	if !slices.Contains(callers, "a") {
		t.Errorf("CHA: callers of B.M = %v, want a among them (its I.M call, which CHA cannot narrow)", callers)
	}
	res, callers = index(st, Options{Staged: true, FirstMaxVTACalls: -1})
	if res.Coarse {
		t.Errorf("an index of a repository with a snapshot is Coarse")
	}
	if want := []string{"Use"}; !slices.Equal(callers, want) {
		t.Errorf("VTA: callers of B.M = %v, want %v", callers, want)
	}

	res, callers = index(open(), Options{Staged: true})
	if res.Coarse {
		t.Errorf("a first index within QuickMaxVTACalls is Coarse")
	}
	if want := []string{"Use"}; !slices.Equal(callers, want) {
		t.Errorf("first index within the limit: callers of B.M = %v, want %v", callers, want)
	}
}

// callersOf returns the names of the callers of the method named qname
// in the current snapshot, sorted.
func callersOf(t *testing.T, st graph.Store, qname string) []string {
	t.Helper()
	ctx := context.Background()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms, err := r.LookupSymbols(ctx, graph.Lookup{QualifiedName: qname})
	if err != nil || len(syms) != 1 {
		t.Fatalf("symbol %s: %v, %v", qname, syms, err)
	}
	edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callees: []string{syms[0].Key}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range edges {
		c, err := r.SymbolByKey(ctx, e.Caller)
		if err != nil {
			t.Fatalf("caller %s: %v", e.Caller, err)
		}
		if !slices.Contains(names, c.QualifiedName) {
			names = append(names, c.QualifiedName)
		}
	}
	slices.Sort(names)
	return names
}
