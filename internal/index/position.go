package index

import (
	"bytes"
	"go/token"
	"os"
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

// siteFiles reads each file that call sites and effect causes point into
// once, and converts their byte columns to character columns with a table
// of line starts, so that the tens of thousands of sites of a large unit
// cost a lookup each rather than a scan from the start of their file.
type siteFiles map[string]*fileLines

// fileLines is a file's content and the offsets its lines start at.
type fileLines struct {
	content []byte
	starts  []int // starts[i] is the offset of line i+1
}

// charColumnAt is charColumnAt on the content of the file named filename
// (nil when it cannot be read).
func (s siteFiles) charColumnAt(filename string, line, col int) int {
	f, ok := s[filename]
	if !ok {
		f = &fileLines{}
		if content, err := os.ReadFile(filename); err == nil {
			f.content = content
			f.starts = append(make([]int, 0, bytes.Count(content, []byte{'\n'})+1), 0)
			for i, c := range content {
				if c == '\n' {
					f.starts = append(f.starts, i+1)
				}
			}
		}
		s[filename] = f
	}
	if col <= 1 || line < 1 || f.content == nil {
		return col
	}
	if line > len(f.starts) {
		return col // fewer lines than that, as charColumnAt finds
	}
	start := f.starts[line-1]
	end := start + col - 1
	if end > len(f.content) {
		return col
	}
	return utf8.RuneCount(f.content[start:end]) + 1
}
