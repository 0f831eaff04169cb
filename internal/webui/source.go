package webui

import (
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/query"
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

// scriptIdents are the identifiers of a TypeScript, JavaScript or Python
// line: a letter, _ or $, then letters, digits, _ or $.
func scriptIdents(line string, f func(off, end int)) {
	start := -1
	for i, r := range line {
		word := r == '_' || r == '$' || unicode.IsLetter(r) || (start >= 0 && unicode.IsDigit(r))
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			f(start, i)
			start = -1
		}
	}
	if start >= 0 {
		f(start, len(line))
	}
}

// scriptKeywords are words of TypeScript, JavaScript and Python that
// name no declaration, which scriptNames leaves out so that no look-up
// is spent on them.
var scriptKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`and as assert async await break case catch class const continue def del delete
		do elif else except export extends false False finally for from function global if implements import in
		instanceof interface is lambda let new None nonlocal not null or pass raise return self static super switch
		this throw true True try typeof undefined var void while with yield`) {
		scriptKeywords[w] = true
	}
}

// scriptNames lists the identifiers of src, each once, keywords aside.
func scriptNames(src string) []string {
	var out []string
	seen := maps.Clone(scriptKeywords)
	for _, l := range strings.Split(src, "\n") {
		scriptIdents(l, func(off, end int) {
			if n := l[off:end]; !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		})
	}
	return out
}

// scriptLines splits the source of a TypeScript, JavaScript or Python
// symbol starting at line first into lines of spans, each identifier
// the index resolves (uses, at its line and character column) a link to
// its symbol's page; the rest is plain text. linkFirst is false when the
// first line is cut (its columns unknown).
func scriptLines(src string, first int, uses []query.ScriptUse, linkFirst bool) []srcLine {
	at := map[[2]int]string{}
	for _, u := range uses {
		at[[2]int{u.Line, u.Col}] = u.Target
	}
	raw := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if len(raw) > maxSourceLines {
		raw = raw[:maxSourceLines]
	}
	lines := make([]srcLine, len(raw))
	for i, l := range raw {
		l = strings.TrimSuffix(l, "\r")
		n := first + i
		lines[i].N = n
		done := 0
		if i > 0 || linkFirst {
			scriptIdents(l, func(off, end int) {
				key, ok := at[[2]int{n, utf8.RuneCountInString(l[:off]) + 1}]
				if !ok {
					return
				}
				if off > done {
					lines[i].Spans = append(lines[i].Spans, span{Text: l[done:off]})
				}
				lines[i].Spans = append(lines[i].Spans, span{Text: l[off:end], Class: "id", Href: symHref(key)})
				done = end
			})
		}
		if done < len(l) || len(lines[i].Spans) == 0 {
			lines[i].Spans = append(lines[i].Spans, span{Text: l[done:]})
		}
	}
	return lines
}
