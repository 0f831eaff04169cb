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

// unlayered is a Reader whose rows are checked and stripped of their
// layer.
type unlayered struct {
	graph.Reader
	t     *testing.T
	layer *graph.Layer // the layer of the first row seen; nil before it
}

// unlayeredNamer is unlayered for a reader that is also a
// graph.QualifiedNamer, so that the suite tests that capability too.
type unlayeredNamer struct {
	*unlayered
	graph.QualifiedNamer
}

func stripLayers(t *testing.T, r graph.Reader) graph.Reader {
	u := &unlayered{Reader: r, t: t}
	if qn, ok := r.(graph.QualifiedNamer); ok {
		return unlayeredNamer{u, qn}
	}
	return u
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

func (u *unlayered) FindSymbols(ctx context.Context, q graph.SymbolQuery) ([]graph.Symbol, int, error) {
	syms, n, err := u.Reader.FindSymbols(ctx, q)
	return u.symbols(syms), n, err
}

func (u *unlayered) SymbolByKey(ctx context.Context, key string) (graph.Symbol, error) {
	sym, err := u.Reader.SymbolByKey(ctx, key)
	if err == nil {
		u.strip(&sym.Layer)
	}
	return sym, err
}

func (u *unlayered) LookupSymbols(ctx context.Context, l graph.Lookup) ([]graph.Symbol, error) {
	syms, err := u.Reader.LookupSymbols(ctx, l)
	return u.symbols(syms), err
}

func (u *unlayered) Children(ctx context.Context, repo, parentKey string) ([]graph.Symbol, error) {
	syms, err := u.Reader.Children(ctx, repo, parentKey)
	return u.symbols(syms), err
}

func (u *unlayered) SymbolsByKeys(ctx context.Context, keys []string) ([]graph.Symbol, error) {
	syms, err := u.Reader.SymbolsByKeys(ctx, keys)
	return u.symbols(syms), err
}

func (u *unlayered) Refs(ctx context.Context, q graph.RefQuery) ([]graph.Ref, int, error) {
	refs, n, err := u.Reader.Refs(ctx, q)
	for i := range refs {
		u.strip(&refs[i].Layer)
	}
	return refs, n, err
}

func (u *unlayered) CallEdges(ctx context.Context, q graph.EdgeQuery) ([]graph.CallEdge, error) {
	edges, err := u.Reader.CallEdges(ctx, q)
	for i := range edges {
		u.strip(&edges[i].Layer)
	}
	return edges, err
}

func (u *unlayered) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	hits, err := u.Reader.SearchText(ctx, q)
	for i := range hits {
		u.strip(&hits[i].Symbol.Layer)
	}
	return hits, err
}
