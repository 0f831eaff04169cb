package scipindex

import (
	"bytes"
	"context"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Beside the classes that extend or implement a TypeScript type, which
// scip-typescript relates to it, typescript-language-server lists among
// its implementations the values written with the type: for each use of
// the type, the value whose declared type the use is part of, when that
// value is an object or array literal, a function or a class expression.
// That is the initializer of a variable, property or parameter declared
// with the type (`const x: T = {…}`, `const f: (a: A) => T = (a) => …`),
// what a function declared to return it returns (`function f(): T {
// return {…} }`, `(): T => ({…})`), and what is asserted to be of it
// (`{…} as T`). The compiler's own rule reads the syntax alone, so the
// file's tokens give the same values.

// ValueImpl is an implementation that is no symbol: a value written as
// a type, an object literal's member, a renamed import, an overload's
// body.
type ValueImpl struct {
	Path      string
	Line, Col int // 1-based, Col in characters: its first token
	// What it is: "object literal", "array literal", "function", "class
	// expression"; "method" or "property" (of an object literal); "alias";
	// "implementation" (of overload signatures).
	What string
	// How it implements: for a value, "declared as NAME" (a variable,
	// property or parameter), "returned by NAME" (a function) or
	// "asserted"; "of an object literal"; "imported or exported as NAME";
	// "of the overload signatures".
	How       string
	Enclosing string // the stable key of the declaration enclosing the use it was found from
	// EnclosingName is the enclosing declaration's qualified name ("" at
	// file level).
	EnclosingName string
}

// SyntaxImplementations returns what implements sym beside the symbols
// related to it, as typescript-language-server lists it, read from the
// syntax at its uses in r and at its declaration: of a TypeScript or
// JavaScript type, the values written as it or as a type implementing it
// (implemented, stable keys), and the renamed imports and re-exports
// naming either (`import { X as Y } from`); of an interface's method or
// a property, the methods and properties of object literals that give
// it a value, which scip-typescript records as uses of it; of a
// function, a variable or a constant, its renamed imports and
// re-exports; of a function or method declared with overload
// signatures, the declaration with the body. nil for another language.
// src reads a file of a repository; false when it cannot be read.
//
// The files read are bounded (maxValueBytes of source in all): unread
// counts the files of uses left unread past it.
func SyntaxImplementations(ctx context.Context, r graph.Reader, sym graph.Symbol, implemented []string, src func(repo, path string) ([]byte, bool)) ([]ValueImpl, int, error) {
	if sym.Language != graph.LanguageTypeScript && sym.Language != graph.LanguageJavaScript {
		return nil, 0, nil
	}
	keys, find := []string{sym.Key}, (*tsTokens).alias
	switch sym.Kind {
	case graph.KindType, graph.KindInterface:
		// The uses of what implements the type are read with its own, each
		// file once.
		keys = append(keys, implemented...)
		find = func(t *tsTokens, i int) []value { return append(t.values(i), t.alias(i)...) }
	case graph.KindInterfaceMethod, graph.KindField:
		find = (*tsTokens).member
	}
	refs, _, err := r.Refs(ctx, graph.RefQuery{Targets: keys, IncludeTests: true})
	if err != nil {
		return nil, 0, graph.Wrap(graph.CodeInternal, err, "reading the uses")
	}
	br := &boundedReader{src: src, left: maxValueBytes}
	vals := valuesOf(refs, br.read, find)
	if sym.Kind == graph.KindFunc || sym.Kind == graph.KindMethod {
		if text, ok := br.read(sym.Repository, sym.Path); ok {
			vals = append(vals, overloadBody(sym, bytes.Split(text, []byte("\n")))...)
		}
	}
	var encl []string
	for _, v := range vals {
		if v.Enclosing != "" {
			encl = append(encl, v.Enclosing)
		}
	}
	if len(encl) == 0 {
		return vals, br.unread, nil
	}
	syms, err := r.SymbolsByKeys(ctx, encl)
	if err != nil {
		return nil, 0, graph.Wrap(graph.CodeInternal, err, "reading the values' declarations")
	}
	names := make(map[string]string, len(syms))
	for _, s := range syms {
		names[s.Key] = s.QualifiedName
	}
	for i := range vals {
		vals[i].EnclosingName = names[vals[i].Enclosing]
	}
	return vals, br.unread, nil
}

// boundedReader reads files through src until left bytes are read, and
// then none, counting those it refuses.
type boundedReader struct {
	src          func(repo, path string) ([]byte, bool)
	left, unread int
}

func (b *boundedReader) read(repo, path string) ([]byte, bool) {
	if b.left <= 0 {
		b.unread++
		return nil, false
	}
	text, ok := b.src(repo, path)
	b.left -= len(text)
	return text, ok
}

// overloadBody returns, of sym, a function or method declared with
// overload signatures (one declaration over all of them), the name of
// the declaration with the body, when that is not the first.
func overloadBody(sym graph.Symbol, lines [][]byte) []ValueImpl {
	t := tokenizeTS(lines, jsxFile(sym.Path))
	var decls []int
	body := -1
	for j, tok := range t.toks {
		if int(tok.line) > sym.EndLine-1 {
			break
		}
		if int(tok.line) < sym.StartLine-1 || !tok.ident || tok.text != sym.Name ||
			j == 0 || t.toks[j-1].text != "function" && !t.memberStart(j) {
			continue
		}
		if len(decls) > 0 && tok.encl != t.toks[decls[0]].encl {
			continue
		}
		n := j + 1
		if n < len(t.toks) && t.toks[n].text == "<" && t.toks[n].match > int32(n) {
			n = int(t.toks[n].match) + 1
		}
		if n >= len(t.toks) || t.toks[n].text != "(" || t.toks[n].match < 0 {
			continue
		}
		decls = append(decls, j)
		end := int(t.toks[n].match) + 1
		if end < len(t.toks) && t.toks[end].text == ":" {
			end = t.typeEnd(end)
		}
		if end >= 0 && end < len(t.toks) && t.toks[end].text == "{" {
			body = j
		}
	}
	if len(decls) < 2 || body <= decls[0] {
		return nil
	}
	tok := t.toks[body]
	return []ValueImpl{{Path: sym.Path, Line: int(tok.line) + 1, Col: utf8.RuneCount(lines[tok.line][:tok.off]) + 1,
		What: "implementation", How: "of the overload signatures", Enclosing: sym.Parent}}
}

// maxValueBytes bounds the source SyntaxImplementations reads for one
// answer: a type used across a monorepo is not read whole for it.
const maxValueBytes = 32 << 20

// maxValueScan bounds the tokens read from one use, forward or back, so
// that the work for a use is bounded whatever the file.
const maxValueScan = 512

// valuesOf finds, in each file of refs (a file's uses together, in the
// order of the uses), what find finds from the use at each token, each
// value once per file: the values a type's uses are part of the type of
// ((*tsTokens).values), the object literals' members a method's uses
// name (member), renamed imports (alias). src reads a file of a
// repository; false when it cannot be read.
func valuesOf(refs []graph.Ref, src func(repo, path string) ([]byte, bool), find func(*tsTokens, int) []value) []ValueImpl {
	var out []ValueImpl
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].Path == refs[i].Path && refs[j].Repository == refs[i].Repository {
			j++
		}
		if text, ok := src(refs[i].Repository, refs[i].Path); ok {
			out = append(out, fileValues(refs[i:j], bytes.Split(text, []byte("\n")), jsxFile(refs[i].Path), find)...)
		}
		i = j
	}
	return out
}

// fileValues finds the values of uses, all in one file of lines.
func fileValues(uses []graph.Ref, lines [][]byte, jsx bool, find func(*tsTokens, int) []value) []ValueImpl {
	t := tokenizeTS(lines, jsx)
	seen := map[int]bool{} // by the value's first token
	var out []ValueImpl
	for _, u := range uses {
		if u.Line < 1 || u.Line > len(lines) {
			continue
		}
		line := lines[u.Line-1]
		i := t.at(int32(u.Line-1), byteOffset(line, u.Col-1))
		if i < 0 || !t.toks[i].ident {
			continue
		}
		for _, v := range find(t, i) {
			if seen[v.tok] {
				continue
			}
			seen[v.tok] = true
			tok := t.toks[v.tok]
			out = append(out, ValueImpl{Path: u.Path, Line: int(tok.line) + 1, Col: utf8.RuneCount(lines[tok.line][:tok.off]) + 1,
				What: v.what, How: v.how, Enclosing: u.Enclosing})
		}
	}
	return out
}

// byteOffset returns the byte offset of character col (0-based) of line.
func byteOffset(line []byte, col int) int {
	off := 0
	for n := 0; n < col && off < len(line); n++ {
		_, size := utf8.DecodeRune(line[off:])
		off += size
	}
	return off
}

// value is a value found from a use: its first token, what it is and how
// it has the type.
type value struct {
	tok       int
	what, how string
}

// values returns the values the type the name at i is part of is the
// declared type of.
func (t *tsTokens) values(i int) []value {
	h := t.holder(i)
	if h < 0 {
		return nil
	}
	if t.toks[h].text == "as" {
		if v, ok := t.asserted(h - 1); ok {
			v.how = "asserted"
			return []value{v}
		}
		return nil
	}
	// The ':' of a declaration: what follows the type.
	end := t.typeEnd(h)
	if end < 0 {
		return nil
	}
	p := h - 1
	if t.toks[p].text == "?" || t.toks[p].text == "!" {
		p--
	}
	if t.toks[p].text == ")" {
		// A function's return type: what its body returns.
		name := t.functionName(int(t.toks[p].match))
		var out []value
		switch t.toks[end].text {
		case "=>":
			if b := end + 1; b < len(t.toks) && t.toks[b].text == "{" {
				out = t.returned(b) // a block, not an object literal
			} else if v, ok := t.implementation(end + 1); ok {
				out = append(out, v)
			}
		case "{":
			out = t.returned(end)
		}
		for k := range out {
			out[k].how = phrase("returned", "by", name)
		}
		return out
	}
	if t.toks[end].text != "=" {
		return nil
	}
	if v, ok := t.implementation(end + 1); ok {
		v.how = phrase("declared", "as", t.declaredName(p))
		return []value{v}
	}
	return nil
}

// alias returns the renamed specifier of an import or a re-export
// (`X as Y` in `import {…} from` or `export {…} from`) that the name at
// i is the X of; nil for any other use. The language server lists it
// among the implementations of what X names, unlike a module's own
// export under another name (`export { X as Y }`).
func (t *tsTokens) alias(i int) []value {
	n := i + 1
	if n+1 >= len(t.toks) || t.toks[n].text != "as" || !t.toks[n+1].ident || t.toks[n+1].text == t.toks[i].text {
		return nil
	}
	e := int(t.toks[i].encl)
	if e < 1 || t.toks[e].text != "{" || t.toks[e].match < 0 || !t.inClause(i) {
		return nil
	}
	if f := int(t.toks[e].match) + 1; f >= len(t.toks) || t.toks[f].text != "from" {
		return nil
	}
	return []value{{tok: i, what: "alias", how: "imported or exported as " + t.toks[n+1].text}}
}

// member returns the member of an object literal the name at i
// declares, a method or a property given a value; nil for any other
// use.
func (t *tsTokens) member(i int) []value {
	e := int(t.toks[i].encl)
	if e < 0 || t.toks[e].text != "{" || !t.objectLiteral(e) {
		return nil
	}
	p := i - 1
	for p > e && (t.toks[p].text == "async" || t.toks[p].text == "get" || t.toks[p].text == "set" || t.toks[p].text == "*") {
		p--
	}
	if p != e && t.toks[p].text != "," {
		return nil
	}
	n := i + 1
	if n < len(t.toks) && t.toks[n].text == "<" && t.toks[n].match > int32(n) {
		n = int(t.toks[n].match) + 1
	}
	if n >= len(t.toks) {
		return nil
	}
	switch t.toks[n].text {
	case "(":
		return []value{{tok: i, what: "method", how: "of an object literal"}}
	case ":":
		return []value{{tok: i, what: "property", how: "of an object literal"}}
	}
	return nil
}

// objectLiteral reports whether the '{' at e opens an object literal:
// where an operand is expected, not a block, a class's or an
// interface's body or an object type.
func (t *tsTokens) objectLiteral(e int) bool {
	if e == 0 || t.toks[e].jsxExpr {
		return false
	}
	switch p := t.toks[e-1]; p.text {
	case "=":
		return !t.typeAlias(e - 1)
	case "(", "[", "return", "?", "||", "&&", "??", "...", "yield", "await":
		return true
	case ",":
		return !t.inTypeArgs(e - 1)
	case ":":
		// A property's value in an object literal (not a label's or a
		// case's block).
		return p.encl >= 0 && t.toks[p.encl].text == "{" && t.objectLiteral(int(p.encl))
	}
	return false
}

// phrase is "verb prep name", or verb alone without a name.
func phrase(verb, prep, name string) string {
	if name == "" {
		return verb
	}
	return verb + " " + prep + " " + name
}

// holder walks out from the name at i through the type it is part of
// (qualified names, type arguments, unions, array, tuple, function and
// object types) and returns the token after which that type is written:
// the ':' of a declaration or of a function's return type, or an 'as'.
// -1 when the type is part of something else: a type alias, a type
// parameter, a call's type arguments, a heritage clause.
func (t *tsTokens) holder(i int) int {
	k := i
	for n := 0; n < maxValueScan; n++ {
		p := t.back(k)
		if p < 0 {
			// First of its group: the group is part of the type when it is
			// a type's arguments, a tuple or an indexed access, a
			// parenthesized type or a function type's parameters (whose
			// ':' came first), or an object type.
			e := int(t.toks[k].encl)
			if e < 0 || !t.typeGroup(e) {
				return -1
			}
			k = e
			continue
		}
		tok := t.toks[p]
		switch {
		case tok.text == ":":
			if e := int(tok.encl); e >= 0 && t.toks[e].text == "{" && t.objectType(e) {
				k = e // a member of an object type: the object type is the type
				continue
			}
			return t.declaration(p)
		case tok.text == "as":
			return p
		case tok.lit, tok.ident && (!keywords[tok.text] || typeWords[tok.text]),
			tok.text == "." || tok.text == "|" || tok.text == "&" || tok.text == "[" || tok.text == "(" || tok.text == "<" && tok.match >= 0,
			tok.text == "{" && t.objectType(p),
			tok.text == "," && (t.inTypeArgs(p) || tok.encl >= 0 && t.toks[tok.encl].text == "["):
			k = p
		case tok.text == "=>":
			if p > 0 && t.toks[p-1].text == ")" {
				k = p // a function type's result
				continue
			}
			return -1
		default:
			return -1
		}
	}
	return -1
}

// typeWords are the keywords a type may hold before a name in it.
var typeWords = map[string]bool{"typeof": true, "keyof": true, "readonly": true, "unique": true, "infer": true,
	"is": true, "asserts": true, "void": true}

// typeGroup reports whether the group opened at e, holding part of a
// type, is itself part of it.
func (t *tsTokens) typeGroup(e int) bool {
	switch t.toks[e].text {
	case "<":
		// A type's arguments, not a call's (f<T>(x)), nor type parameters
		// (function f<T>, class C<T>, <T>(x: T) => T).
		if t.toks[e].match < 0 || e == 0 || !t.toks[e-1].ident {
			return false
		}
		if n := int(t.toks[e].match) + 1; n < len(t.toks) && t.toks[n].text == "(" {
			return false
		}
		if p := e - 2; p >= 0 {
			switch t.toks[p].text {
			case "function", "class", "interface", "type":
				return false
			}
		}
		return true
	case "[", "(":
		return true
	case "{":
		return t.objectType(e)
	}
	return false
}

// objectType reports whether the '{' at e opens an object type: where a
// type starts.
func (t *tsTokens) objectType(e int) bool {
	if t.toks[e].jsxExpr || e == 0 {
		return false
	}
	switch p := t.toks[e-1]; p.text {
	case "|", "&", "<", "keyof", "readonly":
		// Not after '=>': a function's body far more often than a
		// function type's result.
		return true
	case ":":
		// `x: {…}` in a declaration or an object type, not a property of an
		// object literal.
		return t.declaration(e-1) >= 0 || p.encl >= 0 && t.toks[p.encl].text == "{" && t.objectType(int(p.encl))
	case ",":
		return t.inTypeArgs(e - 1)
	}
	return false
}

// declaration returns c, the ':' at c, when it is a declaration's type
// annotation (of a variable, property, parameter or destructuring, or a
// function's return type), -1 when it is not.
func (t *tsTokens) declaration(c int) int {
	p := c - 1
	if p < 0 {
		return -1
	}
	if t.toks[p].text == "?" || t.toks[p].text == "!" {
		p--
	}
	if p < 0 {
		return -1
	}
	tok := t.toks[p]
	switch {
	case tok.text == ")" || tok.text == "]" || tok.text == "}":
		if tok.match < 0 {
			return -1
		}
		if tok.text == ")" {
			return c // a return type
		}
		if q := int(tok.match) - 1; q >= 0 && (t.toks[q].text == "const" || t.toks[q].text == "let" || t.toks[q].text == "var" ||
			t.toks[q].text == "(" || t.toks[q].text == ",") {
			return c // a destructuring
		}
		if tok.text == "]" {
			return c // a computed key
		}
		return -1
	case tok.ident:
		// Not a ternary's answer or a case's label: a name after a
		// declaring word, a member's start, or a parameter.
		if q := p - 1; q >= 0 {
			switch t.toks[q].text {
			case "?", "case":
				return -1
			}
		}
		return c
	}
	return -1
}

// typeEnd returns the token that ends the type annotated after the ':'
// at c: '=', '=>' or '{' (what follows says what the type is of), or
// another token ending it; -1 past the bound.
func (t *tsTokens) typeEnd(c int) int {
	prev := c
	for j, n := c+1, 0; j < len(t.toks) && n < maxValueScan; n++ {
		tok := t.toks[j]
		complete := j > c+1 && typeEnds(t.toks[prev])
		switch tok.text {
		case "=", ",", ";", ")", "]", "}":
			return j
		case "=>":
			if t.toks[prev].text != ")" {
				return j // an arrow function's body (a function type's result follows its ')')
			}
		case "{":
			if complete {
				return j // a function's body
			}
		}
		if complete && tok.line > t.toks[prev].line && tok.ident && !keywords[tok.text] {
			return j // a new statement
		}
		prev = j
		if m := int(tok.match); m > j {
			j = m // a group of the type
			prev = j
		}
		j++
	}
	return -1
}

// typeEnds reports whether tok may end a type.
func typeEnds(tok tsToken) bool {
	switch {
	case tok.lit, tok.ident && !keywords[tok.text]:
		return true
	}
	switch tok.text {
	case ">", "]", ")", "}", "void":
		return true
	}
	return false
}

// implementation reports whether the expression starting at q is one the
// language server counts as implementing a type: an object or array
// literal, a function or arrow function, a class expression, or one of
// them in parentheses (counted from the '(').
func (t *tsTokens) implementation(q int) (value, bool) {
	if q >= len(t.toks) {
		return value{}, false
	}
	tok := t.toks[q]
	switch tok.text {
	case "{":
		if !tok.jsxExpr {
			return value{tok: q, what: "object literal"}, true
		}
	case "[":
		return value{tok: q, what: "array literal"}, true
	case "function":
		return value{tok: q, what: "function"}, true
	case "class":
		return value{tok: q, what: "class expression"}, true
	case "async":
		if n := q + 1; n < len(t.toks) && (t.toks[n].text == "function" || t.arrow(n)) {
			return value{tok: q, what: "function"}, true
		}
	case "(":
		if t.arrow(q) {
			return value{tok: q, what: "function"}, true
		}
		if v, ok := t.implementation(q + 1); ok && tok.match >= 0 && t.closes(v, int(tok.match)) {
			return value{tok: q, what: v.what}, true
		}
	case "<":
		if m := int(tok.match); m > q && t.arrow(m+1) {
			return value{tok: q, what: "function"}, true // <T>(x: T) => …
		}
	default:
		if t.name(q) && t.arrow(q) {
			return value{tok: q, what: "function"}, true
		}
	}
	return value{}, false
}

// arrow reports whether an arrow function starts at q: its parameters
// (a name, or a group with an optional return type) and '=>'.
func (t *tsTokens) arrow(q int) bool {
	if q >= len(t.toks) {
		return false
	}
	n := q + 1
	if t.toks[q].text == "(" {
		if t.toks[q].match < 0 {
			return false
		}
		n = int(t.toks[q].match) + 1
		if n < len(t.toks) && t.toks[n].text == ":" {
			e := t.typeEnd(n)
			return e >= 0 && t.toks[e].text == "=>"
		}
	} else if !t.name(q) {
		return false
	}
	return n < len(t.toks) && t.toks[n].text == "=>"
}

// closes reports whether the value v ends right before the token at
// end: an object or array literal, or a parenthesized one, that nothing
// follows (a function may have anything after its start).
func (t *tsTokens) closes(v value, end int) bool {
	switch t.toks[v.tok].text {
	case "{", "[", "(":
		return v.what == "function" || v.what == "class expression" || int(t.toks[v.tok].match) == end-1
	}
	return true
}

// asserted returns the value asserted to be of a type: the expression
// ending at p, right before an 'as'.
func (t *tsTokens) asserted(p int) (value, bool) {
	if p < 0 || t.toks[p].match < 0 || int(t.toks[p].match) > p {
		return value{}, false
	}
	m := int(t.toks[p].match)
	if m > 0 {
		// A call's arguments, an element read, a function's body: no
		// literal.
		switch q := t.toks[m-1]; {
		case q.text == ")" || q.text == "]" || q.text == "=>" || t.name(m-1) || q.lit:
			return value{}, false
		}
	}
	v, ok := t.implementation(m)
	return v, ok && v.tok == m && t.closes(v, p+1)
}

// returned returns the values a function body opened at b returns, as
// the language server reads them: the return statements of its
// statements, nested blocks included, not those of the functions in it.
func (t *tsTokens) returned(b int) []value {
	end := int(t.toks[b].match)
	if end < 0 {
		return nil
	}
	var out []value
	for j := b + 1; j < end && j-b < 64*maxValueScan; j++ {
		if t.toks[j].text != "return" || !t.statementOf(j, b) {
			continue
		}
		if n := j + 1; n < end && t.toks[n].line == t.toks[j].line {
			if v, ok := t.implementation(n); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// statementOf reports whether the token at j is a statement of the body
// opened at b: every group between them a block of statements.
func (t *tsTokens) statementOf(j, b int) bool {
	for e := int(t.toks[j].encl); e != b; e = int(t.toks[e].encl) {
		if e < 0 || t.toks[e].text != "{" || !t.block(e) {
			return false
		}
	}
	return true
}

// block reports whether the '{' at e opens a block of statements within
// a function: after if (…), for (…), while (…), switch (…), catch (…),
// else, try, finally, do, a label or case, or another statement.
func (t *tsTokens) block(e int) bool {
	if e == 0 {
		return false
	}
	p := t.toks[e-1]
	switch p.text {
	case "else", "try", "finally", "do", ";", "{", "}", ":":
		return true
	case ")":
		if m := int(p.match); m > 0 {
			switch t.toks[m-1].text {
			case "if", "for", "while", "switch", "catch", "with":
				return true
			}
		}
	}
	return false
}

// functionName returns the name of the function whose parameters open
// at o: the name before them (or before its type parameters), or that of
// the variable or property an arrow function is assigned to; "" when
// there is none.
func (t *tsTokens) functionName(o int) string {
	p := o - 1
	if p >= 0 && t.toks[p].text == ">" && t.toks[p].match >= 0 {
		p = int(t.toks[p].match) - 1
	}
	if p >= 0 && t.toks[p].text == "async" {
		return t.functionName(p)
	}
	if p >= 0 && t.toks[p].ident && !keywords[t.toks[p].text] {
		return t.toks[p].text
	}
	if p >= 0 && (t.toks[p].text == "=" || t.toks[p].text == ":") {
		return t.declaredName(p - 1)
	}
	return ""
}

// declaredName returns the name at p of a declaration (a variable,
// property or parameter), past a type annotation between it and p;
// "" for a destructuring.
func (t *tsTokens) declaredName(p int) string {
	for k, n := p, 0; k >= 0 && n < maxValueScan; k, n = t.back(k), n+1 {
		tok := t.toks[k]
		if tok.ident && !keywords[tok.text] && (k == 0 || t.toks[k-1].text != "." && t.toks[k-1].text != ":" && t.toks[k-1].text != "|" && t.toks[k-1].text != "&") {
			if k+1 < len(t.toks) && (t.toks[k+1].text == ":" || t.toks[k+1].text == "=" || t.toks[k+1].text == "?" || t.toks[k+1].text == "!") {
				return tok.text
			}
		}
		switch tok.text {
		case ";", "{", "}", "(", ",", "const", "let", "var":
			return ""
		}
	}
	return ""
}
