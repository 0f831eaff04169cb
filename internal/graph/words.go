package graph

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SearchWords splits identifiers and paths into the lower-case words a
// person would type: camel case, digits, underscores, dots and slashes
// separate words ("parseHTTPConfig_v2" → parse, http, config, v, 2), and
// an identifier of several words is also kept whole ("parsehttpconfigv2"),
// so a search for the joined spelling finds it too. Backends index these
// words for TextQuery, and search_code splits questions the same way.
func SearchWords(s string) []string {
	var words []string
	for _, field := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		parts := splitCamel(field)
		for _, p := range parts {
			words = append(words, strings.ToLower(p))
		}
		if len(parts) > 1 {
			words = append(words, strings.ToLower(field))
		}
	}
	return words
}

// splitCamel splits one alphanumeric run at case and digit boundaries; an
// upper-case run followed by a lower-case letter ends before its last
// letter (HTTPServer → HTTP, Server).
func splitCamel(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		split := false
		switch {
		case unicode.IsLower(prev) && unicode.IsUpper(cur):
			split = true
		case unicode.IsDigit(prev) != unicode.IsDigit(cur):
			split = true
		case unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			split = true
		}
		if split {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// abbreviations maps abbreviations common in Go identifiers to the words a
// person types for them.
var abbreviations = map[string]string{
	"cmd": "command", "gen": "generate", "fn": "function", "func": "function", "init": "initialize",
	"arg": "argument", "args": "arguments", "str": "string", "pkg": "package", "pkgs": "packages",
	"dir": "directory", "dirs": "directories", "info": "information", "cfg": "config", "conf": "config",
	"err": "error", "errs": "errors", "ctx": "context", "msg": "message", "src": "source", "dst": "destination",
	"req": "request", "resp": "response", "repo": "repository", "env": "environment", "exec": "execute",
	"impl": "implementation", "iface": "interface", "decl": "declaration", "decls": "declarations",
	"expr": "expression", "stmt": "statement", "ident": "identifier", "sig": "signature", "typ": "type",
	"buf": "buffer", "len": "length", "num": "number", "param": "parameter", "params": "parameters",
	"spec": "specification", "tmp": "temporary", "addr": "address", "alloc": "allocate", "calc": "calculate",
	"cnt": "count", "del": "delete", "doc": "documentation", "docs": "documentation", "db": "database",
	"fmt": "format", "gc": "garbage", "ld": "levenshtein", "def": "definition", "defs": "definitions",
	"ref": "reference", "refs": "references", "obj": "object", "objs": "objects", "pos": "position",
	"prog": "program", "val": "value", "vals": "values", "var": "variable", "vars": "variables",
}

// ExpandAbbreviations returns words followed by the full words of the
// abbreviations among them (cmd → command), so an identifier written
// tersely is found by the words of a question.
func ExpandAbbreviations(words []string) []string {
	out := words
	for _, w := range words {
		if full, ok := abbreviations[w]; ok {
			out = append(out, full)
		}
	}
	return out
}

// AppendSearchText appends strings.Join(SearchWords(s), " ") to dst
// without the intermediate strings: backends index whole bodies of code
// this way, and for those the words cost more than the index did. Fields
// of ASCII letters and digits take a byte path; any other field is split
// as SearchWords splits it.
func AppendSearchText(dst []byte, s string) []byte {
	first := true
	word := func(w string) {
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		for i := 0; i < len(w); i++ {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if !isWordRune(r) {
			i += size
			continue
		}
		j, ascii := i, true
		for j < len(s) {
			r, size := rune(s[j]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[j:])
				ascii = false
			}
			if !isWordRune(r) {
				break
			}
			j += size
		}
		field := s[i:j]
		i = j
		if !ascii {
			for _, w := range SearchWords(field) {
				if !first {
					dst = append(dst, ' ')
				}
				first = false
				dst = append(dst, w...)
			}
			continue
		}
		// splitCamel on bytes: the same boundaries for ASCII.
		start, parts := 0, 0
		for k := 1; k < len(field); k++ {
			prev, cur := field[k-1], field[k]
			if isLowerASCII(prev) && isUpperASCII(cur) ||
				isDigitASCII(prev) != isDigitASCII(cur) ||
				isUpperASCII(prev) && isUpperASCII(cur) && k+1 < len(field) && isLowerASCII(field[k+1]) {
				word(field[start:k])
				start = k
				parts++
			}
		}
		word(field[start:])
		if parts > 0 {
			word(field)
		}
	}
	return dst
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigitASCII(c byte) bool { return '0' <= c && c <= '9' }
