package lsp

import (
	"bytes"
	"unicode/utf8"
)

// Encoding is an LSP position encoding: what a Position's character
// counts within a line.
type Encoding string

// The encodings of LSP 3.17. The bridge offers utf-8 first and falls back
// to utf-16, the protocol's default, when the server picks nothing.
const (
	UTF8  Encoding = "utf-8"
	UTF16 Encoding = "utf-16"
	UTF32 Encoding = "utf-32"
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

// lineAt returns the text of 0-based line n of text (without its line
// ending) and whether the line exists. Lines end at LF; a CR before it
// belongs to the ending.
func lineAt(text []byte, n int) ([]byte, bool) {
	if n < 0 {
		return nil, false
	}
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(text, '\n')
		if j < 0 {
			return nil, false
		}
		text = text[j+1:]
	}
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return bytes.TrimSuffix(text, []byte("\r")), true
}

// ToLSP converts an agent's point in text to an LSP position in enc. A
// column past the end of its line is clamped to the line's end; ok is
// false when the line does not exist (line 1 of an empty file does).
func ToLSP(text []byte, p Point, enc Encoding) (pos Position, ok bool) {
	line, ok := lineAt(text, p.Line-1)
	if !ok || p.Column < 1 {
		return Position{}, false
	}
	units := 0
	for chars := 1; chars < p.Column && len(line) > 0; chars++ {
		r, size := utf8.DecodeRune(line)
		units += unitLen(r, size, enc)
		line = line[size:]
	}
	return Position{Line: p.Line - 1, Character: units}, true
}

// FromLSP converts a server's position in enc to an agent's point in text.
// An offset inside a character (the middle of a surrogate pair or of a
// UTF-8 sequence) maps to that character; one past the line's end maps to
// just after it.
func FromLSP(text []byte, pos Position, enc Encoding) Point {
	line, ok := lineAt(text, pos.Line)
	if !ok {
		return Point{Line: pos.Line + 1, Column: pos.Character + 1}
	}
	col, units := 1, 0
	for len(line) > 0 {
		r, size := utf8.DecodeRune(line)
		n := unitLen(r, size, enc)
		if units+n > pos.Character {
			break
		}
		units += n
		col++
		line = line[size:]
	}
	return Point{Line: pos.Line + 1, Column: col}
}

// unitLen is the length of one decoded character in enc's units. Invalid
// UTF-8 counts as one character per byte, stood in for by U+FFFD, which
// is one UTF-16 unit.
func unitLen(r rune, size int, enc Encoding) int {
	switch enc {
	case UTF8:
		return size
	case UTF32:
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}
