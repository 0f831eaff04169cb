package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// usesOf reads, on a reader pinned under pinCtx, the symbol of key and the
// page q of its uses under ctx, then calls each of then with the reader
// and the symbol, and returns the symbol and its uses with the round
// trips taken after the pin.
func usesOf(t *testing.T, s *postgres.Store, pinCtx, ctx context.Context, key string, q graph.RefQuery,
	then ...func(graph.Reader, graph.Symbol)) (graph.Symbol, []graph.Ref, int64) {
	t.Helper()
	r, err := s.Read(pinCtx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before := s.RoundTrips()
	sym, err := r.SymbolByKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	refs, _, err := r.Refs(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range then {
		f(r, sym)
	}
	return sym, refs, s.RoundTrips() - before
}

// TestPinExpectsLastSnapshots checks the pinning batch's read ahead of a
// symbol and its uses, which names the snapshots the last reader pinned:
// once another snapshot is published, what it read of the old one is
// dropped and read again from the new, not answered.
func TestPinExpectsLastSnapshots(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Schema(t)
	s := open(t, dsn)
	t.Cleanup(func() { s.Close() })
	dir := txtartest.Write(t, "../../index/testdata/xref/implements.txtar")
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	if _, err := index.Index(ctx, s, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Stringer", Mode: graph.MatchExact, Kinds: []graph.Kind{graph.KindInterface}})
	r.Close()
	if err != nil || len(syms) != 1 {
		t.Fatalf("a.Stringer: %v, %v", syms, err)
	}
	key := syms[0].Key
	q := graph.RefQuery{Targets: []string{key}, Implicit: []string{key}, IncludeTests: true, Limit: 50}
	ahead := graph.WithSymbolAhead(graph.WithRefsAhead(ctx, q), key)

	// The snapshot the last reader pinned is current: the pin reads
	// the symbol and its uses, and nothing is asked after it.
	_, before, trips := usesOf(t, s, ahead, ahead, key, q)
	if trips != 0 {
		t.Errorf("current snapshot expected: %d round trips after the pin, want 0", trips)
	}
	// A store's first reader expects nothing: its pinning batch reads
	// the snapshots from the repositories, with the same answer.
	first := open(t, dsn)
	t.Cleanup(func() { first.Close() })
	firstSym, firstRefs, trips := usesOf(t, first, ahead, ahead, key, q)
	askedSym, asked, _ := usesOf(t, first, ctx, ctx, key, q)
	if !reflect.DeepEqual(firstSym, askedSym) || !reflect.DeepEqual(firstRefs, asked) || len(asked) == 0 {
		t.Errorf("a first reader, read ahead:\n%+v\n%+v\nasked:\n%+v\n%+v", firstSym, firstRefs, askedSym, asked)
	}
	if trips != 0 {
		t.Errorf("a first reader: %d round trips after the pin, want 0", trips)
	}
	second := open(t, dsn)
	t.Cleanup(func() { second.Close() })
	ls := []graph.Lookup{{QualifiedName: "a.Stringer"}, {PackageName: "a", QualifiedName: "Stringer"}}
	if found := lookupsOf(t, second, graph.WithLookupsAhead(ctx, ls), ls); len(found[1]) != 1 || found[1][0].Key != key {
		t.Errorf("a first reader's lookups read ahead found %v, want a.Stringer", found)
	}

	// Another snapshot, with one more use, is published after that
	// reader pinned its view.
	more := "package a\n\nvar S Stringer\n"
	if err := os.WriteFile(filepath.Join(dir, "a", "more.go"), []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Index(ctx, s, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	gotSym, got, trips := usesOf(t, s, ahead, ahead, key, q)
	wantSym, want, _ := usesOf(t, s, ctx, ctx, key, q)
	if !reflect.DeepEqual(gotSym, wantSym) || !reflect.DeepEqual(got, want) {
		t.Errorf("after a publish, read ahead:\n%+v\n%+v\nasked:\n%+v\n%+v", gotSym, got, wantSym, want)
	}
	if len(want) != len(before)+1 {
		t.Errorf("the new snapshot has %d uses of a.Stringer, the old %d: want one more", len(want), len(before))
	}
	if trips == 0 {
		t.Errorf("after a publish, no round trip after the pin: the symbol and uses read from the old snapshot were answered")
	}
	// And the next reader expects the new snapshot.
	if _, _, trips := usesOf(t, s, ahead, ahead, key, q); trips != 0 {
		t.Errorf("the next reader: %d round trips after the pin, want 0", trips)
	}

	// The same for lookups read ahead: a.T is declared in a snapshot
	// published after the last reader pinned its view.
	ls = []graph.Lookup{{QualifiedName: "a.T"}, {PackageName: "a", QualifiedName: "T"}}
	lookAhead := graph.WithLookupsAhead(ctx, ls)
	if found := lookupsOf(t, s, lookAhead, ls); len(found[1]) != 0 {
		t.Fatalf("a.T found before it is declared: %v", found)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "more.go"), []byte(more+"\ntype T int\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Index(ctx, s, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if found := lookupsOf(t, s, lookAhead, ls); len(found[1]) != 1 {
		t.Errorf("after a publish, lookups read ahead found %v, want a.T", found)
	}
}

// lookupsOf answers ls on a reader pinned under ctx.
func lookupsOf(t *testing.T, s *postgres.Store, ctx context.Context, ls []graph.Lookup) [][]graph.Symbol {
	t.Helper()
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := make([][]graph.Symbol, len(ls))
	for i, l := range ls {
		if out[i], err = r.LookupSymbols(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestLookupsAhead checks that lookups named with graph.WithLookupsAhead
// are read in the round trip that pins the view, and answer LookupSymbols
// and the members of the types found exactly as a reader that asks the
// server does.
func TestLookupsAhead(t *testing.T) {
	ctx := context.Background()
	s := indexedXref(t)
	syms := allSymbols(t, s)
	// read answers ls and the members of every type found on a reader
	// pinned under pinCtx, with the round trips after the pin.
	read := func(pinCtx context.Context, ls []graph.Lookup) ([][]graph.Symbol, [][]graph.Symbol, int64) {
		t.Helper()
		r, err := s.Read(pinCtx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		before := s.RoundTrips()
		var found, members [][]graph.Symbol
		for _, l := range ls {
			syms, err := r.LookupSymbols(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, syms)
		}
		trips := s.RoundTrips() - before
		for _, syms := range found {
			for _, sym := range syms {
				kids, err := r.Children(ctx, "", sym.Key)
				if err != nil {
					t.Fatal(err)
				}
				members = append(members, kids)
			}
		}
		return found, members, trips
	}
	var compared, members int
	for _, sym := range syms {
		ls := []graph.Lookup{{QualifiedName: sym.QualifiedName}, {PackagePath: sym.PackagePath, QualifiedName: sym.QualifiedName}}
		if sym.Parent == "" {
			ls = append(ls, graph.Lookup{PackageName: sym.PackageName, QualifiedName: sym.Name})
		}
		want, wantKids, _ := read(ctx, ls)
		got, gotKids, trips := read(graph.WithLookupsAhead(ctx, ls), ls)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotKids, wantKids) {
			t.Errorf("%s: read ahead\n%v\n%v\nasked\n%v\n%v", sym.QualifiedName, got, gotKids, want, wantKids)
		}
		if trips != 0 {
			t.Errorf("%s: %d round trips after the pin, want 0", sym.QualifiedName, trips)
		}
		for _, f := range want {
			compared += len(f)
		}
		for _, k := range wantKids {
			members += len(k)
		}
	}
	if compared == 0 || members == 0 {
		t.Errorf("%d symbols found, %d members: the test compared nothing", compared, members)
	}
}

// warmAndCold indexes the xref fixture and returns a store whose name
// tables are loaded, with every symbol, and a second store on the same
// schema that has loaded none.
func warmAndCold(t *testing.T) (warm, cold *postgres.Store, all []graph.Symbol) {
	t.Helper()
	warm, dsn := indexedXrefAt(t)
	all = allSymbols(t, warm) // loads the name tables
	cold = open(t, dsn)
	t.Cleanup(func() { cold.Close() })
	return warm, cold, all
}

// TestEnclosingNames checks QualifiedNames against the qualified names of
// SymbolsByKeys on a reader that asks, for the declarations enclosing
// every symbol's uses: from the name tables in memory (once loaded, for a
// request that names them, graph.WithEnclosingNames, which then costs no
// read of the declarations), from the declarations Refs read ahead, and
// asked of the server.
func TestEnclosingNames(t *testing.T) {
	ctx := context.Background()
	s, cold, all := warmAndCold(t)
	named := graph.WithEnclosingNames(ctx, true)
	// names reads the page q of uses under ctx, then the qualified names
	// of their enclosing declarations, and counts the round trips of the
	// latter.
	names := func(s *postgres.Store, ctx context.Context, q graph.RefQuery, refsFirst bool) (map[string]string, []string, int64) {
		t.Helper()
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		refs, _, err := r.Refs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, ref := range refs {
			if ref.Enclosing != "" {
				keys = append(keys, ref.Enclosing)
			}
		}
		if !refsFirst {
			r.Close()
			if r, err = s.Read(ctx); err != nil {
				t.Fatal(err)
			}
			defer r.Close()
		}
		before := s.RoundTrips()
		got, err := r.Symbols.(graph.QualifiedNamer).QualifiedNames(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		return got, keys, s.RoundTrips() - before
	}
	compared := 0
	for _, sym := range all {
		q := graph.RefQuery{Targets: []string{sym.Key}, IncludeTests: true}
		_, keys, _ := names(s, ctx, q, true)
		if len(keys) == 0 {
			continue
		}
		compared++
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		decls, err := r.SymbolsByKeys(ctx, keys)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, d := range decls {
			want[d.Key] = d.QualifiedName
		}
		for _, tc := range []struct {
			name      string
			s         *postgres.Store
			ctx       context.Context
			refsFirst bool
			trips     int64
		}{
			{"name tables, uses named", s, named, true, 0},
			{"name tables", s, ctx, true, 0},
			{"read ahead with the uses", cold, named, true, 0},
			{"asked", cold, ctx, false, 1},
		} {
			got, _, trips := names(tc.s, tc.ctx, q, tc.refsFirst)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s: QualifiedNames = %v, want %v", sym.QualifiedName, tc.name, got, want)
			}
			if trips != tc.trips {
				t.Errorf("%s, %s: QualifiedNames took %d round trips, want %d", sym.QualifiedName, tc.name, trips, tc.trips)
			}
		}
	}
	if compared == 0 {
		t.Error("no symbol with uses in a declaration: the test compared nothing")
	}

	// Named from memory, the declarations are not read with the uses:
	// SymbolsByKeys asks for them; without the hint it does not.
	for _, tc := range []struct {
		ctx   context.Context
		trips int64
	}{{named, 1}, {ctx, 0}} {
		checked := false
		for _, sym := range all {
			r, err := s.Read(tc.ctx)
			if err != nil {
				t.Fatal(err)
			}
			refs, _, err := r.Refs(tc.ctx, graph.RefQuery{Targets: []string{sym.Key}, IncludeTests: true})
			if err != nil || len(refs) == 0 || refs[0].Enclosing == "" {
				r.Close()
				continue
			}
			before := s.RoundTrips()
			_, err = r.SymbolsByKeys(tc.ctx, []string{refs[0].Enclosing})
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			if trips := s.RoundTrips() - before; trips != tc.trips {
				t.Errorf("%s, uses named %v: SymbolsByKeys of an enclosing declaration took %d round trips, want %d",
					sym.QualifiedName, graph.EnclosingNames(tc.ctx), trips, tc.trips)
			}
			checked = true
			break
		}
		if !checked {
			t.Error("no symbol with uses: nothing checked")
		}
	}
}

// TestBriefFromNames checks that a brief search by prefix, substring or
// fuzzy name is answered from the name tables, once loaded, with no round
// trip (as the sqlite store answers it); the conformance suite checks the
// answer against the full one.
func TestBriefFromNames(t *testing.T) {
	ctx := context.Background()
	s := indexedXref(t)
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring, Limit: 1}); err != nil {
		t.Fatal(err) // loads the name tables
	}
	for _, mode := range []graph.MatchMode{graph.MatchPrefix, graph.MatchSubstring, graph.MatchFuzzy} {
		for _, brief := range []bool{true, false} {
			before := s.RoundTrips()
			syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Read", Mode: mode, Brief: brief})
			if err != nil {
				t.Fatal(err)
			}
			if len(syms) == 0 {
				t.Fatalf("%s Read: no match", mode)
			}
			want := int64(1) // the rows of the page
			if brief {
				want = 0
			}
			if trips := s.RoundTrips() - before; trips != want {
				t.Errorf("%s Read, brief %v: %d round trips, want %d", mode, brief, trips, want)
			}
		}
	}
}

// TestRelatedAhead checks the read ahead of what find_references reads
// of a method after its uses (the implementations of its receiver, their
// interfaces' members, an interface method's implementing methods): with
// the name tables loaded it is read in the pinning batch and answers as
// the server does; without them nothing is read ahead.
func TestRelatedAhead(t *testing.T) {
	ctx := context.Background()
	s, cold, all := warmAndCold(t)
	type related struct {
		Supers, Subs []graph.Implements
		Members      map[string][]graph.Symbol
	}
	// read pins a reader under pinCtx, reads the symbol of key and its
	// uses, then what relatedMethods reads, counting the round trips
	// after the pin.
	read := func(s *postgres.Store, pinCtx context.Context, key string, q graph.RefQuery) (related, int64) {
		t.Helper()
		var got related
		_, _, trips := usesOf(t, s, pinCtx, ctx, key, q, func(r graph.Reader, sym graph.Symbol) {
			var err error
			if got.Supers, err = r.Implementations(ctx, sym.Parent, false); err != nil {
				t.Fatal(err)
			}
			got.Members = map[string][]graph.Symbol{}
			for _, im := range got.Supers {
				if got.Members[im.Interface], err = r.Children(ctx, sym.Repository, im.Interface); err != nil {
					t.Fatal(err)
				}
			}
			if sym.Kind == graph.KindInterfaceMethod {
				if got.Subs, err = r.Implementations(ctx, key, true); err != nil {
					t.Fatal(err)
				}
			}
		})
		return got, trips
	}
	methods, withSupers, withSubs := 0, 0, 0
	for _, sym := range all {
		if sym.Kind != graph.KindMethod && sym.Kind != graph.KindInterfaceMethod {
			continue
		}
		methods++
		q := graph.RefQuery{Targets: []string{sym.Key}, Implicit: []string{sym.Key}, IncludeTests: true, Limit: 50}
		ahead := graph.WithSymbolAhead(graph.WithRefsAhead(ctx, q), sym.Key)
		want, asked := read(cold, ctx, sym.Key, q)
		got, trips := read(s, ahead, sym.Key, q)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read ahead\n%+v\nasked\n%+v", sym.QualifiedName, got, want)
		}
		if trips != 0 {
			t.Errorf("%s: %d round trips after the pin with the name tables loaded, want 0", sym.QualifiedName, trips)
		}
		if len(want.Supers) > 0 {
			withSupers++
			if _, trips := read(cold, ahead, sym.Key, q); trips == 0 {
				t.Errorf("%s: no round trip after the pin without name tables: read ahead of a kind not known", sym.QualifiedName)
			}
		}
		if len(want.Subs) > 0 {
			withSubs++
		}
		if asked == 0 {
			t.Errorf("%s: asked, no round trip", sym.QualifiedName)
		}
	}
	if withSupers == 0 || withSubs == 0 {
		t.Fatalf("of %d methods, %d have a receiver implementing an interface, %d are implemented: the fixture tests nothing", methods, withSupers, withSubs)
	}
}
