package query

import (
	"context"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// SymbolRef is a short reference to a symbol in an answer.
type SymbolRef = answer.SymbolRef

var symbolRef = answer.Ref

// symbolsByKey reads the symbols of keys from v, by key; what names them
// in the error ("reading what").
func symbolsByKey(ctx context.Context, v *session.View, keys []string, what string) (map[string]graph.Symbol, error) {
	syms, err := v.Reader().SymbolsByKeys(ctx, keys)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading "+what)
	}
	byKey := make(map[string]graph.Symbol, len(syms))
	for _, s := range syms {
		byKey[s.Key] = s
	}
	return byKey, nil
}
