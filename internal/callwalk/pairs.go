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
	return dedupe(keys), nil
}

// dedupe returns list without its repeats, in the order first met.
func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
