package scipindex

import (
	"bytes"

	"github.com/sextant-dev/sextant/internal/scip"
)

// moduleExports reads a TypeScript or JavaScript file's tokens for what
// it exports: whether it is a module (an export anywhere; a script or a
// CommonJS file has none, and what it exports cannot be told from its
// declarations), and the local names its export clauses name
// (`export { a, b as c }` without a `from`, `export default a`,
// `export = a`).
func moduleExports(t *tsTokens) (module bool, names map[string]bool) {
	names = map[string]bool{}
	toks := t.toks
	for i := 0; i < len(toks); i++ {
		if !toks[i].ident || toks[i].text != "export" {
			continue
		}
		module = true
		if i+1 >= len(toks) {
			break
		}
		switch next := toks[i+1]; {
		case next.text == "{" && next.match > int32(i+1):
			end := int(next.match)
			if end+1 < len(toks) && toks[end+1].ident && toks[end+1].text == "from" {
				continue // a re-export of another module's names
			}
			for j := i + 2; j < end; j++ {
				// The local name starts each specifier: a, b as c.
				if toks[j].ident && (j == i+2 || toks[j-1].text == ",") && toks[j].text != "type" {
					names[toks[j].text] = true
				} else if toks[j].ident && toks[j-1].ident && toks[j-1].text == "type" && (j-1 == i+2 || toks[j-2].text == ",") {
					names[toks[j].text] = true // export { type T }
				}
			}
		case next.ident && next.text == "default" || next.text == "=":
			// The name alone, its statement ended (by a semicolon or a
			// line): an expression exports a value, no declaration.
			if i+2 < len(toks) && toks[i+2].ident && (i+3 == len(toks) || toks[i+3].text == ";" || toks[i+3].line > toks[i+2].line) {
				names[toks[i+2].text] = true
			}
		}
	}
	return module, names
}

// writtenExported reports whether the declaration whose name starts at
// byte off of line is written `export …`: what precedes the name on its
// line starts with the word export.
func writtenExported(line []byte, off int) bool {
	before := bytes.TrimLeft(line[:min(off, len(line))], " \t")
	rest, ok := bytes.CutPrefix(before, []byte("export"))
	return ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t')
}

// namedDef is a script's definition with where its name starts (its
// line, and its byte offset there), for what its tokens say of it.
type namedDef struct {
	*def
	line int32
	off  int
}

// topLevel reports whether a symbol is declared at a module's top level:
// one descriptor past its namespaces (the module's path).
func topLevel(s scip.Symbol) bool {
	n := 0
	for _, d := range s.Descriptors {
		if d.Suffix != scip.SuffixNamespace {
			n++
		}
	}
	return n == 1
}
