package scipindex

import (
	"bytes"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/scip"
)

// srcText is the text of a string literal or of a comment, on one line
// of a file, where it starts.
type srcText struct {
	line    int32
	off     int // byte offset in its line
	text    string
	comment bool
}

// bodyText is what search_code finds a script's function or variable by
// beyond its name, doc and signature, as the Go frontend gives a Go
// function's: the texts of its file's string literals and comments
// (scanTS's, scanPython's) within its declaration's range,
// literals first, cut at graph.MaxText bytes. A literal that says what
// doc says (a Python docstring, which is its doc) is left out.
func bodyText(texts []srcText, lines *lineTable, rng scip.Range, doc string) string {
	startOff, endOff := lines.offset(rng.StartLine, rng.StartChar), lines.offset(rng.EndLine, rng.EndChar)
	from := sort.Search(len(texts), func(i int) bool {
		t := texts[i]
		return t.line > rng.StartLine || t.line == rng.StartLine && t.off >= startOff
	})
	docText := strings.Join(strings.Fields(doc), " ")
	var lits, comments []string
	for _, t := range texts[from:] {
		if t.line > rng.EndLine || t.line == rng.EndLine && t.off >= endOff {
			break
		}
		switch {
		case t.comment:
			comments = append(comments, t.text)
		case docText == "" || strings.Join(strings.Fields(t.text), " ") != docText:
			lits = append(lits, t.text)
		}
	}
	var b strings.Builder
	for _, s := range append(lits, comments...) {
		if b.Len()+len(s)+1 > graph.MaxText {
			break
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}

// scanPython appends to texts the text of each string literal and
// comment of a Python file (a triple-quoted string's whole, at its
// first line).
func scanPython(lines [][]byte, texts *[]srcText) {
	keep := func(ln, from int, text []byte, comment bool) {
		if text = bytes.TrimSpace(text); len(text) > 0 {
			*texts = append(*texts, srcText{line: int32(ln), off: from, text: string(text), comment: comment})
		}
	}
	var triple []byte // the quotes closing the triple-quoted string open
	var open []byte   // its text so far
	openLine, openOff := 0, 0
	for ln, line := range lines {
		i := 0
		if triple != nil {
			end := bytes.Index(line, triple)
			if end < 0 {
				open = append(append(open, '\n'), line...)
				continue
			}
			keep(openLine, openOff, append(append(open, '\n'), line[:end]...), false)
			i, triple, open = end+3, nil, nil
		}
		for i < len(line) {
			switch c := line[i]; {
			case c == '#':
				keep(ln, i+1, line[i+1:], true)
				i = len(line)
			case (c == '"' || c == '\'') && bytes.HasPrefix(line[i:], []byte{c, c, c}):
				q := line[i : i+3]
				end := bytes.Index(line[i+3:], q)
				if end < 0 {
					triple, open, openLine, openOff = q, append([]byte(nil), line[i+3:]...), ln, i+3
					i = len(line)
					continue
				}
				keep(ln, i+3, line[i+3:i+3+end], false)
				i += 3 + end + 3
			case c == '"' || c == '\'':
				end, text := quotedText(line, i)
				keep(ln, i+1, line[i+1:text], false)
				i = end
			default:
				i++
			}
		}
	}
	if triple != nil {
		keep(openLine, openOff, open, false)
	}
}
