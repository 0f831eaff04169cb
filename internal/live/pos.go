package live

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/position"
)

// Position is a place in a file: 1-based line, 1-based column in
// characters, as DESIGN.md counts them.
type Position struct {
	Filename string // absolute
	Line     int
	Column   int
}

// Position converts pos to a line and character column, reading the line
// from the content that was parsed. Invalid positions are the zero value.
func (r *Result) Position(pos token.Pos) Position {
	if !pos.IsValid() {
		return Position{}
	}
	p := r.Fset.PositionFor(pos, false)
	return Position{Filename: p.Filename, Line: p.Line, Column: position.CharColumn(r.Src(p.Filename), p.Offset, p.Column)}
}

// allImports lists the import paths p depends on, transitively, as its
// type information records them.
func allImports(p *packages.Package) []string {
	var out []string
	seen := map[*types.Package]bool{}
	var walk func(*types.Package)
	walk = func(tp *types.Package) {
		for _, ip := range tp.Imports() {
			if !seen[ip] {
				seen[ip] = true
				out = append(out, ip.Path())
				walk(ip)
			}
		}
	}
	if p.Types != nil {
		walk(p.Types)
	}
	return out
}
