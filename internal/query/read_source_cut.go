package query

import (
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// fitBytes cuts a block of one line (which may start inside it, at
// StartByte) at the largest character boundary at which fits still holds,
// keeping at least one character, and marks the cut in EndByte: a line
// longer than the whole budget is served in pieces. A line of one
// character or none cannot be cut and comes back as it is.
func fitBytes(b SourceBlock, fits func(SourceBlock) bool) SourceBlock {
	line := b.Source
	_, best := utf8.DecodeRuneInString(line)
	if best >= len(line) {
		return b
	}
	cut := func(n int) SourceBlock {
		c := b
		c.Source, c.EndByte = line[:n], b.StartByte+n
		return c
	}
	lo, hi := best+1, len(line)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		n := mid // up to a character boundary: none lies in mid..n-1
		for n < len(line) && !utf8.RuneStart(line[n]) {
			n++
		}
		if n < len(line) && fits(cut(n)) {
			best, lo = n, n+1
		} else {
			hi = mid - 1
		}
	}
	return cut(best)
}

// fromByte drops the first off bytes of a block's first line, which a
// continuation of a cut line names; an offset that is not a character
// boundary inside the line is not one read_source issued.
func fromByte(b SourceBlock, off int) (SourceBlock, error) {
	end := len(b.Source)
	for i := 0; i < len(b.Source); i++ {
		if b.Source[i] == '\n' {
			end = i
			break
		}
	}
	if off >= end || !utf8.RuneStart(b.Source[off]) {
		return b, graph.Errorf(graph.CodeCursorInvalid, "continuation points past the end of line %d, or inside a character; call again without it", b.StartLine).WithData("field", "continuation")
	}
	b.Source, b.StartByte = b.Source[off:], off
	return b, nil
}
