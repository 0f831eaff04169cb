package sqlite

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
)

// TestQualifiedNamesBothWays: the names come from the SQL lookup until
// the name tables of every pinned snapshot are loaded, then from them;
// both give the same map, across two repositories, with unknown keys
// left out.
func TestQualifiedNamesBothWays(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var keys []string
	for _, name := range []string{"alpha", "beta"} {
		repo, err := s.EnsureRepository(ctx, "/src/"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		publishGeneration(t, s, repo, 1, 120)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	all, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "", Mode: graph.MatchSubstring})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, sym := range all {
		keys = append(keys, sym.Key)
		want[sym.Key] = sym.QualifiedName
	}
	if len(keys) < 200 {
		t.Fatalf("%d symbols, want both repositories' 240", len(keys))
	}
	keys = append(keys, strings.Repeat("Z", 32))

	fresh, err := s.Read(ctx) // a reader of its own, tables as they are
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	s.names = names.Cache{} // the search above loaded them: start over
	bySQL, err := fresh.Symbols.(graph.QualifiedNamer).QualifiedNames(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(bySQL, want) {
		t.Errorf("by SQL: %d names, want %d", len(bySQL), len(want))
	}
	// One repository's table loaded: its keys from memory, the others'
	// by SQL.
	if _, _, err := fresh.FindSymbols(ctx, graph.SymbolQuery{Name: "x", Mode: graph.MatchSubstring,
		Repositories: []string{"alpha"}}); err != nil {
		t.Fatal(err)
	}
	loaded := 0
	for _, rs := range mustPinned(t, fresh.Catalog.(*reader)) {
		if s.names.Loaded(rs.revision) != nil {
			loaded++
		}
	}
	if loaded != 1 {
		t.Fatalf("%d tables loaded by a search of alpha, want 1", loaded)
	}
	mixed, err := fresh.Symbols.(graph.QualifiedNamer).QualifiedNames(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(mixed, want) {
		t.Errorf("one table loaded: %d names, want %d", len(mixed), len(want))
	}
	if _, _, err := fresh.FindSymbols(ctx, graph.SymbolQuery{Name: "x", Mode: graph.MatchSubstring}); err != nil {
		t.Fatal(err) // loads the tables
	}
	for _, rs := range mustPinned(t, fresh.Catalog.(*reader)) {
		if s.names.Loaded(rs.revision) == nil {
			t.Fatalf("table of %s not loaded by a search", rs.name)
		}
	}
	byTable, err := fresh.Symbols.(graph.QualifiedNamer).QualifiedNames(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(byTable, want) {
		t.Errorf("by table: %d names, want %d", len(byTable), len(want))
	}
}

func mustPinned(t *testing.T, r *reader) []pinned {
	t.Helper()
	ps, err := r.pinnedSnapshots(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestWarmNames checks that WarmNames loads the name tables (and interned
// strings) of the roots it is given, and only those, and that Close waits for a load it cut
// short.
func TestWarmNames(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for _, name := range []string{"alpha", "beta"} {
		repo, err := s.EnsureRepository(ctx, "/src/"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		publishGeneration(t, s, repo, 1, 120)
	}
	// A root as a caller may spell it: cleaned, it is alpha's (on
	// Windows \src\alpha, as EnsureRepository recorded it).
	s.WarmNames([]string{"/src/alpha/", "/src/gone"})
	s.warm.Wait()
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, rs := range mustPinned(t, r.Catalog.(*reader)) {
		tab := s.names.Loaded(rs.revision)
		if got := tab != nil; got != (rs.name == "alpha") {
			t.Errorf("table of %s loaded: %v", rs.name, got)
		}
		if strs := s.strs.Peek(rs.revision); tab != nil && (strs == nil || !strs.loaded) {
			t.Errorf("interned strings of %s not loaded", rs.name)
		}
	}
	s.WarmNames([]string{"/src/beta"})
	if err := s.Close(); err != nil {
		t.Errorf("closing while a table loads: %v", err)
	}
	s.WarmNames([]string{"/src/beta"}) // after Close: nothing starts
}
