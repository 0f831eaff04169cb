package main

import (
	"cmp"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// benchSymbol is one symbol of the index both sides are asked about.
type benchSymbol struct {
	Key       string `json:"stable_key"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Qualified string `json:"qualified_name"`
	Path      string `json:"path"`
	// Line and Col are where its declaring identifier is: 1-based line,
	// 1-based column in characters.
	Line int `json:"line"`
	Col  int `json:"col"`
	// Refs is how many uses the index records (for the popular pick).
	Refs      int `json:"refs,omitempty"`
	startLine int
	endLine   int
}

// eligible reports whether a symbol belongs to the corpus's root module,
// outside test files and testdata, where gopls with the root as its
// workspace sees it.
func eligible(s graph.Symbol, module string) bool {
	return s.ModulePath == module && !s.TestOnly && !strings.HasSuffix(s.Path, "_test.go") &&
		!strings.Contains("/"+s.Path, "/testdata/") && s.Name != "_"
}

func toBench(s graph.Symbol) benchSymbol {
	return benchSymbol{Key: s.Key, Kind: string(s.Kind), Name: s.Name, Qualified: s.QualifiedName,
		Path: s.Path, startLine: s.StartLine, endLine: s.EndLine}
}

// sortSymbols orders symbols by path, line and name.
func sortSymbols(ss []benchSymbol) {
	slices.SortFunc(ss, func(a, b benchSymbol) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.startLine, b.startLine), strings.Compare(a.Name, b.Name))
	})
}

// locate sets Line and Col of each symbol to its declaring identifier,
// found with the parser; symbols without one are dropped.
func locate(root string, ss []benchSymbol) []benchSymbol {
	idents := map[string][]declIdent{}
	var out []benchSymbol
	for _, s := range ss {
		ids, ok := idents[s.Path]
		if !ok {
			ids = declIdents(filepath.Join(root, filepath.FromSlash(s.Path)))
			idents[s.Path] = ids
		}
		for _, id := range ids {
			if id.name == s.Name && id.line >= s.startLine && id.line <= s.endLine {
				s.Line, s.Col = id.line, id.col
				break
			}
		}
		if s.Line != 0 {
			out = append(out, s)
		} else {
			logf("no declaring identifier for %s %s in %s:%d-%d; left out", s.Kind, s.Qualified, s.Path, s.startLine, s.endLine)
		}
	}
	return out
}

// declIdent is a declaring identifier: 1-based line and character column.
type declIdent struct {
	name      string
	line, col int
}

// declIdents lists the identifiers that declare something in a file, in
// source order: the package name, functions, methods, types, constants,
// variables, fields (the type name of an embedded one) and interface
// methods.
func declIdents(file string) []declIdent {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil && f == nil {
		return nil
	}
	lines := strings.Split(string(src), "\n")
	var out []declIdent
	for _, id := range syntax.DeclIdents(f) {
		p := fset.Position(id.Pos())
		out = append(out, declIdent{name: id.Name, line: p.Line, col: lsptest.ByteToCharColumn(lines[p.Line-1], p.Column)})
	}
	return out
}

// fileCache reads the corpus's files once, for position conversion and
// difference listings.
type fileCache struct {
	root  string
	lines map[string][]string
}

func newFileCache(root string) *fileCache {
	return &fileCache{root: root, lines: map[string][]string{}}
}

// line returns line n (1-based) of a root-relative file.
func (c *fileCache) line(rel string, n int) string {
	ls, ok := c.lines[rel]
	if !ok {
		data, _ := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
		ls = strings.Split(string(data), "\n")
		c.lines[rel] = ls
	}
	if n < 1 || n > len(ls) {
		return ""
	}
	return ls[n-1]
}

// rel returns the root-relative slash path of an absolute path; false
// when it is outside the root.
func (c *fileCache) rel(abs string) (string, bool) {
	rel, err := filepath.Rel(c.root, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// position converts an LSP location to "path:line:column" (root-relative,
// 1-based, characters); false when it is outside the root.
func (c *fileCache) position(l lsptest.Location) (string, bool) {
	p, err := lsptest.URIPath(l.URI)
	if err != nil {
		return "", false
	}
	rel, ok := c.rel(p)
	if !ok {
		return "", false
	}
	line := l.Range.Start.Line + 1
	return fmt.Sprintf("%s:%d:%d", rel, line, lsptest.CharColumn(c.line(rel, line), l.Range.Start.Character)), true
}

// text returns the trimmed source line at a "path:line[:column]" position.
func (c *fileCache) text(pos string) string {
	parts := strings.Split(pos, ":")
	if len(parts) < 2 {
		return ""
	}
	var line int
	fmt.Sscan(parts[1], &line)
	return strings.TrimSpace(c.line(parts[0], line))
}
