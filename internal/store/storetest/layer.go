package storetest

import (
	"context"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// The suite's expectations are rows as they were written. A store that
// reads through layers (internal/store/overlay) labels each row with the
// layer it came from (graph.Layer), which a plain store leaves empty; the
// suite checks that label separately from the rest of the row: it must be
// empty or a known layer, and the same on every row one reader returns
// (every repository of the suite is written through the store under
// test, so they all come from one place). Then it compares the rows
// without it.

// unlayered checks rows and strips them of their layer, for the roles of
// a Reader that return rows with one.
type unlayered struct {
	t     *testing.T
	layer *graph.Layer // the layer of the first row seen; nil before it
}

type (
	unlayeredSymbols struct {
		graph.Symbols
		u *unlayered
	}
	unlayeredXRefs struct {
		graph.XRefs
		u *unlayered
	}
	unlayeredSearch struct {
		graph.Search
		u *unlayered
	}
)

// unlayeredNamer is unlayeredSymbols for symbols that are also a
// graph.QualifiedNamer, so that the suite tests that capability too.
type unlayeredNamer struct {
	*unlayeredSymbols
	graph.QualifiedNamer
}

func stripLayers(t *testing.T, r graph.Reader) graph.Reader {
	u := &unlayered{t: t}
	syms := &unlayeredSymbols{r.Symbols, u}
	r.Symbols = syms
	if qn, ok := syms.Symbols.(graph.QualifiedNamer); ok {
		r.Symbols = unlayeredNamer{syms, qn}
	}
	r.XRefs = unlayeredXRefs{r.XRefs, u}
	r.Search = unlayeredSearch{r.Search, u}
	return r
}

// strip checks one row's layer and clears it.
func (u *unlayered) strip(l *graph.Layer) {
	u.t.Helper()
	switch *l {
	case "", graph.LayerShared, graph.LayerLocal:
	default:
		u.t.Errorf("a row's layer is %q, want empty, %q or %q", *l, graph.LayerShared, graph.LayerLocal)
	}
	if u.layer == nil {
		first := *l
		u.layer = &first
	} else if *l != *u.layer {
		u.t.Errorf("a row's layer is %q, another's %q: every repository here was written through one store", *l, *u.layer)
	}
	*l = ""
}

func (u *unlayered) symbols(syms []graph.Symbol) []graph.Symbol {
	for i := range syms {
		u.strip(&syms[i].Layer)
	}
	return syms
}

func (s *unlayeredSymbols) FindSymbols(ctx context.Context, q graph.SymbolQuery) ([]graph.Symbol, int, error) {
	syms, n, err := s.Symbols.FindSymbols(ctx, q)
	return s.u.symbols(syms), n, err
}

func (s *unlayeredSymbols) SymbolByKey(ctx context.Context, key string) (graph.Symbol, error) {
	sym, err := s.Symbols.SymbolByKey(ctx, key)
	if err == nil {
		s.u.strip(&sym.Layer)
	}
	return sym, err
}

func (s *unlayeredSymbols) LookupSymbols(ctx context.Context, l graph.Lookup) ([]graph.Symbol, error) {
	syms, err := s.Symbols.LookupSymbols(ctx, l)
	return s.u.symbols(syms), err
}

func (s *unlayeredSymbols) Children(ctx context.Context, repo, parentKey string) ([]graph.Symbol, error) {
	syms, err := s.Symbols.Children(ctx, repo, parentKey)
	return s.u.symbols(syms), err
}

func (s *unlayeredSymbols) SymbolsByKeys(ctx context.Context, keys []string) ([]graph.Symbol, error) {
	syms, err := s.Symbols.SymbolsByKeys(ctx, keys)
	return s.u.symbols(syms), err
}

func (x unlayeredXRefs) Refs(ctx context.Context, q graph.RefQuery) ([]graph.Ref, int, error) {
	refs, n, err := x.XRefs.Refs(ctx, q)
	for i := range refs {
		x.u.strip(&refs[i].Layer)
	}
	return refs, n, err
}

func (x unlayeredXRefs) CallEdges(ctx context.Context, q graph.EdgeQuery) ([]graph.CallEdge, error) {
	edges, err := x.XRefs.CallEdges(ctx, q)
	for i := range edges {
		x.u.strip(&edges[i].Layer)
	}
	return edges, err
}

func (x unlayeredSearch) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	hits, err := x.Search.SearchText(ctx, q)
	for i := range hits {
		x.u.strip(&hits[i].Symbol.Layer)
	}
	return hits, err
}
