package scipindex

import (
	"slices"
	"unicode"

	"github.com/sextant-dev/sextant/internal/graph"
)

// DeclarationRef is the use of kind override find_references lists for
// m, a method of a family: at m's name, the first whole word spelling it
// from the start of its declaration (past modifiers and decorators), on
// the declaration's first lines; at the declaration's start when none
// does.
func DeclarationRef(m graph.Symbol, line func(path string, n int) string) graph.Ref {
	r := graph.Ref{Target: m.Key, Path: m.Path, Line: m.StartLine, Col: m.StartCol, Enclosing: m.Parent,
		Kind: graph.RefOverride, TestOnly: m.TestOnly, Repository: m.Repository}
	name := []rune(m.Name)
	for n := m.StartLine; n <= min(m.EndLine, m.StartLine+8) && len(name) > 0; n++ {
		text := []rune(line(m.Path, n))
		from := 0
		if n == m.StartLine {
			from = max(m.StartCol-1, 0)
		}
		for i := from; i+len(name) <= len(text); i++ {
			if slices.Equal(text[i:i+len(name)], name) && (i == 0 || !isNameRune(text[i-1])) &&
				(i+len(name) == len(text) || !isNameRune(text[i+len(name)])) {
				r.Line, r.Col, r.EndCol = n, i+1, i+1+len(name)
				return r
			}
		}
	}
	r.EndCol = r.Col + len(name)
	return r
}

// isNameRune reports whether r may be part of a TypeScript or JavaScript
// identifier.
func isNameRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
