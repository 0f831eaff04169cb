package query

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Format selects how much an answer says.
type Format string

// Response formats.
const (
	Concise  Format = "concise"
	Detailed Format = "detailed"
)

func parseFormat(s string) (Format, error) {
	switch s {
	case "", "concise":
		return Concise, nil
	case "detailed":
		return Detailed, nil
	}
	return "", invalid("response_format", "must be concise or detailed (got %q)", s)
}

// checkSelector rejects a selector with surrounding whitespace: an agent
// that sends " Server" means something it did not type, and guessing would
// hide the mistake.
func checkSelector(field, v string) error {
	if v != strings.TrimSpace(v) {
		return invalid(field, "has surrounding whitespace (%q); send it without", v)
	}
	if strings.ContainsRune(v, 0) {
		return invalid(field, "contains a NUL character")
	}
	return nil
}

// checkSelectors applies checkSelector to (field, value) pairs in order.
func checkSelectors(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := checkSelector(pairs[i], pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func asError(err error) (*graph.Error, bool) {
	var e *graph.Error
	ok := errors.As(err, &e)
	return e, ok
}

// cutUTF8 returns at most n bytes of s, never splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// firstLine returns the first line of a doc comment, for concise answers.
func firstLine(doc string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.IndexByte(doc, '\n'); i >= 0 {
		doc = doc[:i]
	}
	return doc
}

// quoteContent makes text read from a repository safe to embed in an
// answer line: control characters (newlines included) and invisible
// format characters (bidirectional overrides, zero-width characters) are
// escaped, so content can never pose as the answer's own structure or
// hide what it says.
func quoteContent(s string) string {
	return escape(s, func(r rune) bool { return r == '\t' })
}

// EscapeControls escapes, in a whole text rendering, what quoteContent
// escapes except newlines and tabs: the layout of the answer stays, and a
// terminal escape sequence or a bidirectional override from a file name
// or a message reaches the reader as visible text.
func EscapeControls(s string) string {
	return escape(s, func(r rune) bool { return r == '\t' || r == '\n' })
}

// RenderText is the text of an answer as both shells send it.
func RenderText(a Answer) string { return EscapeControls(a.Text()) }

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

// layerMark flags, in a text rendering, a row that comes from an
// unpublished local edit layered over the shared graph.
func layerMark(layer string) string {
	if layer == string(graph.LayerLocal) {
		return "  [local]"
	}
	return ""
}
