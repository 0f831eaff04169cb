package answer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/position"
)

// QuoteContent makes text read from a repository safe to embed in an
// answer line: control characters (newlines included) and invisible
// format characters (bidirectional overrides, zero-width characters) are
// escaped, so content can never pose as the answer's own structure or
// hide what it says.
func QuoteContent(s string) string {
	return escape(s, func(r rune) bool { return r == '\t' })
}

// EscapeControls escapes, in a whole text rendering, what QuoteContent
// escapes except newlines and tabs: the layout of the answer stays, and a
// terminal escape sequence or a bidirectional override from a file name
// or a message reaches the reader as visible text.
func EscapeControls(s string) string {
	return escape(s, func(r rune) bool { return r == '\t' || r == '\n' })
}

func unsafeRune(r rune) bool {
	if r < utf8.RuneSelf {
		// The ASCII controls; no format character is ASCII.
		return r < 0x20 || r == 0x7f
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029'
}

func escape(s string, keep func(rune) bool) string {
	clean := true
	for _, r := range s {
		if r >= 0x20 && r < 0x7f {
			continue // printable ASCII, most of any text
		}
		if unsafeRune(r) && !keep(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				fmt.Fprintf(&b, `\x%02x`, s[i])
			} else {
				b.WriteRune(r)
			}
		case unsafeRune(r) && !keep(r):
			b.WriteString(strings.Trim(strconv.QuoteRuneToASCII(r), "'"))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// OneLine collapses white space runs, so a signature fits on one line.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// CutUTF8 returns at most n bytes of s, never splitting a character
// (see position.CutUTF8).
var CutUTF8 = position.CutUTF8

// maxDocSentence bounds, in bytes, a doc comment's first sentence.
const maxDocSentence = 200

// DocSentence is the first sentence of a doc comment on one line, at most
// maxDocSentence bytes (cut ones end in "…"), or "" for none.
func DocSentence(doc string) string {
	doc, _, _ = strings.Cut(strings.TrimSpace(doc), "\n\n")
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i+1]
	}
	if len(doc) > maxDocSentence {
		doc = CutUTF8(doc, maxDocSentence-len("…")) + "…"
	}
	return doc
}

// FirstLine returns the first line of a doc comment, for concise answers.
func FirstLine(doc string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.IndexByte(doc, '\n'); i >= 0 {
		doc = doc[:i]
	}
	return doc
}
