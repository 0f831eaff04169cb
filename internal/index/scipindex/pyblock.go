package scipindex

import (
	"bytes"
	"regexp"
	"unicode"
	"unicode/utf8"

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

// A def or class statement in code pyright deems unreachable (the else of
// `if TYPE_CHECKING:`, or past `assert sys.platform == "win32"` on Linux)
// gets no occurrence from scip-python, or one of a local symbol of its
// own, though pyright counts it among the references of the name it
// declares again. pyHeaders finds
// every def and class statement of a file with the scope it binds its
// name in, so that the importer can make such a statement a redeclaration
// of the symbol another statement of the same name and scope has.

// pyHeader is a def or class statement: its name, where the name is
// (0-based line, and byte offset: what precedes it is ASCII, so bytes are
// the units of any encoding), and the scope it binds the name in: the
// line of the def or class statement whose body holds it, -1 for the
// module.
type pyHeader struct {
	name       string
	line, char int
	scope      int
}

// pyHeaderLine matches a def or class statement's start, up to its name.
var pyHeaderLine = regexp.MustCompile(`^([ \t]*)(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_][A-Za-z0-9_]*)`)

// pyHeaders lists the def and class statements of a file's lines, in
// order. A statement's scope is the nearest statement before it indented
// less that is a def or class, past the if, else, try, with, for and while
// statements between, which bind names in the scope around them.
func pyHeaders(lines [][]byte) []pyHeader {
	type open struct {
		indent int
		line   int  // -1 for the module
		scope  bool // a def or class statement
	}
	var out []pyHeader
	var s pyScan
	stack := []open{{indent: -1, line: -1, scope: true}}
	for l, line := range lines {
		fresh := s.open() == 0
		s.line(line)
		if !fresh || blankOrComment(line) {
			continue
		}
		indent := indentOf(line)
		for len(stack) > 1 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		scope := -1
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].scope {
				scope = stack[i].line
				break
			}
		}
		m := pyHeaderLine.FindSubmatchIndex(line)
		if m != nil {
			out = append(out, pyHeader{name: string(line[m[4]:m[5]]), line: l, char: m[4], scope: scope})
		}
		stack = append(stack, open{indent: indent, line: l, scope: m != nil})
	}
	return out
}

// pyRedecl is a def or class statement with no occurrence, and the
// symbol another statement of its name and scope has.
type pyRedecl struct {
	pyHeader
	symbol string
}

// pyUnwritten returns the def and class statements of lines that declare
// again a name another statement of the same scope declares, where no
// occurrence is: written is the symbol of the occurrence at a line and
// offset, "" for none.
func pyUnwritten(lines [][]byte, written func(line, char int) string) []pyRedecl {
	type key struct {
		scope int
		name  string
	}
	groups := map[key][]pyHeader{}
	var order []key
	for _, h := range pyHeaders(lines) {
		k := key{h.scope, h.name}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], h)
	}
	var out []pyRedecl
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		symbol := ""
		for _, h := range g {
			if symbol = written(h.line, h.char); symbol != "" {
				break
			}
		}
		if symbol == "" {
			continue
		}
		for _, h := range g {
			if written(h.line, h.char) == "" {
				out = append(out, pyRedecl{pyHeader: h, symbol: symbol})
			}
		}
	}
	return out
}

// pyCompound are the keywords that start a compound statement's header,
// after whose colon a simple statement may follow on the same line.
var pyCompound = map[string]bool{"if": true, "elif": true, "else": true, "while": true, "for": true, "async": true,
	"with": true, "try": true, "except": true, "finally": true, "def": true, "class": true, "match": true, "case": true}

// pyAnnotated matches the text before a name annotating a variable, an
// attribute or a parameter on its own line: `x:`, `self.x:`.
var pyAnnotated = regexp.MustCompile(`^[ \t]*[A-Za-z_][A-Za-z0-9_.]*[ \t]*:$`)

// pyTypeUse reports whether a name, on a line whose text before it is
// before, is where a Python annotation starts: after a def's `->`, after
// the colon of `x: T` or of a parameter `p: T` (on its own line, or inside
// a def statement's brackets), as a type is used, whether an '=' follows
// (`x: T = v` assigns x, not T) or not; not after a compound statement's
// colon (`else: x = 1`), a lambda's, a slice's or a dict's.
func pyTypeUse(line, before []byte) bool {
	// A name inside an annotation (`Optional[T]`, `A | T`, `dict[str,
	// T]`, `t.Optional`) is used where the annotation starts.
	b := bytes.TrimRight(bytes.TrimRightFunc(before, func(r rune) bool {
		return r == '_' || r == '.' || r == '[' || r == ',' || r == '|' || r == ' ' || r == '\t' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
	}), " \t")
	if bytes.HasSuffix(b, []byte("->")) {
		return true
	}
	if !bytes.HasSuffix(b, []byte(":")) {
		return false
	}
	word := pyFirstWord(line)
	if pyAnnotated.Match(b) {
		return !pyCompound[word] && word != "lambda"
	}
	var s pyScan
	s.line(b)
	return s.open() > 0 && (word == "def" || word == "async") && !bytes.Contains(b, []byte("lambda"))
}

// pyFirstWord is the first word of a line.
func pyFirstWord(line []byte) string {
	word := bytes.TrimLeft(line, " \t")
	if i := bytes.IndexFunc(word, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }); i >= 0 {
		word = word[:i]
	}
	return string(word)
}
