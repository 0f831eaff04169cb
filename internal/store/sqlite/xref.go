package sqlite

import (
	"context"
	"errors"

	"github.com/sextant-dev/sextant/internal/graph"
)

// errXrefPending marks the cross-reference methods being written now; they
// are replaced before the tools that need them are registered.
var errXrefPending = errors.New("cross-references are not stored yet")

func (w *writer) AddRefs(ctx context.Context, refs []graph.Ref) error { return errXrefPending }
func (w *writer) AddCallEdges(ctx context.Context, edges []graph.CallEdge) error {
	return errXrefPending
}
func (w *writer) AddImplements(ctx context.Context, impls []graph.Implements) error {
	return errXrefPending
}
func (r *reader) SymbolsByKeys(ctx context.Context, keys []string) ([]graph.Symbol, error) {
	return nil, errXrefPending
}
func (r *reader) Refs(ctx context.Context, q graph.RefQuery) ([]graph.Ref, int, error) {
	return nil, 0, errXrefPending
}
func (r *reader) CallEdges(ctx context.Context, q graph.EdgeQuery) ([]graph.CallEdge, error) {
	return nil, errXrefPending
}
func (r *reader) UnresolvedCalls(ctx context.Context, repo string) (int, error) {
	return 0, errXrefPending
}
func (r *reader) Implementations(ctx context.Context, key string, byInterface bool) ([]graph.Implements, error) {
	return nil, errXrefPending
}
