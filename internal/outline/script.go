package outline

import (
	"context"
	"path"
	"regexp"
	"strings"
)

// ParseScript lists the declarations of a TypeScript, JavaScript or
// Python file (lang is "typescript", "javascript" or "python") from its
// source alone: the outline of a file edited since its indexer last ran,
// which the snapshot does not hold yet. It reads declarations as they
// are written, line by line, without a parser: top-level functions,
// classes, interfaces, types, enums and variables (Python: def and
// class), and the methods and fields of classes and interfaces, with the
// kinds the SCIP importer gives them. Comments and strings are skipped; a
// regular expression literal holding a brace may end a declaration early.
// Its work is linear in the size of src, and it stops when ctx is done.
func ParseScript(ctx context.Context, rel string, src []byte, lang string) (File, error) {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	of := File{Path: rel, Lines: strings.Count(string(src), "\n"), Entries: []Entry{}}
	if len(src) > 0 && src[len(src)-1] != '\n' {
		of.Lines++
	}
	if d := path.Dir(rel); d != "." {
		of.Package = path.Base(d)
	}
	if err := ctx.Err(); err != nil {
		return of, err
	}
	if lang == "python" {
		of.Entries = pythonEntries(lines)
	} else {
		of.Entries = scriptEntries(lines)
	}
	return of, ctx.Err()
}

var (
	tsDecl   = regexp.MustCompile(`^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(function\s*\*?|class|interface|type|enum|const|let|var|namespace|module)\s+([A-Za-z_$][\w$]*)`)
	tsMember = regexp.MustCompile(`^(?:(?:public|private|protected|static|readonly|abstract|async|override|declare|get|set)\s+)*(#?[A-Za-z_$][\w$]*)\s*[?!]?\s*([(<:=;]|$)`)
	pyDecl   = regexp.MustCompile(`^(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)`)
)

// tsLine is what the scanner knows of a line: the brace depth at its
// start and end, and whether it starts in code (not in a comment or a
// string).
type tsLine struct {
	depth, endDepth, maxDepth int
	code                      bool
}

// scanScript follows braces through lines, skipping comments, strings
// and template literals (with their ${} parts, which are code).
func scanScript(lines []string) []tsLine {
	out := make([]tsLine, len(lines))
	depth := 0
	var modes []byte // stack: '*' block comment, '`' template, '}' code inside ${}; quote strings end with their line
	var at []int     // the depth at which each '}' of modes opened
	for i, l := range lines {
		out[i] = tsLine{depth: depth, maxDepth: depth, code: len(modes) == 0 || modes[len(modes)-1] == '}'}
		quote := byte(0)
		for j := 0; j < len(l); j++ {
			c := l[j]
			top := byte(0)
			if len(modes) > 0 {
				top = modes[len(modes)-1]
			}
			switch {
			case quote != 0:
				if c == '\\' {
					j++
				} else if c == quote {
					quote = 0
				}
			case top == '*':
				if c == '*' && j+1 < len(l) && l[j+1] == '/' {
					modes = modes[:len(modes)-1]
					j++
				}
			case top == '`':
				switch {
				case c == '\\':
					j++
				case c == '`':
					modes = modes[:len(modes)-1]
				case c == '$' && j+1 < len(l) && l[j+1] == '{':
					modes, at = append(modes, '}'), append(at, depth)
					j++
				}
			default:
				switch c {
				case '/':
					if j+1 < len(l) && l[j+1] == '/' {
						j = len(l)
					} else if j+1 < len(l) && l[j+1] == '*' {
						modes = append(modes, '*')
						j++
					}
				case '\'', '"':
					quote = c
				case '`':
					modes = append(modes, '`')
				case '{':
					depth++
					out[i].maxDepth = max(out[i].maxDepth, depth)
				case '}':
					if top == '}' && depth == at[len(at)-1] {
						modes, at = modes[:len(modes)-1], at[:len(at)-1]
					} else if depth > 0 {
						depth--
					}
				}
			}
		}
		out[i].endDepth = depth
	}
	return out
}

// scriptEntries outlines TypeScript or JavaScript lines.
func scriptEntries(lines []string) []Entry {
	scan := scanScript(lines)
	var entries []Entry
	for i := 0; i < len(lines); i++ {
		if !scan[i].code || scan[i].depth != 0 {
			continue
		}
		text := strings.TrimSpace(lines[i])
		m := tsDecl.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		word := strings.TrimSpace(strings.TrimRight(m[1], "*"))
		kind := map[string]string{"function": "func", "class": "type", "interface": "interface", "type": "type",
			"enum": "type", "const": "const", "let": "var", "var": "var", "namespace": "type", "module": "type"}[word]
		end := endOf(scan, i, 0, word != "const" && word != "let" && word != "var" && word != "type")
		e := Entry{Name: m[2], Kind: kind, Decl: Decl{Signature: signatureLine(text), StartLine: i + 1, EndLine: end + 1,
			Exported: strings.HasPrefix(text, "export")}}
		if word == "class" || word == "interface" {
			e.Members = scriptMembers(lines, scan, i, end, word == "interface")
		}
		entries = append(entries, e)
		i = end
	}
	return entries
}

// scriptMembers outlines the members of the class or interface on lines
// from to to.
func scriptMembers(lines []string, scan []tsLine, from, to int, iface bool) []Member {
	var ms []Member
	for i := from + 1; i < to; i++ {
		if !scan[i].code || scan[i].depth != 1 {
			continue
		}
		text := strings.TrimSpace(lines[i])
		m := tsMember.FindStringSubmatch(text)
		if m == nil || m[1] == "" {
			continue
		}
		kind := "field"
		if m[2] == "(" || m[2] == "<" {
			kind = "method"
			if iface {
				kind = "interface_method"
			}
		}
		end := endOf(scan, i, 1, kind == "method")
		ms = append(ms, Member{Name: m[1], Kind: kind, Decl: Decl{Signature: signatureLine(text), StartLine: i + 1, EndLine: end + 1,
			Exported: !strings.HasPrefix(text, "private") && !strings.HasPrefix(m[1], "#")}})
		if m[1] == "constructor" && !iface {
			ms = append(ms, parameterProperties(lines, i, end)...)
		}
		i = end
	}
	return ms
}

// tsParamProperty is a constructor's parameter that declares a field:
// one with an accessibility or readonly modifier.
var tsParamProperty = regexp.MustCompile(`^(?:(?:public|private|protected|readonly|override)\s+)+([A-Za-z_$][\w$]*)\s*[?:=,)]?`)

// parameterProperties lists the fields a constructor on lines from to to
// declares with its parameters (constructor(private readonly x: T)), as
// the SCIP importer gives them: fields of the class, at their lines.
func parameterProperties(lines []string, from, to int) []Member {
	var ms []Member
	depth := 0     // of brackets, the parameter list's at 1
	start := false // a parameter starts at the next character that is not a space
	for i := from; i <= to && i < len(lines); i++ {
		l := lines[i]
		for j := 0; j < len(l); j++ {
			c := l[j]
			if start && depth == 1 && c != ' ' && c != '\t' {
				start = false
				param := l[j:]
				if m := tsParamProperty.FindStringSubmatch(param); m != nil {
					ms = append(ms, Member{Name: m[1], Kind: "field", Decl: Decl{Signature: signatureLine(strings.TrimRight(param, ",){ ")), StartLine: i + 1, EndLine: i + 1,
						Exported: !strings.HasPrefix(param, "private") && !strings.HasPrefix(param, "protected")}})
				}
			}
			switch c {
			case '(', '[', '{', '<':
				depth++
				start = depth == 1
			case ',':
				start = depth == 1
			case ')', ']', '}', '>':
				if c == '>' && j > 0 && l[j-1] == '=' {
					continue // an arrow in a default value
				}
				if depth--; depth == 0 {
					return ms
				}
			}
		}
	}
	return ms
}

// endOf is the last line of the declaration starting on line i at depth
// d: the first line from i whose end is back at depth d, after a brace
// has opened when the declaration has a body.
func endOf(scan []tsLine, i, d int, body bool) int {
	opened := !body
	for j := i; j < len(scan); j++ {
		opened = opened || scan[j].maxDepth > d
		if opened && scan[j].endDepth <= d {
			return j
		}
	}
	return len(scan) - 1
}

// signatureLine is a declaration's first line without its body's brace.
func signatureLine(text string) string {
	text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "{"))
	return strings.TrimSuffix(text, ";")
}

// pythonEntries outlines Python lines: def and class at the top level,
// the def of each class's body as its methods.
func pythonEntries(lines []string) []Entry {
	code := pythonCode(lines)
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	// end is the last line of the block that starts on line i.
	end := func(i int) int {
		last := i
		for j := i + 1; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if code[j] && indent(lines[j]) <= indent(lines[i]) {
				break
			}
			last = j
		}
		return last
	}
	var entries []Entry
	for i := 0; i < len(lines); i++ {
		if !code[i] || indent(lines[i]) != 0 {
			continue
		}
		m := pyDecl.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		last := end(i)
		e := Entry{Name: m[2], Kind: "func", Decl: Decl{Signature: strings.TrimSuffix(strings.TrimSpace(lines[i]), ":"), StartLine: i + 1, EndLine: last + 1,
			Exported: !strings.HasPrefix(m[2], "_")}}
		if m[1] == "class" {
			e.Kind = "type"
			body := -1
			for j := i + 1; j <= last; j++ {
				t := strings.TrimSpace(lines[j])
				if !code[j] || t == "" || strings.HasPrefix(t, "#") {
					continue
				}
				if body < 0 {
					body = indent(lines[j])
				}
				if indent(lines[j]) != body {
					continue
				}
				if mm := pyDecl.FindStringSubmatch(t); mm != nil && mm[1] == "def" {
					mend := end(j)
					e.Members = append(e.Members, Member{Name: mm[2], Kind: "method", Decl: Decl{Signature: strings.TrimSuffix(t, ":"),
						StartLine: j + 1, EndLine: mend + 1, Exported: !strings.HasPrefix(mm[2], "_") || strings.HasSuffix(mm[2], "__")}})
				}
			}
		}
		entries = append(entries, e)
		i = last
	}
	return entries
}

// pythonCode reports for each line whether it starts in code: not inside
// a triple-quoted string or a bracket opened on an earlier line.
func pythonCode(lines []string) []bool {
	code := make([]bool, len(lines))
	var triple string
	depth := 0
	for i, l := range lines {
		code[i] = triple == "" && depth == 0
		for j := 0; j < len(l); j++ {
			if triple != "" {
				if strings.HasPrefix(l[j:], triple) {
					j += 2
					triple = ""
				}
				continue
			}
			switch c := l[j]; c {
			case '#':
				j = len(l)
			case '"', '\'':
				if strings.HasPrefix(l[j:], strings.Repeat(string(c), 3)) {
					triple = strings.Repeat(string(c), 3)
					j += 2
					continue
				}
				for j++; j < len(l) && l[j] != c; j++ {
					if l[j] == '\\' {
						j++
					}
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
			}
		}
	}
	return code
}
