package lsp

import "github.com/sextant-dev/sextant/internal/position"

// Encoding is an LSP position encoding: what a Position's character
// counts within a line.
type Encoding = position.Encoding

// The encodings of LSP 3.17. The bridge offers utf-8 first and falls back
// to utf-16, the protocol's default, when the server picks nothing.
const (
	UTF8  = position.UTF8
	UTF16 = position.UTF16
	UTF32 = position.UTF32
)

// Position is an LSP position: a 0-based line and a 0-based character
// offset in the negotiated encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range, end exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Point is a position as an agent counts it: a 1-based line and a 1-based
// column in Unicode characters (code points; a combining mark is a
// character of its own, as it is to an editor's cursor column count).
type Point struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// ToLSP converts an agent's point in text to an LSP position in enc. A
// column past the end of its line is clamped to the line's end; ok is
// false when the line does not exist (line 1 of an empty file does).
func ToLSP(text []byte, p Point, enc Encoding) (pos Position, ok bool) {
	line, ok := position.Line(text, p.Line)
	if !ok || p.Column < 1 {
		return Position{}, false
	}
	return Position{Line: p.Line - 1, Character: position.Units(line, p.Column, enc)}, true
}

// FromLSP converts a server's position in enc to an agent's point in text.
// An offset inside a character (the middle of a surrogate pair or of a
// UTF-8 sequence) maps to that character; one past the line's end maps to
// just after it.
func FromLSP(text []byte, pos Position, enc Encoding) Point {
	line, ok := position.Line(text, pos.Line+1)
	if !ok {
		return Point{Line: pos.Line + 1, Column: pos.Character + 1}
	}
	return Point{Line: pos.Line + 1, Column: position.Column(line, pos.Character, enc)}
}
