package webui

import (
	"go/scanner"
	"go/token"
	"go/types"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// srcLine is one line of source as the page shows it.
type srcLine struct {
	N     int
	Spans []span
}

// span is a run of a line: text, its style, and for an identifier the
// link to its definition.
type span struct {
	Text  string
	Class string // id, kw, str, com, num, or none
	Href  string
}

// maxSourceLines bounds the lines one page tokenizes and draws.
const maxSourceLines = 2000

// goLines splits Go source starting at line first into lines of spans,
// each identifier (predeclared ones aside) a link to /def at its line and
// character column in file. Text is never interpreted: it reaches the page
// through html/template as text. linkFirst is false when the first line is
// cut (its columns unknown); other languages pass lang != "" and get plain
// lines.
func goLines(src, file, repo string, first int, lang string, linkFirst bool) []srcLine {
	raw := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	for i, l := range raw {
		raw[i] = strings.TrimSuffix(l, "\r")
	}
	if len(raw) > maxSourceLines {
		raw = raw[:maxSourceLines]
	}
	lines := make([]srcLine, len(raw))
	for i, l := range raw {
		lines[i] = srcLine{N: first + i}
		if lang != "" {
			lines[i].Spans = []span{{Text: l}}
		}
	}
	if lang != "" {
		return lines
	}
	body := []byte(strings.Join(raw, "\n"))
	fset := token.NewFileSet()
	tf := fset.AddFile("", -1, len(body))
	var sc scanner.Scanner
	sc.Init(tf, body, func(token.Position, string) {}, scanner.ScanComments)
	// Walk the tokens, emitting the text between them unstyled.
	type mark struct {
		off, end int
		class    string
		ident    bool
	}
	var marks []mark
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		off := tf.Offset(pos)
		var m mark
		switch {
		case tok == token.IDENT:
			m = mark{off, off + len(lit), "id", lit != "_" && types.Universe.Lookup(lit) == nil}
		case tok.IsKeyword():
			m = mark{off, off + len(tok.String()), "kw", false}
		case tok == token.STRING || tok == token.CHAR:
			m = mark{off, off + len(lit), "str", false}
		case tok == token.COMMENT:
			m = mark{off, off + len(lit), "com", false}
		case tok == token.INT || tok == token.FLOAT || tok == token.IMAG:
			m = mark{off, off + len(lit), "num", false}
		default:
			continue
		}
		if m.end > len(body) {
			m.end = len(body)
		}
		marks = append(marks, m)
	}
	// Cut the body into lines, each mark split at line ends (raw strings
	// and comments span lines).
	lineStart := 0
	li := 0
	mi := 0
	for li < len(raw) {
		lineEnd := lineStart + len(raw[li])
		at := lineStart
		var spans []span
		for mi < len(marks) && marks[mi].off < lineEnd {
			m := marks[mi]
			from := max(m.off, lineStart)
			if from > at {
				spans = append(spans, span{Text: string(body[at:from])})
			}
			to := min(m.end, lineEnd)
			s := span{Text: string(body[from:to]), Class: m.class}
			if m.ident && (li > 0 || linkFirst) {
				col := utf8.RuneCount(body[lineStart:from]) + 1
				s.Href = defHref(file, repo, first+li, col)
			}
			spans = append(spans, s)
			at = to
			if m.end > lineEnd {
				break // the mark goes on to the next line
			}
			mi++
		}
		if at < lineEnd {
			spans = append(spans, span{Text: string(body[at:lineEnd])})
		}
		lines[li].Spans = spans
		lineStart = lineEnd + 1
		li++
	}
	return lines
}

// defHref is the address of the definition of what is at file:line:col.
func defHref(file, repo string, line, col int) string {
	q := url.Values{"file": {file}, "line": {strconv.Itoa(line)}, "col": {strconv.Itoa(col)}}
	if repo != "" {
		q.Set("repo", repo)
	}
	return "/def?" + q.Encode()
}
