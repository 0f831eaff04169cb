package callwalk

import (
	"context"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// MethodPairs returns the keys of the methods recorded as implementing
// the interface method key (byInterface), or as the interface methods the
// method key implements, without key itself.
func MethodPairs(ctx context.Context, v *session.View, key string, byInterface bool) ([]string, error) {
	impls, err := v.Reader().Implementations(ctx, key, byInterface)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading implementations")
	}
	var keys []string
	for _, im := range impls {
		k := im.Interface
		if byInterface {
			k = im.Type
		}
		if k != key {
			keys = append(keys, k)
		}
	}
	return graph.Dedupe(keys), nil
}
