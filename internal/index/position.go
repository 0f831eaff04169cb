package index

import (
	"bytes"
	"go/token"
	"unicode/utf8"
)

// charColumn converts the byte column of p to a 1-based column counted in
// Unicode characters, using the content of p's file. Invalid UTF-8 counts
// one character per byte, as utf8.RuneCount does. Without content, or
// when p does not fit it, the byte column is returned unchanged.
func charColumn(content []byte, p token.Position) int {
	if p.Column <= 1 || content == nil {
		return p.Column
	}
	start := p.Offset - (p.Column - 1)
	if start < 0 || p.Offset > len(content) {
		return p.Column
	}
	return utf8.RuneCount(content[start:p.Offset]) + 1
}

// charColumnAt converts a 1-based byte column on a 1-based line of content
// to a character column, for positions that come as text (error
// positions) rather than offsets.
func charColumnAt(content []byte, line, col int) int {
	if col <= 1 || line < 1 || content == nil {
		return col
	}
	start := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(content[start:], '\n')
		if i < 0 {
			return col
		}
		start += i + 1
	}
	end := start + col - 1
	if end > len(content) {
		return col
	}
	return utf8.RuneCount(content[start:end]) + 1
}
