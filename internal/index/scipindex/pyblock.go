package scipindex

import (
	"bytes"
	"regexp"

	"github.com/sextant-dev/sextant/internal/scip"
)

// scip-python gives a function declared again in its file (its @overload
// stubs, then its implementation; or one def in each branch of an if)
// one symbol, and writes only the first def as its definition: the later
// ones are occurrences at the name of a def, with no enclosing range.
// The declaration is all of them: a use in the implementation's body is
// the function's, not its class's or module's. Each later def stays a use
// of the symbol, enclosed by what holds the statement, as pyright counts
// the other declarations of a name among its references.

// redeclared matches what comes before the name of a def or class
// statement on its line.
var redeclared = regexp.MustCompile(`^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+$`)

// pyRedeclaration reports whether the occurrence at r names the def or
// class statement of its line, and if so returns the statement's whole
// range: from its line (its decorators are the first declaration's
// range already, or none) to the end of its body.
func pyRedeclaration(lines *lineTable, r scip.Range) (scip.Range, bool) {
	if r.StartLine != r.EndLine || !redeclared.Match(lines.prefix(r.StartLine, r.StartChar)) {
		return scip.Range{}, false
	}
	end := pyBlockEnd(lines.lines, int(r.StartLine))
	return scip.Range{StartLine: r.StartLine, EndLine: int32(end), EndChar: int32(lines.lineUnits(int32(end)))}, true
}

// pyBlockEnd is the last line (0-based) of the compound statement whose
// header starts on line first: the header runs until its brackets close;
// a body after its colon on that line is the whole statement, otherwise
// the body is every line after indented deeper than the header (blank
// lines and comments within it aside), with the lines a string or
// bracket opened in it continues on.
func pyBlockEnd(lines [][]byte, first int) int {
	indent := indentOf(lines[first])
	var s pyScan
	l, code := first, 0
	for ; l < len(lines)-1; l++ {
		code = s.line(lines[l])
		if s.open() == 0 {
			break
		}
	}
	if l == len(lines)-1 || len(bytes.TrimSpace(afterColon(lines[l][:code]))) > 0 {
		return l
	}
	last := l
	for l++; l < len(lines); l++ {
		line := lines[l]
		blank := blankOrComment(line)
		if s.open() == 0 && !blank && indentOf(line) <= indent {
			break
		}
		wasOpen := s.open() > 0
		s.line(line)
		if !blank || wasOpen {
			last = l
		}
	}
	return last
}

func blankOrComment(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\r")
	return len(t) == 0 || t[0] == '#'
}

// pyScan follows the brackets and triple-quoted strings a line leaves
// open.
type pyScan struct {
	depth  int
	triple byte // the quote of an open triple-quoted string, or 0
}

func (s *pyScan) open() int {
	if s.triple != 0 {
		return 1
	}
	return s.depth
}

// line reads one line, and returns where its comment starts (its length
// when it has none).
func (s *pyScan) line(b []byte) int {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if s.triple != 0 {
			if c == '\\' {
				i++
			} else if c == s.triple && i+2 < len(b) && b[i+1] == c && b[i+2] == c {
				s.triple, i = 0, i+2
			}
			continue
		}
		switch c {
		case '#':
			return i
		case '(', '[', '{':
			s.depth++
		case ')', ']', '}':
			if s.depth > 0 {
				s.depth--
			}
		case '"', '\'':
			if i+2 < len(b) && b[i+1] == c && b[i+2] == c {
				s.triple, i = c, i+2
				continue
			}
			// A string on one line: to its closing quote.
			for i++; i < len(b) && b[i] != c; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return len(b)
}

func indentOf(line []byte) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}

// afterColon is what follows the last colon of a line outside brackets,
// read from its end (whose brackets are closed): the body of a one-line
// statement, or nothing.
func afterColon(line []byte) []byte {
	depth := 0
	for i := len(line) - 1; i >= 0; i-- {
		switch line[i] {
		case ')', ']', '}':
			depth++
		case '(', '[', '{':
			depth--
		case ':':
			if depth == 0 {
				return line[i+1:]
			}
		}
	}
	return nil
}
