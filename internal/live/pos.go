package live

import (
	"go/token"
	"go/types"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"
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
	return Position{Filename: p.Filename, Line: p.Line, Column: charColumn(r.Src(p.Filename), p.Offset, p.Column)}
}

// charColumn converts a 1-based byte column at byte offset off of src into
// a 1-based character column.
func charColumn(src []byte, off, byteCol int) int {
	if src == nil || off > len(src) || byteCol < 1 {
		return byteCol
	}
	start := off - (byteCol - 1)
	if start < 0 {
		return byteCol
	}
	return utf8.RuneCount(src[start:off]) + 1
}

// Offset converts a 1-based line and character column of src into a byte
// offset; ok is false when the position is not in the file (a column may
// point just past the end of its line).
func Offset(src []byte, line, col int) (int, bool) {
	if line < 1 || col < 1 {
		return 0, false
	}
	off := 0
	for l := 1; l < line; l++ {
		i := indexByte(src[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(src) || src[off] == '\n' {
			return 0, false
		}
		_, n := utf8.DecodeRune(src[off:])
		off += n
	}
	return off, true
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
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
