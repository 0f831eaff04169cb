package scipindex

import (
	"bytes"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/scip"
)

// A name TypeScript declares both as a value and as a type (`const X =
// …` beside `interface X`, a pattern of schema libraries) has two SCIP
// symbols, `X.` and `X#`, and scip-typescript writes both at every use,
// whichever meaning the use has. The language server tells them apart by
// syntax: `X.parse()` and `new X()` use the value, `: X` and `<X>` the
// type. twinUses does the same from the file's tokens, so that the uses
// of each meaning are its own; where the syntax does not settle it (an
// export clause exports both), both stay.

// meaning is what the syntax says of a name's position.
type meaning int8

const (
	unsure meaning = iota
	valuePos
	typePos

	otherBranch // ternary's answer for a conditional type's ':'
)

// twin reports whether a and b are `P.` and `P#`, in either order: the
// value and the type of one name.
func twin(a, b string) bool {
	if len(a) != len(b) || len(a) < 2 || a[:len(a)-1] != b[:len(b)-1] {
		return false
	}
	x, y := a[len(a)-1], b[len(b)-1]
	return x == '.' && y == '#' || x == '#' && y == '.'
}

// oneMeaning drops, from uses sorted by position, the occurrence of the
// meaning a twin's position does not have, in place; toks tokenizes the
// file when the first twin is met.
func oneMeaning[U any](uses []U, at func(U) (scip.Range, string), lines *lineTable, toks func() *tsTokens) []U {
	out := uses[:0]
	for i := 0; i < len(uses); i++ {
		r, sym := at(uses[i])
		if i+1 < len(uses) {
			if r2, sym2 := at(uses[i+1]); r2 == r && twin(sym, sym2) {
				suffix := ""
				switch toks().meaningAt(r.StartLine, int32(lines.offset(r.StartLine, r.StartChar))) {
				case typePos:
					suffix = "#"
				case valuePos:
					suffix = "."
				}
				if suffix != "" {
					keep := uses[i]
					if !strings.HasSuffix(sym, suffix) {
						keep = uses[i+1]
					}
					out = append(out, keep)
					i++
					continue
				}
			}
		}
		out = append(out, uses[i])
	}
	return out
}

// tsToken is one token of a TypeScript or JavaScript file: an identifier
// or keyword, a punctuator, or a literal (string, template, number,
// regular expression: text "" and lit true).
type tsToken struct {
	line    int32
	off     int // byte offset in its line
	text    string
	lit     bool
	ident   bool
	jsxExpr bool  // a '{' opening code in a JSX element
	encl    int32 // the innermost bracket open around it, -1 at file level
	match   int32 // for a bracket, its partner; -1 when it has none
}

// tsTokens is a file's tokens, comments skipped.
type tsTokens struct {
	toks []tsToken
}

// tsPunct are the punctuators of more than one character, longest
// first. None starts with '>', so that each '>' may close a type's
// argument list (`Array<Array<T>>`).
var tsPunct = []string{"...", "===", "!==", "**=", "<<=", "&&=", "||=", "??=",
	"=>", "?.", "??", "&&", "||", "==", "!=", "<=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "**", "<<"}

// punct1 are the one-byte punctuators, made strings once.
var punct1 = func() (p [256]string) {
	for c := 0x21; c < 0x7f; c++ {
		p[c] = string(rune(c))
	}
	return p
}()

var commentEnd = []byte("*/")

// exprKeywords are keywords after which '<' opens no type argument list and
// '/' starts a regular expression.
var exprKeywords = map[string]bool{"return": true, "typeof": true, "case": true, "in": true, "of": true, "new": true,
	"yield": true, "await": true, "void": true, "delete": true, "throw": true, "else": true, "do": true, "instanceof": true}

// tokenizeTS reads lines into tokens. It is a scanner, not a parser:
// a template literal is one token (its ${} parts unread), and '/' starts
// a regular expression where an operand is expected. With jsx (the
// files the TypeScript compiler reads with JSX: .tsx, .jsx, .js), a '<'
// where an operand is expected opens an element: its names and the code
// of its {} are read, its text is skipped.
func tokenizeTS(lines [][]byte, jsx bool) *tsTokens {
	return scanTS(lines, jsx, nil)
}

// scanTS is tokenizeTS, noting in texts, when set, the text of the
// literals and comments it skips.
func scanTS(lines [][]byte, jsx bool, texts *[]srcText) *tsTokens {
	s := &tsScanner{t: &tsTokens{}, jsx: jsx, texts: texts}
	for ln, line := range lines {
		for i := 0; i < len(line); {
			if n := len(s.elems); n > 0 && s.elems[n-1].state != jsxCode {
				i = s.markup(line, int32(ln), i)
			} else {
				i = s.code(line, int32(ln), i)
			}
		}
	}
	return s.t
}

// tsScanner is tokenizeTS's state between lines.
type tsScanner struct {
	t          *tsTokens
	texts      *[]srcText // when set, the text of literals and comments goes here
	stack      []int32    // the brackets open
	inComment  bool
	inTemplate bool
	tmplDepth  []int // brace depth inside each open template's ${ }
	jsx        bool
	elems      []jsxFrame // the JSX open around the scanner, innermost last
}

// jsxFrame is an element the scanner is in, or the code of a {} in one.
type jsxFrame struct {
	state jsxState
	open  int32 // for jsxCode, the '{' token
}

type jsxState int8

const (
	jsxTag      jsxState = iota // in an opening tag: <Name attr={…}
	jsxChildren                 // between an element's tags: text, {…}, elements
	jsxClose                    // in its closing tag: </Name
	jsxCode                     // in a {…} of a tag or of the children
)

// The tokens of JSX's own syntax have texts no TypeScript token has, so
// that the look back reads none of them as an operator or a bracket.
const (
	jsxOpen      = "jsx<"  // an element's '<'
	jsxCloseOpen = "jsx</" // a closing tag's '</'
	jsxEnd       = "jsx>"  // a tag's '>'
	jsxSelfEnd   = "jsx/>" // a self-closing tag's '/>'
	jsxAssign    = "jsx="  // an attribute's '='
)

// add appends tok, noting the brackets it opens and closes.
func (s *tsScanner) add(tok tsToken) {
	t := s.t
	tok.encl, tok.match = -1, -1
	if n := len(s.stack); n > 0 {
		tok.encl = s.stack[n-1]
	}
	i := int32(len(t.toks))
	switch tok.text {
	case "(", "[", "{":
		s.stack = append(s.stack, i)
	case "<":
		// After a name, type arguments or a comparison (a ';' drops the
		// '<' left open); where an operand is expected, type parameters
		// or an assertion (<T>(a: T) => T, <T>x); after an operand, a
		// comparison.
		if n := len(t.toks); n == 0 || !t.toks[n-1].lit && t.toks[n-1].text != ")" && t.toks[n-1].text != "]" {
			s.stack = append(s.stack, i)
		}
	case ">":
		if n := len(s.stack); n > 0 && t.toks[s.stack[n-1]].text == "<" {
			tok.match, tok.encl = s.stack[n-1], t.toks[s.stack[n-1]].encl
			t.toks[s.stack[n-1]].match = i
			s.stack = s.stack[:n-1]
		}
	case ")", "]", "}":
		open := "("
		switch tok.text {
		case "]":
			open = "["
		case "}":
			open = "{"
		}
		for k := len(s.stack) - 1; k >= 0; k-- {
			if t.toks[s.stack[k]].text == open {
				tok.match, tok.encl = s.stack[k], t.toks[s.stack[k]].encl
				t.toks[s.stack[k]].match = i
				s.stack = s.stack[:k]
				break
			}
		}
	case ";", "&&", "||", "??", "==", "===", "!=", "!==", "<=", "+", "-", "*", "/", "%", "**", "++", "--",
		"+=", "-=", "*=", "/=", "%=", "**=", "&&=", "||=", "??=":
		// What no type holds: the '<' left open was a comparison.
		for len(s.stack) > 0 && t.toks[s.stack[len(s.stack)-1]].text == "<" {
			s.stack = s.stack[:len(s.stack)-1]
		}
	}
	t.toks = append(t.toks, tok)
	// The '}' of an element's {…} goes back to the element.
	if n := len(s.elems); tok.text == "}" && n > 0 && s.elems[n-1].state == jsxCode && tok.match == s.elems[n-1].open {
		s.elems = s.elems[:n-1]
	}
}

// keep notes line[from:to], the text of a literal or a comment on line
// ln, when the scanner keeps them.
func (s *tsScanner) keep(ln int32, line []byte, from, to int, comment bool) {
	if s.texts == nil || to <= from {
		return
	}
	if text := bytes.TrimSpace(line[from:to]); len(text) > 0 {
		*s.texts = append(*s.texts, srcText{line: ln, off: from, text: string(text), comment: comment})
	}
}

// closed is the end of a literal's text that ends before offset end: its
// closing quote's offset, or end itself when the literal goes on (open).
func closed(end int, open bool) int {
	if open {
		return end
	}
	return end - 1
}

// quotedText returns, for the string literal whose quote is at line[i],
// the offset after it (skipQuoted) and the end of its text: before its
// closing quote, or the line's end when it has none.
func quotedText(line []byte, i int) (end, text int) {
	end = skipQuoted(line, i)
	unclosed := end == len(line) && (end-1 == i || line[end-1] != line[i])
	return end, max(i+1, closed(end, unclosed))
}

// operand reports whether the last token ends an operand.
func (s *tsScanner) operand() bool {
	n := len(s.t.toks)
	if n == 0 {
		return false
	}
	p := s.t.toks[n-1]
	return p.lit || p.ident && !exprKeywords[p.text] || p.text == ")" || p.text == "]" || p.text == "}" ||
		p.text == jsxEnd || p.text == jsxSelfEnd // an element closed: in code, '>' ends no opening tag
}

// code reads one token (or a comment or a space) of code from line[i:]
// and returns where it stopped.
func (s *tsScanner) code(line []byte, ln int32, i int) int {
	c := line[i]
	switch {
	case s.inComment:
		if end := bytes.Index(line[i:], commentEnd); end >= 0 {
			s.inComment = false
			s.keep(ln, line, i, i+end, true)
			return i + end + 2
		}
		s.keep(ln, line, i, len(line), true)
		return len(line)
	case s.inTemplate:
		end := skipTemplate(line, i, &s.inTemplate, &s.tmplDepth)
		s.keep(ln, line, i, closed(end, s.inTemplate), false)
		return end
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		return i + 1
	case c == '/' && i+1 < len(line) && line[i+1] == '/':
		s.keep(ln, line, i+2, len(line), true)
		return len(line)
	case c == '/' && i+1 < len(line) && line[i+1] == '*':
		s.inComment = true
		return i + 2
	case c == '"' || c == '\'':
		s.add(tsToken{line: ln, off: i, lit: true})
		end, text := quotedText(line, i)
		s.keep(ln, line, i+1, text, false)
		return end
	case c == '`':
		s.add(tsToken{line: ln, off: i, lit: true})
		s.inTemplate = true
		end := skipTemplate(line, i+1, &s.inTemplate, &s.tmplDepth)
		s.keep(ln, line, i+1, closed(end, s.inTemplate), false)
		return end
	case c == '/' && !s.operand():
		s.add(tsToken{line: ln, off: i, lit: true})
		return skipRegexp(line, i)
	case c == '<' && s.jsx && !s.operand() && elementAt(line, i):
		s.add(tsToken{line: ln, off: i, text: jsxOpen})
		s.elems = append(s.elems, jsxFrame{state: jsxTag})
		return i + 1
	case c >= '0' && c <= '9' || c == '.' && i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9':
		j := i + 1
		for j < len(line) && (isIdentByte(line[j]) || line[j] == '.') {
			j++
		}
		s.add(tsToken{line: ln, off: i, lit: true})
		return j
	case isIdentStart(line, i):
		j := i
		if line[j] == '#' {
			j++ // a private name
		}
		j = identEnd(line, j, false)
		s.add(tsToken{line: ln, off: i, text: string(line[i:j]), ident: true})
		return j
	}
	p := punct1[line[i]]
	if p == "" {
		p = string(line[i : i+1])
	}
	for _, q := range tsPunct {
		if len(q) <= len(line)-i && string(line[i:i+len(q)]) == q {
			p = q
			break
		}
	}
	if p == "?." && i+2 < len(line) && line[i+2] >= '0' && line[i+2] <= '9' {
		p = "?" // a ? .5 : b
	}
	s.add(tsToken{line: ln, off: i, text: p})
	return i + len(p)
}

// markup reads one token of JSX (a tag's name, attribute, string or
// '{', or a run of an element's text) from line[i:].
func (s *tsScanner) markup(line []byte, ln int32, i int) int {
	top := &s.elems[len(s.elems)-1]
	c := line[i]
	if top.state == jsxChildren {
		switch {
		case c == '{':
			s.add(tsToken{line: ln, off: i, text: "{", jsxExpr: true})
			s.elems = append(s.elems, jsxFrame{state: jsxCode, open: int32(len(s.t.toks) - 1)})
			return i + 1
		case c == '<' && i+1 < len(line) && line[i+1] == '/':
			s.add(tsToken{line: ln, off: i, text: jsxCloseOpen})
			top.state = jsxClose
			return i + 2
		case c == '<':
			s.add(tsToken{line: ln, off: i, text: jsxOpen})
			s.elems = append(s.elems, jsxFrame{state: jsxTag})
			return i + 1
		}
		// Text, up to what is not text.
		j := i + 1
		for j < len(line) && line[j] != '{' && line[j] != '<' {
			j++
		}
		return j
	}
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		return i + 1
	case c == '/' && i+1 < len(line) && line[i+1] == '>' && top.state == jsxTag:
		s.elems = s.elems[:len(s.elems)-1]
		s.add(tsToken{line: ln, off: i, text: jsxSelfEnd})
		return i + 2
	case c == '>':
		if top.state == jsxTag {
			top.state = jsxChildren
		} else {
			s.elems = s.elems[:len(s.elems)-1]
		}
		s.add(tsToken{line: ln, off: i, text: jsxEnd})
		return i + 1
	case c == '{':
		s.add(tsToken{line: ln, off: i, text: "{", jsxExpr: true})
		s.elems = append(s.elems, jsxFrame{state: jsxCode, open: int32(len(s.t.toks) - 1)})
		return i + 1
	case c == '"' || c == '\'':
		s.add(tsToken{line: ln, off: i, lit: true})
		return skipQuoted(line, i)
	case c == '=':
		s.add(tsToken{line: ln, off: i, text: jsxAssign})
		return i + 1
	case isIdentStart(line, i) && c != '#':
		j := identEnd(line, i, true)
		s.add(tsToken{line: ln, off: i, text: string(line[i:j]), ident: true})
		return j
	}
	p := punct1[c] // '.' and ':' of a name, or what JSX does not allow
	if p == "" {
		p = string(line[i : i+1])
	}
	s.add(tsToken{line: ln, off: i, text: p})
	return i + 1
}

// identEnd returns the end of the identifier from j; a JSX name may hold
// '-' too (aria-label).
func identEnd(line []byte, j int, dash bool) int {
	for j < len(line) {
		r, size := utf8.DecodeRune(line[j:])
		if r != '$' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\u200c' && r != '\u200d' && !(dash && r == '-') {
			break
		}
		j += size
	}
	return j
}

// elementAt reports whether the '<' at line[i], where an operand is
// expected, opens a JSX element: a fragment's '<>' or a name, not a type
// parameter list (<T,>, <T extends U>, <T>(a: T) => T).
func elementAt(line []byte, i int) bool {
	j := skipSpace(line, i+1)
	if j < len(line) && line[j] == '>' {
		return true
	}
	if j >= len(line) || !isIdentStart(line, j) || line[j] == '#' {
		return false
	}
	k := identEnd(line, j, true)
	for k < len(line) && (line[k] == '.' || line[k] == ':') {
		k = identEnd(line, k+1, true)
	}
	if string(line[j:k]) == "const" {
		return false // <const T>
	}
	k = skipSpace(line, k)
	switch {
	case k >= len(line):
		return true
	case line[k] == ',':
		return false
	case line[k] == '>':
		n := skipSpace(line, k+1)
		return n >= len(line) || line[n] != '('
	case bytes.HasPrefix(line[k:], []byte("extends ")):
		return false
	}
	return true
}

func skipSpace(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdentStart(line []byte, i int) bool {
	r, _ := utf8.DecodeRune(line[i:])
	return r == '$' || r == '_' || r == '#' && i+1 < len(line) && isIdentByte(line[i+1]) || unicode.IsLetter(r)
}

// skipQuoted returns the offset after the string starting at i (its end
// of line when it is not closed there).
func skipQuoted(line []byte, i int) int {
	q := line[i]
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(line)
}

// skipRegexp returns the offset after the regular expression literal
// starting at i, its flags included.
func skipRegexp(line []byte, i int) int {
	class := false
	for j := i + 1; j < len(line); j++ {
		switch c := line[j]; {
		case c == '\\':
			j++
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			j++
			for j < len(line) && isIdentByte(line[j]) {
				j++
			}
			return j
		}
	}
	return len(line)
}

// skipTemplate reads a template literal from i: to its closing backtick
// (clearing *in), or to the end of the line (it goes on on the next).
// The code of its ${} parts is skipped with the literal, braces counted.
func skipTemplate(line []byte, i int, in *bool, depth *[]int) int {
	for j := i; j < len(line); j++ {
		d := len(*depth)
		switch c := line[j]; {
		case c == '\\':
			j++
		case d > 0 && c == '{':
			(*depth)[d-1]++
		case d > 0 && c == '}':
			if (*depth)[d-1] == 0 {
				*depth = (*depth)[:d-1]
			} else {
				(*depth)[d-1]--
			}
		case d == 0 && c == '$' && j+1 < len(line) && line[j+1] == '{':
			*depth = append(*depth, 0)
			j++
		case d == 0 && c == '`':
			*in = false
			return j + 1
		}
	}
	return len(line)
}

// at returns the index of the token starting at byte off of line, -1
// when none does.
func (t *tsTokens) at(line int32, off int) int {
	i := sort.Search(len(t.toks), func(i int) bool {
		return t.toks[i].line > line || t.toks[i].line == line && t.toks[i].off >= off
	})
	if i < len(t.toks) && t.toks[i].line == line && t.toks[i].off == off {
		return i
	}
	return -1
}

// meaningAt says whether the name starting at 0-based line and byte
// offset off stands where a value or a type is written.
func (t *tsTokens) meaningAt(line int32, off int32) meaning {
	i := t.at(line, int(off))
	if i < 0 || !t.toks[i].ident {
		return unsure
	}
	// Called or a member read: a value (a type's members are reached
	// with X["k"], never X.k).
	if n := i + 1; n < len(t.toks) {
		switch t.toks[n].text {
		case "(", ".", "?.":
			return valuePos
		}
	}
	// The start of a qualified name: ns.X stands where ns stands.
	for i >= 2 && (t.toks[i-1].text == "." || t.toks[i-1].text == "?.") && t.toks[i-2].ident {
		i -= 2
	}
	return t.after(i-1, 0)
}

// after says what stands right after token j: a value or a type.
func (t *tsTokens) after(j int, depth int) meaning {
	if depth > 8 {
		return unsure
	}
	if j < 0 {
		return valuePos
	}
	tok := t.toks[j]
	if tok.lit {
		return unsure
	}
	switch tok.text {
	case "in":
		if t.mappedKey(j - 1) {
			return typePos // { [K in X]: … }
		}
		return valuePos
	case "?":
		if t.conditional(j) {
			return typePos // A extends B ? X : …
		}
		return valuePos
	case "...":
		if e := tok.encl; e >= 0 && t.toks[e].text == "[" {
			return t.after(int(e), depth+1) // a tuple's rest or an array's spread
		}
		return valuePos
	case "typeof", "new", "return", "throw", "await", "yield", "void", "delete", "instanceof", "of",
		"case", "else", "do", "default",
		"!", "~", "&&", "||", "??", "+", "-", "*", "/", "%", "**", "^", "<<",
		"==", "===", "!=", "!==", "<=", "+=", "-=", "*=", "/=", "%=", "**=", "&&=", "||=", "??=", "&=", "|=", "^=", "<<=",
		";", "}", ")", "?.":
		return valuePos
	case "keyof", "implements", "satisfies", "is", "infer", "asserts", "unique", "readonly":
		return typePos
	case jsxOpen, jsxCloseOpen:
		return valuePos // an element's name: a component is a value
	case "as":
		if t.inClause(j) {
			return unsure
		}
		return typePos
	case "extends":
		return t.extends(j)
	case "<":
		if tok.match >= 0 {
			return typePos
		}
		return valuePos // a comparison: nothing closed it
	case ",":
		return t.comma(j, depth)
	case ":":
		return t.colon(j, depth)
	case "=":
		if t.inTypeArgs(j) {
			return typePos // a type parameter's default
		}
		if t.typeAlias(j) {
			return typePos
		}
		return valuePos
	case "|", "&":
		return t.union(j, depth)
	case "=>":
		if j > 0 && t.toks[j-1].text == ")" && t.toks[j-1].match >= 0 {
			k := int(t.toks[j-1].match) - 1
			if k >= 0 && t.toks[k].text == ">" && t.toks[k].match >= 0 {
				k = int(t.toks[k].match) - 1 // <T>(a: T) => X
			}
			if k >= 0 && t.toks[k].text == "new" {
				k-- // a constructor's type: new (a: A) => X
			}
			return t.after(k, depth+1) // (a: A) => X is a type where (…) is
		}
		return valuePos
	case "(":
		if p := j - 1; p >= 0 && (t.name(p) || t.toks[p].text == ")" || t.toks[p].text == "]" || t.toks[p].text == ">") {
			return valuePos // an argument (a parameter would be a declaration)
		}
		return t.after(j-1, depth+1) // a parenthesized value or type
	case "[":
		if p := j - 1; p >= 0 && (t.name(p) || t.toks[p].lit || t.toks[p].text == ")" || t.toks[p].text == "]") {
			return unsure // an index: obj[X] or T[X]
		}
		if p := j - 1; p >= 0 && t.toks[p].text == "readonly" && (p == 0 || t.memberEnd(p-1)) {
			return valuePos // a member's computed key: readonly [Symbol.x]: T
		}
		return t.after(j-1, depth+1) // an array literal or a tuple type
	case "{":
		if p := j - 1; p < 0 || t.toks[p].text == ")" || t.toks[p].text == "{" || t.toks[p].text == "}" || t.toks[p].text == ";" ||
			t.toks[p].text == "=>" || t.toks[p].text == "else" || t.toks[p].text == "try" || t.toks[p].text == "do" || t.toks[p].text == "finally" {
			return valuePos // the first statement of a block
		}
		if tok.jsxExpr {
			return valuePos // a JSX element's {…}
		}
		return unsure // an object literal, a type literal, an import or export clause
	}
	return unsure
}

// inTypeArgs reports whether the token at j is in a list of type
// arguments or parameters: a '<' closed by a '>' (a '<' nothing closed
// is a comparison).
func (t *tsTokens) inTypeArgs(j int) bool {
	e := t.toks[j].encl
	return e >= 0 && t.toks[e].text == "<" && t.toks[e].match >= 0
}

// mappedKey reports whether the name at j is a mapped type's key:
// K in `{ [K in X]: … }`.
func (t *tsTokens) mappedKey(j int) bool {
	if j < 1 || !t.toks[j].ident || t.toks[j-1].text != "[" {
		return false
	}
	p := j - 2
	return p < 0 || t.toks[p].text == "{" && !t.toks[p].jsxExpr || t.toks[p].text == ";" || t.toks[p].text == "readonly"
}

// conditional reports whether the '?' at q is a conditional type's: an
// `extends` before it at its depth, in its statement and branch.
func (t *tsTokens) conditional(q int) bool {
	if t.inTypeArgs(q) {
		return true
	}
	for k, n := t.back(q), 0; k >= 0; k, n = t.back(k), n+1 {
		if n > maxBack {
			return false
		}
		if t.stepped(k) {
			continue
		}
		switch t.toks[k].text {
		case "extends":
			return true
		case ";", "{", "}", ",", ":", "?", "=", "return", "&&", "||", "??":
			return false
		}
	}
	return false
}

// name reports whether the token at p is a name: an identifier not a
// keyword, any word after '.' (z.keyof, a.new), or a type operator's
// word right before the '(' after it: readonly(x) is a call where
// readonly (A | B)[] is a type, as formatters write them.
func (t *tsTokens) name(p int) bool {
	tok := t.toks[p]
	if !tok.ident {
		return false
	}
	if !keywords[tok.text] || p > 0 && (t.toks[p-1].text == "." || t.toks[p-1].text == "?.") {
		return true
	}
	n := p + 1
	return typeOperators[tok.text] && tok.text != "typeof" && n < len(t.toks) && t.toks[n].text == "(" &&
		t.toks[n].line == tok.line && t.toks[n].off == tok.off+len(tok.text)
}

// memberEnd reports whether the token at p ends what comes before a
// member of a class, an interface or a type literal.
func (t *tsTokens) memberEnd(p int) bool {
	switch t.toks[p].text {
	case ";", "}", ",":
		return true
	case "{":
		return !t.toks[p].jsxExpr
	}
	return false
}

// memberStart reports whether the name at j starts a member of a class,
// an interface or a type literal: m in `m?(): T`, not c in `c ? (a) : b`
// (nor in `f(x, c ? (a) : b)`: a ',' ends a member of a type literal
// alone).
func (t *tsTokens) memberStart(j int) bool {
	if j < 0 || !t.toks[j].ident {
		return false
	}
	p := j - 1
	if p < 0 {
		return true
	}
	switch t.toks[p].text {
	case ",":
		return false
	case "public", "private", "protected", "static", "readonly", "abstract", "override", "async", "declare":
		return true
	}
	return t.memberEnd(p)
}

// back returns the token before k at k's depth: a bracketed group is
// stepped over to its opener. It returns -1 at the start of the file or
// of the group k is in.
func (t *tsTokens) back(k int) int {
	p := k - 1
	if p < 0 || int32(p) == t.toks[k].encl {
		return -1
	}
	if m := t.toks[p].match; m >= 0 && m < int32(p) {
		p = int(m)
	}
	return p
}

// maxBack bounds the tokens a look back reads, so that the work for a
// name is bounded whatever the file: past it, the meaning is unsure.
const maxBack = 256

// stepped reports whether the token at p opens a group back() stepped
// over (it is closed after p).
func (t *tsTokens) stepped(p int) bool { return t.toks[p].match > int32(p) }

// heading finds, going back from j at its depth to the start of its
// statement, the first of the keywords; "" when none is there.
func (t *tsTokens) heading(j int, words ...string) (string, int) {
	if m := t.toks[j].match; m >= 0 && m < int32(j) {
		j = int(m) // a group's closer: from its opener
	}
	for k, n := j, 0; k >= 0; k, n = t.back(k), n+1 {
		if n > maxBack {
			return "", -1
		}
		if t.stepped(k) && k != j {
			continue
		}
		s := t.toks[k].text
		switch s {
		case ";", "{", "}", "=", "=>", jsxOpen, jsxCloseOpen, jsxEnd, jsxSelfEnd, jsxAssign: // (a tag's names are no keywords: class="x")
			if k != j {
				return "", -1
			}
		}
		if t.toks[k].ident && slices.Contains(words, s) {
			return s, k
		}
		if t.toks[k].ident && statementStart[s] && k != j {
			return "", -1 // what is before began another statement: `interface A {…}` before `const A = {`
		}
	}
	return "", -1
}

// extends: a constraint or a conditional type is a type, a class's
// heritage a value, an interface's a type.
func (t *tsTokens) extends(j int) meaning {
	if t.inTypeArgs(j) {
		return typePos
	}
	switch kw, _ := t.heading(j, "class", "interface"); kw {
	case "class":
		return valuePos
	case "interface":
		return typePos
	}
	return typePos // T extends X ? A : B
}

// comma: the name follows a comma.
func (t *tsTokens) comma(j int, depth int) meaning {
	e := t.toks[j].encl
	for e >= 0 && t.toks[e].text == "<" && t.toks[e].match < 0 {
		e = t.toks[e].encl // a comparison's '<': f(a < b, X)
	}
	if e >= 0 {
		switch t.toks[e].text {
		case "<":
			return typePos
		case "(":
			return valuePos // an argument
		case "[":
			return t.after(int(e), depth+1)
		}
	}
	switch kw, _ := t.heading(j, "implements", "extends"); kw {
	case "implements":
		return typePos
	case "extends":
		if k, _ := t.heading(j, "interface"); k == "interface" {
			return typePos
		}
	}
	return unsure
}

// colon: an annotation (a type) or an object literal's property, a
// conditional's other branch, a case or a label (a value).
func (t *tsTokens) colon(j int, depth int) meaning {
	p := j - 1
	if p < 0 {
		return unsure
	}
	switch t.ternary(j) {
	case valuePos:
		return valuePos
	case unsure:
		return unsure
	case otherBranch:
		return typePos
	}
	prev := t.toks[p]
	switch {
	case prev.text == ")" || prev.text == "?":
		return typePos // a return type, an optional member's
	case prev.ident || prev.lit || prev.text == "]":
	default:
		return unsure
	}
	if p >= 1 && t.toks[p-1].ident {
		switch t.toks[p-1].text {
		case "const", "let", "var", "readonly", "declare", "public", "private", "protected", "static", "abstract", "accessor", "override":
			return typePos
		case "case":
			return valuePos
		}
	}
	e := t.toks[j].encl
	if e < 0 {
		return unsure
	}
	switch t.toks[e].text {
	case "(":
		return typePos // a parameter's
	case "{":
		return t.brace(int(e), depth)
	}
	return unsure
}

// ternary says whether the colon at j ends the first branch of a
// conditional (a ? b : c), a '?' before it at its depth in its
// statement: valuePos when it does, typePos when it does not (the colon
// may be an annotation's), unsure when that is too far back to tell.
func (t *tsTokens) ternary(j int) meaning {
	inner := 0 // the ':' passed, of conditionals nested in this one's branch
	for k, n := t.back(j), 0; k >= 0; k, n = t.back(k), n+1 {
		if n > maxBack {
			return unsure
		}
		if t.stepped(k) {
			continue
		}
		switch t.toks[k].text {
		case "?":
			if n := k + 1; n < len(t.toks) && (t.toks[n].text == ":" || t.toks[n].text == ")" || t.toks[n].text == "," ||
				t.toks[n].text == "(" && t.memberStart(k-1)) {
				return typePos // x?: T, (x?) =>, m?(): T
			}
			if inner > 0 {
				inner-- // a ? (b ? c : d) : e
				continue
			}
			if t.conditional(k) {
				return otherBranch // A extends B ? X : Y
			}
			return valuePos
		case ":":
			inner++
		case ";", "{", "}", ",", "=":
			return typePos
		}
	}
	return typePos
}

// brace says what a property's value is in the braces opening at e: a
// type in an interface's or class's body and in a type literal, a value
// in an object literal, unsure otherwise.
func (t *tsTokens) brace(e int, depth int) meaning {
	p := e - 1
	if p < 0 {
		return unsure
	}
	if kw, _ := t.heading(p, "class", "interface", "enum", "namespace", "module"); kw == "class" || kw == "interface" {
		return typePos
	} else if kw != "" {
		return unsure
	}
	switch t.toks[p].text {
	case ")", "{", "}", ";", "=>", "else", "try", "do", "finally":
		return valuePos // a block: labels and cases
	}
	return t.after(p, depth+1)
}

// typeAlias reports whether the '=' at j is a type alias's: type X =,
// type X<T> =.
func (t *tsTokens) typeAlias(j int) bool {
	p := j - 1
	if p >= 0 && t.toks[p].text == ">" && t.toks[p].match >= 0 {
		p = int(t.toks[p].match) - 1
	}
	return p >= 1 && t.toks[p].ident && t.toks[p-1].text == "type"
}

// union: the name follows '|' or '&': it stands where the first operand
// of the chain stands.
func (t *tsTokens) union(j int, depth int) meaning {
	for k, n := j, 0; ; n++ {
		p := t.back(k)
		if n > maxBack {
			return unsure
		}
		if p < 0 {
			return t.after(int(t.toks[j].encl), depth+1)
		}
		tok := t.toks[p]
		if t.stepped(p) || tok.lit || tok.ident && (!keywords[tok.text] || typeOperators[tok.text] || tok.text == "void") || tok.text == "." || tok.text == "|" || tok.text == "&" {
			k = p // an operand, or a bracketed group back() stepped over
			continue
		}
		return t.after(p, depth+1)
	}
}

// statementStart are the words that begin a statement.
var statementStart = map[string]bool{"export": true, "const": true, "let": true, "var": true, "function": true,
	"type": true, "import": true, "return": true, "declare": true}

// typeOperators are the words that start a type operand: typeof A | B
// is a union of types.
var typeOperators = map[string]bool{"typeof": true, "keyof": true, "readonly": true, "unique": true, "infer": true}

// keywords are the words after which an operand starts.
var keywords = map[string]bool{"keyof": true, "implements": true, "satisfies": true, "is": true, "infer": true,
	"asserts": true, "unique": true, "readonly": true, "as": true, "extends": true, "default": true, "const": true,
	"let": true, "var": true, "type": true, "interface": true, "class": true, "function": true, "import": true,
	"export": true, "from": true}

func init() {
	for k := range exprKeywords {
		keywords[k] = true
	}
}

// inClause reports whether the token at j is inside an import or export
// clause's braces.
func (t *tsTokens) inClause(j int) bool {
	e := t.toks[j].encl
	if e < 0 || t.toks[e].text != "{" {
		return false
	}
	for k := int(e) - 1; k >= 0 && k >= int(e)-2; k-- {
		switch t.toks[k].text {
		case "import", "export":
			return true
		}
	}
	return false
}

// jsxFile reports whether the TypeScript compiler reads the file at p
// with JSX, as it reads every JavaScript file and .tsx.
func jsxFile(p string) bool {
	switch path.Ext(p) {
	case ".tsx", ".jsx", ".js", ".mjs", ".cjs":
		return true
	}
	return false
}
