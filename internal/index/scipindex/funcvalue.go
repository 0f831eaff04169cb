package scipindex

import "strings"

// functionValue reports whether a TypeScript or JavaScript variable's
// declaration, text (its declarator as its enclosing range spells it:
// "cors = (options) => {…}"), gives it a function: an arrow function or
// a function expression, after any type annotation. Such a const is how
// most of a modern TypeScript API is written (hono's middleware, zod's
// schema constructors), and scip-typescript calls it a variable: it is a
// function to its callers, its callees and a search in words.
//
// A variable whose initializer is anything else is not, even when its
// type is a function type (const parse: $Parse = _parse(Err)): what runs
// in the initializer runs once, when the module loads, not when the
// function is called.
func functionValue(text, name string) bool {
	rest, ok := strings.CutPrefix(text, name)
	if !ok || rest != "" && isIdentByte(rest[0]) {
		return false
	}
	rest = strings.TrimLeft(rest, " \t\r\n!")
	if strings.HasPrefix(rest, ":") {
		// The annotation ends at the "=" outside its brackets.
		i := scanTo(rest[1:], func(s string) bool {
			return s[0] == '=' && !strings.HasPrefix(s, "=>") && !strings.HasPrefix(s, "==")
		})
		if i < 0 {
			return false
		}
		rest = rest[1+i:]
	}
	rest, ok = strings.CutPrefix(rest, "=")
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	if r, ok := strings.CutPrefix(rest, "async"); ok && r != "" && !isIdentByte(r[0]) {
		rest = strings.TrimSpace(r)
	}
	if r, ok := strings.CutPrefix(rest, "function"); ok && (r == "" || !isIdentByte(r[0])) {
		return true
	}
	// An arrow function: its type parameters, then its parameters (one
	// bare name, or a list), then its return type, then "=>".
	if strings.HasPrefix(rest, "<") {
		i := scanTo(rest[1:], func(s string) bool { return s[0] == '>' })
		if i < 0 {
			return false
		}
		rest = strings.TrimSpace(rest[1+i+1:])
	}
	switch {
	case strings.HasPrefix(rest, "("):
		i := scanTo(rest[1:], func(s string) bool { return s[0] == ')' })
		if i < 0 {
			return false
		}
		rest = rest[1+i+1:]
	case rest != "" && isIdentByte(rest[0]) && (rest[0] < '0' || rest[0] > '9'):
		n := 0
		for n < len(rest) && isIdentByte(rest[n]) {
			n++
		}
		rest = rest[n:]
	default:
		return false
	}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, ":") {
		return scanTo(rest[1:], func(s string) bool { return strings.HasPrefix(s, "=>") }) >= 0
	}
	return strings.HasPrefix(rest, "=>")
}

// declarator returns text from the first whole word name in it: a
// declaration's text from its declarator ("export const cors = …" gives
// "cors = …"), "" when name is not in it.
func declarator(text, name string) string {
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return ""
		}
		i += from
		end := i + len(name)
		if (i == 0 || !isIdentByte(text[i-1])) && (end == len(text) || !isIdentByte(text[end])) {
			return text[i:]
		}
		from = end
	}
}

// scanTo returns the offset in s of the first place, outside brackets
// and quotes, where stop holds, or -1. A closing bracket with none open
// ends the scan, unless stop holds there first (the ">" or ")" that
// closes what the caller opened).
func scanTo(s string, stop func(string) bool) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case depth == 0 && stop(s[i:]):
			return i
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '{' || c == '<':
			depth++
		case c == '>' && i > 0 && s[i-1] == '=':
			// The arrow of a function type, no bracket.
		case c == ')' || c == ']' || c == '}' || c == '>':
			if depth == 0 {
				return -1
			}
			depth--
		}
	}
	return -1
}
