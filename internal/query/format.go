package query

import (
	"errors"
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
// answer line: control characters are escaped so content can never pose as
// the answer's own structure.
func quoteContent(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
