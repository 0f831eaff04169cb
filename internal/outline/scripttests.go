package outline

import (
	"regexp"
	"strings"
)

// TestBlock is a describe, it or test call of a TypeScript or
// JavaScript test file (jest, vitest, mocha), named by its first
// argument, a string literal.
type TestBlock struct {
	Name          string // the string literal's value
	Suite         bool   // a describe: the tests it holds run under its name
	Skipped       bool   // .skip, .todo, xit, xdescribe: runs nothing
	Each          bool   // a table's (test.each): Name has its placeholders (%s, $a)
	Line, EndLine int    // the lines of the call, 1-based
	Parent        int    // the enclosing describe's index, -1 at the top level
}

// testCall is the start of a test block's call, read at an identifier:
// the function, its modifiers (describe.only, it.concurrent) and the
// opening of the first argument, a string or template literal.
var testCall = regexp.MustCompile("^(x?describe|suite|x?it|x?test)((?:\\.(?:only|skip|concurrent|sequential|todo))*)\\s*\\(\\s*(['\"`])")

// testEach is the start of a table's test block (test.each(table)(name,
// fn), describe.each`table`(name, fn)): up to the table's opening.
var testEach = regexp.MustCompile("^(x?describe|suite|x?it|x?test)((?:\\.(?:only|skip|concurrent|sequential))*)\\.each\\s*([(`])")

// eachName is the opening of a table block's name, after its table.
var eachName = regexp.MustCompile("^\\s*\\(\\s*(['\"`])")

// ScriptTests lists the test blocks of a TypeScript or JavaScript file
// from its source alone, outer before inner, in the order they start:
// the calls of describe, it and test (suite too, vitest's describe)
// whose first argument is a string literal, with the lines up to their
// closing parenthesis; a table's (test.each(table)(name, fn)) too, its
// name with its placeholders. A template literal with a substitution
// names no block. Comments and strings are skipped; a regular expression
// literal holding a bracket may end a block early. Its work is linear in
// the size of src, but for tables' names, each looked for after its table.
func ScriptTests(src []byte) []TestBlock {
	s := string(src)
	var blocks []TestBlock
	type open struct {
		c     byte // '(', '[', '{', or '$' for a template's ${
		block int  // the block this parenthesis ends, -1 for none
	}
	var stack []open
	pending := map[int]TestBlock{} // a table's block, by the offset of its name's parenthesis
	line := 1
	inner := func() int { // the innermost open describe
		for i := len(stack) - 1; i >= 0; i-- {
			if b := stack[i].block; b >= 0 && blocks[b].Suite {
				return b
			}
		}
		return -1
	}
	// skipString moves past the rest of a string quoted by q from i (after
	// its quote, or after the } ending a template's substitution),
	// returning the index after it, or after the ${ of a substitution.
	skipString := func(i int, q byte) int {
		for ; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case q:
				return i + 1
			case '\n':
				line++
				if q != '`' {
					return i + 1 // unterminated: the line ends it
				}
			case '$':
				if q == '`' && i+1 < len(s) && s[i+1] == '{' {
					stack = append(stack, open{c: '$', block: -1})
					return i + 2
				}
			}
		}
		return i
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				end = len(s) - i - 2
			}
			line += strings.Count(s[i:i+2+end], "\n")
			i += end + 4
		case c == '\'' || c == '"' || c == '`':
			i = skipString(i+1, c)
		case c == '(' || c == '[' || c == '{':
			b := -1
			if tb, ok := pending[i]; ok && c == '(' {
				tb.Line, tb.EndLine, tb.Parent = line, line, inner()
				b = len(blocks)
				blocks = append(blocks, tb)
			}
			stack = append(stack, open{c: c, block: b})
			i++
		case c == ')' || c == ']' || c == '}':
			if n := len(stack); n > 0 {
				top := stack[n-1]
				stack = stack[:n-1]
				if top.block >= 0 {
					blocks[top.block].EndLine = line
				}
				if top.c == '$' && c == '}' {
					// Back in the template literal: skip to its end or
					// its next substitution.
					i = skipString(i+1, '`')
					continue
				}
			}
			i++
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			prev := byte(0)
			for k := i - 1; k >= 0; k-- {
				if s[k] != ' ' && s[k] != '\t' {
					prev = s[k]
					break
				}
			}
			if prev == '.' || prev == '#' {
				i = j
				continue
			}
			if m := testEach.FindStringSubmatchIndex(s[i:min(len(s), i+200)]); m != nil {
				end := balancedEnd(s, i+m[6])
				if n := eachName.FindStringSubmatchIndex(s[end:min(len(s), end+200)]); n != nil {
					if name, ok := literalValue(s[end+n[2]:]); ok {
						fn, mods := s[i+m[2]:i+m[3]], s[i+m[4]:i+m[5]]
						pending[end+strings.IndexByte(s[end:], '(')] = TestBlock{Name: name, Suite: strings.HasSuffix(fn, "describe") || fn == "suite",
							Skipped: fn[0] == 'x' || strings.Contains(mods, ".skip"), Each: true}
					}
				}
				i = j
				continue
			}
			m := testCall.FindStringSubmatchIndex(s[i:min(len(s), i+200)])
			if m == nil {
				i = j
				continue
			}
			name, ok := literalValue(s[i+m[6]:])
			fn := s[i+m[2] : i+m[3]]
			paren := i + strings.IndexByte(s[i:i+m[6]], '(')
			line += strings.Count(s[i:paren], "\n")
			b := -1
			if ok {
				b = len(blocks)
				mods := s[i+m[4] : i+m[5]]
				blocks = append(blocks, TestBlock{Name: name, Suite: strings.HasSuffix(fn, "describe") || fn == "suite", Line: line, EndLine: line, Parent: inner(),
					Skipped: fn[0] == 'x' || strings.Contains(mods, ".skip") || strings.Contains(mods, ".todo")})
			}
			stack = append(stack, open{c: '(', block: b})
			i = paren + 1
		default:
			i++
		}
	}
	return blocks
}

// balancedEnd is the offset after the bracketed expression or template
// literal that opens at s[i], strings and templates skipped; len(s) when
// it does not close.
func balancedEnd(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth <= 0 {
				return i + 1
			}
		case '\'', '"', '`':
			for i++; i < len(s) && s[i] != c && (c == '`' || s[i] != '\n'); i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return min(i+1, len(s)) // the table is a template literal
			}
		}
	}
	return len(s)
}

// literalValue is the value of the string literal s starts with, when
// it has no substitution and ends on its line (a template may span
// lines).
func literalValue(s string) (string, bool) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == q:
			return b.String(), true
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\n':
			default:
				b.WriteByte(s[i])
			}
		case c == '\n' && q != '`':
			return "", false
		case c == '$' && q == '`' && i+1 < len(s) && s[i+1] == '{':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// FullName is the names of block i and the describes around it, outer
// first, joined by sep.
func FullName(blocks []TestBlock, i int, sep string) string {
	var names []string
	for ; i >= 0; i = blocks[i].Parent {
		names = append(names, blocks[i].Name)
	}
	for l, r := 0, len(names)-1; l < r; l, r = l+1, r-1 {
		names[l], names[r] = names[r], names[l]
	}
	return strings.Join(names, sep)
}
