// Package position converts columns between the units Sextant's inputs
// count in and the one it answers in. Lines are 1-based; a column is
// 1-based and counts Unicode characters (code points), as an agent sees a
// file full of "→" and "é" (docs/design.md, Positions). go/token and the
// go command give byte columns; a language server gives 0-based offsets in
// UTF-8, UTF-16 or UTF-32 code units, which only the LSP bridge meets.
//
// Invalid UTF-8 counts one character per byte, as utf8.RuneCount does,
// with U+FFFD standing for each such byte (one unit in every encoding but
// UTF-8). A line ends at LF; a CR before it belongs to the ending.
// Conversions take what they are given (positions from a compiler, a
// server, or an agent) and never panic: one that does not fit the text
// returns its input unchanged, or false. Standard library only.
package position

import (
	"bytes"
	"unicode/utf8"
)

// Encoding is what a language server's character offset counts within a
// line: the position encodings of LSP 3.17.
type Encoding string

// The encodings of LSP 3.17.
const (
	UTF8  Encoding = "utf-8"
	UTF16 Encoding = "utf-16"
	UTF32 Encoding = "utf-32"
)

// CharColumn converts the 1-based byte column byteCol of a position at
// byte offset off of src to a character column. Without src, or when the
// position does not fit it, byteCol is returned unchanged.
func CharColumn(src []byte, off, byteCol int) int {
	if byteCol <= 1 || src == nil {
		return byteCol
	}
	start := off - (byteCol - 1)
	if start < 0 || off > len(src) {
		return byteCol
	}
	return utf8.RuneCount(src[start:off]) + 1
}

// CharColumnAt converts a 1-based byte column on a 1-based line of src to
// a character column, for positions that come as text ("file:line:col")
// rather than offsets. Without src, or when the line or column is not in
// it, byteCol is returned unchanged.
func CharColumnAt(src []byte, line, byteCol int) int {
	if byteCol <= 1 || line < 1 || src == nil {
		return byteCol
	}
	start, ok := lineStart(src, line)
	if !ok {
		return byteCol
	}
	return charColumnFrom(src, start, byteCol)
}

// charColumnFrom is the character column of byte column byteCol (> 1) of
// the line that starts at offset start of src.
func charColumnFrom(src []byte, start, byteCol int) int {
	end := start + byteCol - 1
	if end > len(src) {
		return byteCol
	}
	return utf8.RuneCount(src[start:end]) + 1
}

// lineStart returns the offset 1-based line starts at in src.
func lineStart(src []byte, line int) (int, bool) {
	start := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return 0, false
		}
		start += i + 1
	}
	return start, true
}

// Lines is a text with a table of where its lines start, for converting
// many positions of one file at a lookup each rather than a scan from the
// start of the file.
type Lines struct {
	src    []byte
	starts []int // starts[i] is the offset of line i+1
}

// NewLines indexes the line starts of src (nil: a file that could not be
// read, whose columns are returned unchanged).
func NewLines(src []byte) *Lines {
	l := &Lines{src: src}
	if src == nil {
		return l
	}
	l.starts = append(make([]int, 0, bytes.Count(src, []byte{'\n'})+1), 0)
	for i, c := range src {
		if c == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

// CharColumnAt is CharColumnAt on the text of l.
func (l *Lines) CharColumnAt(line, byteCol int) int {
	if byteCol <= 1 || line < 1 || l.src == nil || line > len(l.starts) {
		return byteCol
	}
	return charColumnFrom(l.src, l.starts[line-1], byteCol)
}

// Offset converts a 1-based line and character column of src to a byte
// offset; ok is false when the position is not in the text. A column may
// point just past the end of its line.
func Offset(src []byte, line, col int) (int, bool) {
	if line < 1 || col < 1 {
		return 0, false
	}
	off, ok := lineStart(src, line)
	if !ok {
		return 0, false
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

// Line returns the text of 1-based line n of src, without its line
// ending, and whether the line exists (line 1 of an empty text does).
func Line(src []byte, n int) ([]byte, bool) {
	if n < 1 {
		return nil, false
	}
	start, ok := lineStart(src, n)
	if !ok {
		return nil, false
	}
	text := src[start:]
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return bytes.TrimSuffix(text, []byte("\r")), true
}

// Units returns how many units of enc the characters of line before
// 1-based character column col take: a language server's 0-based
// character offset. A column past the end of the line counts to its end.
func Units(line []byte, col int, enc Encoding) int {
	units := 0
	for chars := 1; chars < col && len(line) > 0; chars++ {
		r, size := utf8.DecodeRune(line)
		units += unitLen(r, size, enc)
		line = line[size:]
	}
	return units
}

// Column returns the 1-based character column of a language server's
// 0-based offset of units in enc within line. An offset inside a
// character (the middle of a surrogate pair or of a UTF-8 sequence) is
// that character's column; one past the line's end is just after it.
func Column(line []byte, units int, enc Encoding) int {
	col, at := 1, 0
	for len(line) > 0 {
		r, size := utf8.DecodeRune(line)
		n := unitLen(r, size, enc)
		if at+n > units {
			break
		}
		at += n
		col++
		line = line[size:]
	}
	return col
}

// unitLen is the length of one decoded character in enc's units. Invalid
// UTF-8 is one character per byte, stood in for by U+FFFD, one UTF-16
// unit. An unknown encoding counts as UTF-16, the protocol's default.
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

// CutUTF8 returns at most n bytes of s, never splitting a character.
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
