package answer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxExcerpt bounds the characters of line text an answer shows per use
// of a symbol: enough for the statement around a use (a call with its
// arguments, an assignment), in a third of what the whole line of gopls's
// answer costs.
const maxExcerpt = 48

// Excerpt trims a line and cuts it to maxExcerpt characters around col
// (1-based, in characters), marking cuts with an ellipsis.
func Excerpt(line string, col int) string {
	if !utf8.ValidString(line) {
		line = strings.ToValidUTF8(line, "\uFFFD")
	}
	if !isASCII(line) {
		return excerptRunes(line, col)
	}
	// A character is a byte: no need to decode the line.
	from, to, cutLeft, cutRight := excerptSpan(len(line), col, func(i int) rune { return rune(line[i]) })
	return markCuts(line[from:to], cutLeft, cutRight)
}

// excerptRunes is Excerpt for a valid UTF-8 line of any characters.
func excerptRunes(line string, col int) string {
	runes := []rune(line)
	from, to, cutLeft, cutRight := excerptSpan(len(runes), col, func(i int) rune { return runes[i] })
	return markCuts(string(runes[from:to]), cutLeft, cutRight)
}

// markCuts returns s, with an ellipsis on each side where it was cut,
// made safe to quote.
func markCuts(s string, cutLeft, cutRight bool) string {
	if cutLeft {
		s = "…" + s
	}
	if cutRight {
		s += "…"
	}
	return QuoteContent(s)
}

// excerptSpan returns the characters [from, to) of a line of n characters
// (at(i) is character i) that Excerpt shows, and whether it cut the line
// (not counting the blanks it trims) on either side.
func excerptSpan(n, col int, at func(int) rune) (from, to int, cutLeft, cutRight bool) {
	start := 0
	for start < n && (at(start) == ' ' || at(start) == '\t') {
		start++
	}
	end := n
	for end > start && (at(end-1) == ' ' || at(end-1) == '\t') {
		end--
	}
	if end-start <= maxExcerpt {
		return start, end, false, false
	}
	c := max(col-1, start)
	from = max(start, min(c-maxExcerpt/4, end-maxExcerpt))
	// Cut between words, not inside one.
	for from > start && from < c && isWordRune(at(from-1)) {
		from++
	}
	to = min(end, from+maxExcerpt)
	for to < end && to > c && isWordRune(at(to)) {
		to--
	}
	return from, to, from > start, to < end
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
