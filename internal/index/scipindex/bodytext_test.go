package scipindex

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/scip"
)

// textsOf returns a file's texts as "line:offset text", a comment's
// text after "#".
func textsOf(src string, python bool) []string {
	var texts []srcText
	lines := bytes.Split([]byte(src), []byte("\n"))
	if python {
		scanPython(lines, &texts)
	} else {
		scanTS(lines, false, &texts)
	}
	var out []string
	for _, t := range texts {
		mark := ""
		if t.comment {
			mark = "#"
		}
		out = append(out, fmt.Sprintf("%d:%d %s%s", t.line, t.off, mark, t.text))
	}
	return out
}

func TestScanTexts(t *testing.T) {
	ts := "const a = 'gzip' // the encoding\n" +
		"const re = /it's/g, b = `x ${y} z`, e = ''\n" +
		"/* one\n two */ f(\"deflate\")\n" +
		"const t = `multi\nline`; const u = 'open"
	checkTexts(t, "TypeScript", textsOf(ts, false), []string{
		"0:11 gzip", "0:19 #the encoding",
		"1:25 x ${y} z",
		"2:2 #one", "3:0 #two", "3:11 deflate",
		"4:11 multi", "5:0 line", "5:18 open",
	})
	py := "def f(x):\n" +
		"    \"\"\"Docs of f.\n\n    More.\n    \"\"\"\n" +
		"    y = 'gzip'  # the encoding\n" +
		"    return f\"{x}\" + r'\\d' + '''one line'''\n" +
		"s = '''open"
	checkTexts(t, "Python", textsOf(py, true), []string{
		"1:7 Docs of f.\n\n    More.",
		"5:9 gzip", "5:17 #the encoding",
		"6:13 {x}", "6:22 \\d", "6:31 one line",
		"7:7 open",
	})
}

func checkTexts(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestBodyText(t *testing.T) {
	src := "def f(x):\n" +
		"    \"\"\"Docs of f:\n    its doc.\"\"\"\n" +
		"    return 'gzip'  # the encoding\n" +
		"def g(): return 'deflate'\n"
	lines := newLineTable([]byte(src), position.UTF8)
	var texts []srcText
	scanPython(lines.lines, &texts)
	f := scip.Range{StartLine: 0, EndLine: 3, EndChar: 33}
	// The docstring is the doc, not body text; what follows f is not f's.
	if got, want := bodyText(texts, lines, f, "Docs of f:\nits doc."), "gzip\nthe encoding\n"; got != want {
		t.Errorf("bodyText = %q, want %q", got, want)
	}
}
