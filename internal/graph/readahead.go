package graph

import (
	"context"
	"fmt"
)

// refsAheadKey is the context key of WithRefsAhead.
type refsAheadKey struct{}

// WithRefsAhead returns ctx telling the store that the request, having
// read a symbol by key, will ask Refs for q. A store that pays a round
// trip per read may read q's page in the round trip of SymbolByKey and
// answer that Refs from it; a store in process ignores the hint. The
// answer is the one Refs would give: it is read in the same pinned view.
// Such a request does not list the symbol's members, so a store need not
// read them ahead for it.
func WithRefsAhead(ctx context.Context, q RefQuery) context.Context {
	return context.WithValue(ctx, refsAheadKey{}, q)
}

// RefsAhead returns the query WithRefsAhead put in ctx, if any.
func RefsAhead(ctx context.Context) (RefQuery, bool) {
	q, ok := ctx.Value(refsAheadKey{}).(RefQuery)
	return q, ok
}

// Fingerprint returns a string equal for two queries exactly when they
// select the same page.
func (q RefQuery) Fingerprint() string {
	return fmt.Sprintf("%q %q %q %q %t %d %d", q.Targets, q.Implicit, q.Kinds, q.PathPrefix, q.IncludeTests, q.Offset, q.Limit)
}

// symbolAheadKey is the context key of WithSymbolAhead.
type symbolAheadKey struct{}

// WithSymbolAhead returns ctx telling the store that the request's first
// read, once its view is pinned, is SymbolByKey(key). A store that pins
// its view in a round trip may read the symbol (and the page of uses of
// WithRefsAhead) in that round trip; a store in process ignores the hint.
func WithSymbolAhead(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, symbolAheadKey{}, key)
}

// SymbolAhead returns the key WithSymbolAhead put in ctx, if any.
func SymbolAhead(ctx context.Context) (string, bool) {
	k, ok := ctx.Value(symbolAheadKey{}).(string)
	return k, ok && k != ""
}

// enclosingNamesKey is the context key of WithEnclosingNames.
type enclosingNamesKey struct{}

// WithEnclosingNames returns ctx telling the store, when on, that the
// request names the declarations enclosing the uses Refs gives it by their
// qualified names alone (QualifiedNamer), as find_references does: a store
// that reads those declarations ahead, whole, in the round trip of Refs
// need not when it can name them from memory. Off withdraws the hint: a
// Reader built on others that does not pass QualifiedNames on to them
// asks them for the declarations whole.
func WithEnclosingNames(ctx context.Context, on bool) context.Context {
	return context.WithValue(ctx, enclosingNamesKey{}, on)
}

// EnclosingNames reports whether ctx carries WithEnclosingNames.
func EnclosingNames(ctx context.Context) bool {
	b, _ := ctx.Value(enclosingNamesKey{}).(bool)
	return b
}

// lookupsAheadKey is the context key of WithLookupsAhead.
type lookupsAheadKey struct{}

// WithLookupsAhead returns ctx telling the store that the request's first
// read, once its view is pinned, is the lookups ls (LookupSymbols of each,
// or all at once), as WithSymbolAhead does for a read by key.
func WithLookupsAhead(ctx context.Context, ls []Lookup) context.Context {
	return context.WithValue(ctx, lookupsAheadKey{}, ls)
}

// LookupsAhead returns the lookups WithLookupsAhead put in ctx, if any.
func LookupsAhead(ctx context.Context) ([]Lookup, bool) {
	ls, ok := ctx.Value(lookupsAheadKey{}).([]Lookup)
	return ls, ok && len(ls) > 0
}
