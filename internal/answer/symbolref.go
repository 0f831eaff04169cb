package answer

import "github.com/sextant-dev/sextant/internal/graph"

// SymbolRef is a short reference to a symbol in an answer.
type SymbolRef struct {
	StableKey     string `json:"stable_key" jsonschema:"durable key of the symbol"`
	QualifiedName string `json:"qualified_name" jsonschema:"Name, Type.Method or Type.Field"`
	Kind          string `json:"kind" jsonschema:"symbol kind"`
	Path          string `json:"path" jsonschema:"repo-relative file of the declaration"`
	Line          int    `json:"line" jsonschema:"1-based first line of the declaration"`
}

// Ref is the short reference to s.
func Ref(s graph.Symbol) SymbolRef {
	return SymbolRef{StableKey: s.Key, QualifiedName: s.QualifiedName, Kind: string(s.Kind),
		Path: s.Path, Line: s.StartLine}
}
