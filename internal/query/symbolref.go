package query

import (
	"context"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// SymbolRef is a short reference to a symbol in an answer.
type SymbolRef struct {
	StableKey     string `json:"stable_key" jsonschema:"durable key of the symbol"`
	QualifiedName string `json:"qualified_name" jsonschema:"Name, Type.Method or Type.Field"`
	Kind          string `json:"kind" jsonschema:"symbol kind"`
	Path          string `json:"path" jsonschema:"repo-relative file of the declaration"`
	Line          int    `json:"line" jsonschema:"1-based first line of the declaration"`
}

func symbolRef(s graph.Symbol) SymbolRef {
	return SymbolRef{StableKey: s.Key, QualifiedName: s.QualifiedName, Kind: string(s.Kind),
		Path: s.Path, Line: s.StartLine}
}

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
