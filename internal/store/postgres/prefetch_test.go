package postgres_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// indexedXref is a store of a fresh schema holding the index of the
// xref fixture with interfaces, promoted methods and references; closed
// with the test.
func indexedXref(t *testing.T) *postgres.Store {
	t.Helper()
	s, _ := indexedXrefAt(t)
	return s
}

// indexedXrefAt is indexedXref, with the URL of its schema.
func indexedXrefAt(t *testing.T) (*postgres.Store, string) {
	t.Helper()
	dsn := pgtest.Schema(t)
	s := open(t, dsn)
	t.Cleanup(func() { s.Close() })
	dir := txtartest.Write(t, "../../index/testdata/xref/implements.txtar")
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	if _, err := index.Index(context.Background(), s, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	return s, dsn
}

// allSymbols returns every symbol of s's current snapshots, read by a
// reader of its own (which loads the name tables).
func allSymbols(t *testing.T, s *postgres.Store) []graph.Symbol {
	t.Helper()
	ctx := context.Background()
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
	if err != nil {
		t.Fatal(err)
	}
	return syms
}

// TestReadAhead checks that what the reader reads ahead (members with
// SymbolByKey, LookupSymbols and Implementations; enclosing declarations
// with Refs) answers Children and SymbolsByKeys exactly as a reader that
// asks the server does, for every symbol of an indexed module with
// interfaces, promoted methods and references.
func TestReadAhead(t *testing.T) {
	ctx := context.Background()
	s := indexedXref(t)
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
	if err != nil {
		t.Fatal(err)
	}
	repos, err := r.Repositories(ctx)
	if err != nil || len(repos) != 1 {
		t.Fatalf("Repositories = %v, %v", repos, err)
	}
	repo := repos[0].Name
	// fresh answers f on a reader that has read nothing ahead.
	fresh := func(f func(graph.Reader) (any, error)) any {
		t.Helper()
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		v, err := f(r)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	same := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read ahead\n%v\nasked\n%v", what, got, want)
		}
	}
	var members, enclosing int
	for _, sym := range syms {
		for _, parentRepo := range []string{repo, ""} {
			children := func(r graph.Reader) (any, error) { return r.Children(ctx, parentRepo, sym.Key) }
			want := fresh(children)
			ahead := func(first func(graph.Reader) error) any {
				t.Helper()
				r, err := s.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if err := first(r); err != nil {
					t.Fatal(err)
				}
				got, err := children(r)
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			same("Children after SymbolByKey "+sym.QualifiedName, ahead(func(r graph.Reader) error {
				_, err := r.SymbolByKey(ctx, sym.Key)
				return err
			}), want)
			same("Children after LookupSymbols "+sym.QualifiedName, ahead(func(r graph.Reader) error {
				_, err := r.LookupSymbols(ctx, graph.Lookup{QualifiedName: sym.QualifiedName, PackagePath: sym.PackagePath})
				return err
			}), want)
			members += len(want.([]graph.Symbol))
		}
		ims := fresh(func(r graph.Reader) (any, error) { return r.Implementations(ctx, sym.Key, false) }).([]graph.Implements)
		for _, im := range ims {
			want := fresh(func(r graph.Reader) (any, error) { return r.Children(ctx, repo, im.Interface) })
			r, err := s.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Implementations(ctx, sym.Key, false); err != nil {
				t.Fatal(err)
			}
			got, err := r.Children(ctx, repo, im.Interface)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			same("Children of "+im.Interface+" after Implementations of "+sym.QualifiedName, got, want)
		}
		q := graph.RefQuery{Targets: []string{sym.Key}, IncludeTests: true, Limit: 3}
		refs := fresh(func(r graph.Reader) (any, error) { refs, _, err := r.Refs(ctx, q); return refs, err }).([]graph.Ref)
		var keys []string
		for _, ref := range refs {
			if ref.Enclosing != "" {
				keys = append(keys, ref.Enclosing)
			}
		}
		if len(keys) == 0 {
			continue
		}
		byKey := func(syms []graph.Symbol) []string {
			var ks []string
			for _, s := range syms {
				ks = append(ks, s.Key+" "+s.Repository+" "+s.QualifiedName)
			}
			slices.Sort(ks)
			return ks
		}
		want := byKey(fresh(func(r graph.Reader) (any, error) { return r.SymbolsByKeys(ctx, keys) }).([]graph.Symbol))
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := r.Refs(ctx, q); err != nil {
			t.Fatal(err)
		}
		got, err := r.SymbolsByKeys(ctx, keys)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		same("SymbolsByKeys after Refs of "+sym.QualifiedName, byKey(got), want)
		enclosing += len(want)
	}
	if members == 0 || enclosing == 0 {
		t.Errorf("the module gave %d members and %d enclosing declarations to compare: the test compared nothing", members, enclosing)
	}
}

// TestRefsAhead checks that a page of uses named with graph.WithRefsAhead
// is read in SymbolByKey's round trip, and a symbol named with
// graph.WithSymbolAhead (with that page) in the round trip that pins the
// view, and that each answers SymbolByKey, Refs and the enclosing
// declarations exactly as a reader that asks the server does; that the
// members, which such a request does not list, are not read ahead but
// asked for, with the same answer; and that another page is still asked
// for.
func TestRefsAhead(t *testing.T) {
	ctx := context.Background()
	s := indexedXref(t)
	syms := allSymbols(t, s)
	type page struct {
		Symbol    graph.Symbol
		Members   []graph.Symbol
		Refs      []graph.Ref
		Total     int
		Enclosing []graph.Symbol
	}
	// read pins a view under pinCtx, reads the symbol of key, its members
	// and the page q of its uses under ctx, and the declarations
	// enclosing them; it counts the round trips after the pin, those of
	// Children apart.
	read := func(pinCtx, ctx context.Context, key string, q graph.RefQuery) (p page, trips, kidsTrips int64) {
		t.Helper()
		r, err := s.Read(pinCtx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		before := s.RoundTrips()
		if p.Symbol, err = r.SymbolByKey(ctx, key); err != nil {
			t.Fatal(err)
		}
		beforeKids := s.RoundTrips()
		if p.Members, err = r.Children(ctx, "", key); err != nil {
			t.Fatal(err)
		}
		kidsTrips = s.RoundTrips() - beforeKids
		if p.Refs, p.Total, err = r.Refs(ctx, q); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, ref := range p.Refs {
			if ref.Enclosing != "" {
				keys = append(keys, ref.Enclosing)
			}
		}
		if len(keys) > 0 {
			if p.Enclosing, err = r.SymbolsByKeys(ctx, keys); err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(p.Enclosing, func(a, b graph.Symbol) int { return strings.Compare(a.Key+a.Repository, b.Key+b.Repository) })
		}
		return p, s.RoundTrips() - before - kidsTrips, kidsTrips
	}
	var compared, members int
	for _, sym := range syms {
		q := graph.RefQuery{Targets: []string{sym.Key}, Implicit: []string{sym.Key}, IncludeTests: true, Limit: 3}
		want, _, kidsTrips := read(ctx, ctx, sym.Key, q)
		if kidsTrips != 0 {
			t.Errorf("%s: Children asked the server after SymbolByKey (%d round trips): the members were not read ahead", sym.QualifiedName, kidsTrips)
		}
		refsAhead := graph.WithRefsAhead(ctx, q)
		symAhead := graph.WithSymbolAhead(refsAhead, sym.Key)
		for _, tc := range []struct {
			name         string
			pinCtx, ctx  context.Context
			q            graph.RefQuery
			maxTrips     int64
			wantAnyTrips bool
		}{
			// SymbolByKey reads the page ahead; SymbolsByKeys was
			// read ahead with it.
			{"refs ahead", ctx, refsAhead, q, 1, true},
			// The pin reads the symbol and the page.
			{"symbol ahead", symAhead, symAhead, q, 0, false},
			// Another page than the one read ahead.
			{"another page", symAhead, symAhead, graph.RefQuery{Targets: q.Targets, Implicit: q.Implicit, IncludeTests: true, Limit: 2}, 2, true},
		} {
			w := want
			if tc.q.Limit != q.Limit {
				w, _, _ = read(ctx, ctx, sym.Key, tc.q)
			}
			got, trips, kidsTrips := read(tc.pinCtx, tc.ctx, sym.Key, tc.q)
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s, %s: read ahead\n%+v\nasked\n%+v", sym.QualifiedName, tc.name, got, w)
			}
			maxTrips := tc.maxTrips
			if w.Total > len(w.Refs) {
				maxTrips++ // more uses follow the page: their number is counted
			}
			if trips > maxTrips || tc.wantAnyTrips && trips == 0 {
				t.Errorf("%s, %s: %d round trips after the pin, want at most %d (and some: %v)", sym.QualifiedName, tc.name, trips, maxTrips, tc.wantAnyTrips)
			}
			if kidsTrips != 1 {
				t.Errorf("%s, %s: Children took %d round trips, want 1: a request reading uses ahead does not list members, so they are not read ahead", sym.QualifiedName, tc.name, kidsTrips)
			}
		}
		if len(want.Refs) > 0 {
			compared++
		}
		members += len(want.Members)
	}
	if compared == 0 || members == 0 {
		t.Errorf("%d symbols with uses, %d members: the test compared nothing", compared, members)
	}
}
