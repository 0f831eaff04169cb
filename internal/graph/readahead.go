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
