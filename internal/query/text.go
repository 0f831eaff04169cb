package query

import (
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
)

// quoteContent is the answer package's escaping, under the name the
// tools use.
var quoteContent = answer.QuoteContent

// EscapeControls escapes, in a whole text rendering, what quoteContent
// escapes except newlines and tabs (see answer.EscapeControls).
func EscapeControls(s string) string { return answer.EscapeControls(s) }

// cutUTF8 returns at most n bytes of s, never splitting a character
// (see answer.CutUTF8).
var cutUTF8 = answer.CutUTF8

// firstLine returns the first line of a doc comment (see
// answer.FirstLine).
var firstLine = answer.FirstLine

// RenderText is the text of an answer as both shells send it.
func RenderText(a Answer) string { return EscapeControls(a.Text()) }

// layerMark flags, in a text rendering, a row that comes from an
// unpublished local edit layered over the shared graph.
func layerMark(layer string) string {
	if layer == string(graph.LayerLocal) {
		return "  [local]"
	}
	return ""
}

// article is "a" or "an" for a kind name.
func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an"
	}
	return "a"
}

// dedupe returns list without its repeats, in the order first met (see
// graph.Dedupe).
var dedupe = graph.Dedupe
