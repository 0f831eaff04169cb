package scipindex

import (
	"bytes"
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
	line  int32
	off   int // byte offset in its line
	text  string
	lit   bool
	ident bool
	encl  int32 // the innermost bracket open around it, -1 at file level
	match int32 // for a bracket, its partner; -1 when it has none
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
// a regular expression where an operand is expected.
func tokenizeTS(lines [][]byte) *tsTokens {
	t := &tsTokens{}
	var stack []int32
	inComment := false
	var tmplDepth []int // brace depth inside each open template's ${ }
	inTemplate := false
	add := func(tok tsToken) {
		tok.encl, tok.match = -1, -1
		if n := len(stack); n > 0 {
			tok.encl = stack[n-1]
		}
		i := int32(len(t.toks))
		switch tok.text {
		case "(", "[", "{":
			stack = append(stack, i)
		case "<":
			if n := len(t.toks); n > 0 {
				p := t.toks[n-1]
				if p.ident && !exprKeywords[p.text] || p.text == ">" {
					stack = append(stack, i)
				}
			}
		case ">":
			if n := len(stack); n > 0 && t.toks[stack[n-1]].text == "<" {
				tok.match, tok.encl = stack[n-1], t.toks[stack[n-1]].encl
				t.toks[stack[n-1]].match = i
				stack = stack[:n-1]
			}
		case ")", "]", "}":
			open := "("
			switch tok.text {
			case "]":
				open = "["
			case "}":
				open = "{"
			}
			for k := len(stack) - 1; k >= 0; k-- {
				if t.toks[stack[k]].text == open {
					tok.match, tok.encl = stack[k], t.toks[stack[k]].encl
					t.toks[stack[k]].match = i
					stack = stack[:k]
					break
				}
			}
		case ";":
			for len(stack) > 0 && t.toks[stack[len(stack)-1]].text == "<" {
				stack = stack[:len(stack)-1]
			}
		}
		t.toks = append(t.toks, tok)
	}
	operand := func() bool { // whether the last token ends an operand
		n := len(t.toks)
		if n == 0 {
			return false
		}
		p := t.toks[n-1]
		return p.lit || p.ident && !exprKeywords[p.text] || p.text == ")" || p.text == "]" || p.text == "}"
	}
	for ln, line := range lines {
		for i := 0; i < len(line); {
			c := line[i]
			switch {
			case inComment:
				if end := bytes.Index(line[i:], commentEnd); end >= 0 {
					i += end + 2
					inComment = false
				} else {
					i = len(line)
				}
			case inTemplate:
				i = skipTemplate(line, i, &inTemplate, &tmplDepth)
			case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
				i++
			case c == '/' && i+1 < len(line) && line[i+1] == '/':
				i = len(line)
			case c == '/' && i+1 < len(line) && line[i+1] == '*':
				inComment = true
				i += 2
			case c == '"' || c == '\'':
				add(tsToken{line: int32(ln), off: i, lit: true})
				i = skipQuoted(line, i)
			case c == '`':
				add(tsToken{line: int32(ln), off: i, lit: true})
				inTemplate = true
				i = skipTemplate(line, i+1, &inTemplate, &tmplDepth)
			case c == '/' && !operand():
				add(tsToken{line: int32(ln), off: i, lit: true})
				i = skipRegexp(line, i)
			case c >= '0' && c <= '9' || c == '.' && i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9':
				j := i + 1
				for j < len(line) && (isIdentByte(line[j]) || line[j] == '.') {
					j++
				}
				add(tsToken{line: int32(ln), off: i, lit: true})
				i = j
			case isIdentStart(line, i):
				j := i
				if line[j] == '#' {
					j++ // a private name
				}
				for j < len(line) {
					r, size := utf8.DecodeRune(line[j:])
					if r != '$' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\u200c' && r != '\u200d' {
						break
					}
					j += size
				}
				add(tsToken{line: int32(ln), off: i, text: string(line[i:j]), ident: true})
				i = j
			default:
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
				add(tsToken{line: int32(ln), off: i, text: p})
				i += len(p)
			}
		}
	}
	return t
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
	case "typeof", "new", "return", "throw", "await", "yield", "void", "delete", "instanceof", "in", "of",
		"case", "else", "do", "default",
		"...", "!", "~", "?", "&&", "||", "??", "+", "-", "*", "/", "%", "**", "^", "<<",
		"==", "===", "!=", "!==", "<=", "+=", "-=", "*=", "/=", "%=", "**=", "&&=", "||=", "??=", "&=", "|=", "^=", "<<=",
		";", "}", ")", "?.":
		return valuePos
	case "keyof", "implements", "satisfies", "is", "infer", "asserts", "unique", "readonly":
		return typePos
	case "as":
		if t.inClause(j) {
			return unsure
		}
		return typePos
	case "extends":
		return t.extends(j)
	case "<":
		if tok.match >= 0 || t.opensArgs(j) {
			return typePos
		}
		return valuePos
	case ",":
		return t.comma(j, depth)
	case ":":
		return t.colon(j, depth)
	case "=":
		if e := tok.encl; e >= 0 && t.toks[e].text == "<" {
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
			return t.after(int(t.toks[j-1].match)-1, depth+1) // (a: A) => X is a type where (…) is
		}
		return valuePos
	case "(":
		if p := j - 1; p >= 0 && (t.toks[p].ident && !exprKeywords[t.toks[p].text] || t.toks[p].text == ")" || t.toks[p].text == "]" || t.toks[p].text == ">") {
			return valuePos // an argument (a parameter would be a declaration)
		}
		return t.after(j-1, depth+1) // a parenthesized value or type
	case "[":
		if p := j - 1; p >= 0 && (t.toks[p].ident || t.toks[p].lit || t.toks[p].text == ")" || t.toks[p].text == "]") {
			return unsure // an index: obj[X] or T[X]
		}
		return t.after(j-1, depth+1) // an array literal or a tuple type
	case "{":
		if p := j - 1; p < 0 || t.toks[p].text == ")" || t.toks[p].text == "{" || t.toks[p].text == "}" || t.toks[p].text == ";" ||
			t.toks[p].text == "=>" || t.toks[p].text == "else" || t.toks[p].text == "try" || t.toks[p].text == "do" || t.toks[p].text == "finally" {
			return valuePos // the first statement of a block
		}
		return unsure // an object literal, a type literal, an import or export clause
	}
	return unsure
}

// opensArgs reports whether the '<' at j opens a type argument or
// parameter list (after a name), though nothing closed it.
func (t *tsTokens) opensArgs(j int) bool {
	p := j - 1
	return p >= 0 && t.toks[p].ident && !exprKeywords[t.toks[p].text]
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
		case ";", "{", "}", "=", "=>":
			if k != j {
				return "", -1
			}
		}
		if t.toks[k].ident && slices.Contains(words, s) {
			return s, k
		}
	}
	return "", -1
}

// extends: a constraint or a conditional type is a type, a class's
// heritage a value, an interface's a type.
func (t *tsTokens) extends(j int) meaning {
	if e := t.toks[j].encl; e >= 0 && t.toks[e].text == "<" {
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
	for k, n := t.back(j), 0; k >= 0; k, n = t.back(k), n+1 {
		if n > maxBack {
			return unsure
		}
		if t.stepped(k) {
			continue
		}
		switch t.toks[k].text {
		case "?":
			if n := k + 1; n < len(t.toks) && (t.toks[n].text == ":" || t.toks[n].text == ")" || t.toks[n].text == "," || t.toks[n].text == "(") {
				return typePos // x?: T, (x?) =>, m?(): T
			}
			return valuePos
		case ";", "{", "}", ",", ":", "=":
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
		if t.stepped(p) || tok.lit || tok.ident && !keywords[tok.text] || tok.text == "." || tok.text == "|" || tok.text == "&" {
			k = p // an operand, or a bracketed group back() stepped over
			continue
		}
		return t.after(p, depth+1)
	}
}

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
