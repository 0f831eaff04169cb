package query

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsptest"
)

// parityServer is a language server find_references and
// find_implementations are held to on one project of the fixture.
type parityServer struct {
	lang    string   // the language of the symbols asked about
	dir     string   // the project's directory in the fixture: the server's workspace
	command string   // the server, as e2e/lsp/node_modules/.bin holds it
	ext     []string // the files opened in the server
	// impl says the server answers textDocument/implementation (pyright
	// 1.1.407 answers "Unhandled method").
	impl bool
}

var parityServers = []parityServer{
	{"typescript", "ts", "typescript-language-server", []string{".ts"}, true},
	{"python", "py", "pyright-langserver", []string{".py"}, false},
}

// parityKnown lists every position where a server and sextant answer
// differently on scipparity.txtar, with its cause. A difference is
// spelled "tool Symbol.QualifiedName path:line:column"; "+" marks a
// position only the server answers, "-" one only sextant answers. No
// other difference is allowed, and each listed must still occur.
var parityKnown = map[string]string{
	// typescript-language-server counts a call of any method of a
	// family (the methods overriding or implementing one another, whose
	// declarations find_references lists too) as a reference of each. find_references counts a call
	// through the interface (s.area() in totalArea) for every
	// implementation, and a call through a method of a class it extends
	// (sq.label() for Tile.label: sq may be a Tile; super.label() in Tile
	// too, as the server counts it), but not a call on a sibling class of
	// the family, which cannot reach the method asked about.
	"find_references Circle.label +ts/src/main.ts:7:21":    "sq.label() calls Square.label: sq is a Square",
	"find_references Circle.label +ts/src/shapes.ts:33:28": "super.label() in Tile calls Square.label",
	// The server counts the names of a re-export (export { Square } from)
	// as references of the class's constructor; find_references counts
	// them as references of the class (where they match).
	"find_references Square.constructor +ts/src/index.ts:1:10": "export { Square } in index.ts names the class",
	"find_references Circle.constructor +ts/src/index.ts:1:18": "export { Circle } in index.ts names the class",
	"find_references Square.constructor +ts/src/again.ts:2:10": "import { Square as Sq } in again.ts names the class",
	"find_references Square.constructor +ts/src/again.ts:3:10": "export { Sq } in again.ts names the class",
	// Asked for a constructor's implementations, the server answers its
	// class's: the class, the classes extending it and its renamed
	// imports; find_implementations answers the constructor's overrides,
	// none.
	"find_implementations Square.constructor +ts/src/shapes.ts:8:14":  "the class Square",
	"find_implementations Square.constructor +ts/src/shapes.ts:31:14": "the class Tile, which extends Square",
	"find_implementations Square.constructor +ts/src/again.ts:2:10":   "import { Square as Sq } in again.ts",
	// new Tile(3) runs the constructor Tile inherits from Square: the
	// server counts it for Square's constructor; scip-typescript names
	// the class Tile there, which find_references of Tile lists.
	"find_references Square.constructor +ts/src/main.ts:6:48": "new Tile(3): Tile declares no constructor",
	// pyright counts the string "Animal" in __all__ as a reference of the
	// class; scip-python gives the string no symbol.
	"find_references Animal +py/zoo/__init__.py:3:13": `__all__ = ["Animal"]`,
	// The server counts, for Schema.kind, the parameter that is the value
	// of a Schema literal's shorthand property kind.
	"find_implementations Schema.kind +ts/src/schema.ts:5:8": "the parameter kind, the value of that literal's shorthand property",
	// For a property of an object type, the server lists the property of
	// the literal written as that type, which scip-typescript records as
	// no use of it, and the value given to it.
	"find_implementations tagged.typeLiteral4.m +ts/src/values.ts:13:38": "the property m of the literal { m: {} }",
	"find_implementations tagged.typeLiteral4.m +ts/src/values.ts:13:40": "the value {} of that property",
}

// TestSCIPParity holds find_references and find_implementations, for
// every symbol the SCIP indexers gave the fixture's TypeScript and Python
// projects, to textDocument/references (without the declaration) and
// textDocument/implementation of typescript-language-server and pyright
// asked at the symbol's declaring identifier: the same positions (path,
// line, column in characters), but for the differences listed with
// their causes in parityKnown.
func TestSCIPParity(t *testing.T) {
	scipIndexers(t)
	bin := lsptest.NodeBin(t, "SCIP parity", parityServers[0].command, parityServers[1].command)
	f := newFixture(t, "testdata/scipparity.txtar")
	syms := paritySymbols(t, f)
	diffs := map[string]bool{}
	tally := map[string]*[3]int{} // by language and tool: the server's, sextant's, both
	defer func() {
		for k, n := range tally {
			t.Logf("%s: server %d positions, sextant %d, both %d", k, n[0], n[1], n[2])
		}
	}()
	for _, s := range parityServers {
		t.Run(s.lang, func(t *testing.T) {
			server, err := exec.LookPath(filepath.Join(bin, s.command)) // on Windows, its .cmd shim
			if err != nil {
				t.Fatal(err)
			}
			c, err := lsptest.Start(server, filepath.Join(f.dir, s.dir), "--stdio")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// pyright answers nothing until told its settings changed.
			if err := c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{}}); err != nil {
				t.Fatal(err)
			}
			openAll(t, c, f.dir, s)
			asked, names := 0, []string(nil)
			defer func() { t.Logf("asked about %s", strings.Join(names, ", ")) }()
			for _, sym := range syms {
				if sym.Language != s.lang {
					continue
				}
				asked++
				names = append(names, sym.QualifiedName)
				at, ok := declIdent(t, f.dir, sym)
				if !ok {
					t.Errorf("%s %s:%d:%d-%d:%d: no identifier %q at or after the declaration's start", sym.QualifiedName, sym.Path, sym.StartLine, sym.StartCol, sym.EndLine, sym.EndCol, sym.Name)
					continue
				}
				lines := fileLines(t, f.dir, sym.Path)
				pos := map[string]any{
					"textDocument": map[string]any{"uri": lsptest.FileURI(filepath.Join(f.dir, filepath.FromSlash(sym.Path)))},
					"position":     map[string]any{"line": at[0] - 1, "character": lsptest.UTF16Column(lines[at[0]-1], at[1])},
				}
				var refs []lsptest.Location
				if err := c.Call("textDocument/references", withContext(pos), &refs); err != nil {
					t.Fatalf("references of %s: %v", sym.QualifiedName, err)
				}
				compare(diffs, tally, "find_references", sym, serverLocs(t, f.dir, refs), sextantRefs(t, f, sym.Key))
				if !s.impl {
					continue
				}
				var impls []lsptest.Location
				if err := c.Call("textDocument/implementation", pos, &impls); err != nil {
					t.Fatalf("implementations of %s: %v", sym.QualifiedName, err)
				}
				// The server answers a concrete class, method, function or
				// value with its own declaration first: not an
				// implementation of itself.
				server := slices.DeleteFunc(serverLocs(t, f.dir, impls), func(l string) bool {
					return l == fmt.Sprintf("%s:%d:%d", sym.Path, at[0], at[1])
				})
				compare(diffs, tally, "find_implementations", sym, server, sextantImpls(t, f, sym.Key))
			}
			t.Logf("%d %s symbols asked about", asked, s.lang)
			if asked < 10 {
				t.Errorf("%d %s symbols asked about, want at least 10", asked, s.lang)
			}
		})
	}
	var unexplained []string
	for d := range diffs {
		if parityKnown[d] == "" {
			unexplained = append(unexplained, d)
		}
	}
	slices.Sort(unexplained)
	for _, d := range unexplained {
		t.Errorf("difference with no cause listed: %q", d)
	}
	for d := range parityKnown {
		if !diffs[d] {
			t.Errorf("listed difference no longer occurs: %q", d)
		}
	}
}

// paritySymbols lists every TypeScript and Python symbol of the index,
// by path and line.
func paritySymbols(t *testing.T, f *fixture) []graph.Symbol {
	t.Helper()
	ctx := context.Background()
	r, err := f.store.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	all, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
	if err != nil {
		t.Fatal(err)
	}
	var out []graph.Symbol
	for _, s := range all {
		if s.Language == "typescript" || s.Language == "python" {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b graph.Symbol) int {
		return strings.Compare(fmt.Sprintf("%s:%06d:%06d", a.Path, a.StartLine, a.StartCol), fmt.Sprintf("%s:%06d:%06d", b.Path, b.StartLine, b.StartCol))
	})
	return out
}

// openAll opens the project's files in the server.
func openAll(t *testing.T, c *lsptest.Client, root string, s parityServer) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(root, s.dir), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !slices.Contains(s.ext, filepath.Ext(path)) {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": lsptest.FileURI(path), "languageId": s.lang, "version": 1, "text": string(text),
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func withContext(pos map[string]any) map[string]any {
	p := map[string]any{"context": map[string]any{"includeDeclaration": false}}
	for k, v := range pos {
		p[k] = v
	}
	return p
}

// fileLines is the lines of a file of the fixture.
func fileLines(t *testing.T, root, path string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n")
}

// declIdent is the 1-based line and character column of the identifier
// that declares sym: its name's first whole-word occurrence at or after
// the start of its declaration.
func declIdent(t *testing.T, root string, sym graph.Symbol) ([2]int, bool) {
	t.Helper()
	lines := fileLines(t, root, sym.Path)
	name := []rune(sym.Name)
	for l := sym.StartLine; l <= sym.EndLine && l <= len(lines); l++ {
		line := []rune(lines[l-1])
		from := 0
		if l == sym.StartLine {
			from = sym.StartCol - 1
		}
		for i := from; i+len(name) <= len(line); i++ {
			if string(line[i:i+len(name)]) != sym.Name {
				continue
			}
			if i > 0 && isIdent(line[i-1]) || i+len(name) < len(line) && isIdent(line[i+len(name)]) {
				continue
			}
			return [2]int{l, i + 1}, true
		}
	}
	return [2]int{}, false
}

func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// serverLocs turns a server's locations into "path:line:column" under
// root, columns in characters from 1.
func serverLocs(t *testing.T, root string, locs []lsptest.Location) []string {
	t.Helper()
	var out []string
	for _, l := range locs {
		abs, err := lsptest.URIPath(l.URI)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		lines := fileLines(t, root, rel)
		line := l.Range.Start.Line
		out = append(out, fmt.Sprintf("%s:%d:%d", rel, line+1, lsptest.CharColumn(lines[line], l.Range.Start.Character)))
	}
	return out
}

// sextantRefs is find_references of key as "path:line:column".
func sextantRefs(t *testing.T, f *fixture, key string) []string {
	t.Helper()
	a, err := f.call(t, "find_references", fmt.Sprintf(`{"stable_key":%q,"limit":500}`, key))
	if err != nil {
		t.Fatalf("find_references %s: %v", key, err)
	}
	out := a.(*FindReferencesOutput)
	if out.NextCursor != nil {
		t.Fatalf("find_references %s: more than one page", key)
	}
	var locs []string
	for _, rf := range out.Results {
		for _, r := range rf.References {
			locs = append(locs, fmt.Sprintf("%s:%d:%d", rf.Path, r.Line, r.Column))
		}
	}
	return locs
}

// sextantImpls is find_implementations of key as "path:line:column" of
// each result's declaring identifier.
func sextantImpls(t *testing.T, f *fixture, key string) []string {
	t.Helper()
	a, err := f.call(t, "find_implementations", fmt.Sprintf(`{"stable_key":%q,"limit":500}`, key))
	if err != nil {
		if e, ok := asError(err); ok && e.Code == graph.CodeInvalidArgument {
			return nil // not a type or method
		}
		t.Fatalf("find_implementations %s: %v", key, err)
	}
	out := a.(*FindImplementationsOutput)
	if out.NextCursor != nil {
		t.Fatalf("find_implementations %s: more than one page", key)
	}
	ctx := context.Background()
	r, err := f.store.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var locs []string
	for _, row := range out.Results {
		if row.Value != "" {
			locs = append(locs, fmt.Sprintf("%s:%d:%d", row.Path, row.Line, row.Col))
			continue
		}
		sym, err := r.SymbolByKey(ctx, row.StableKey)
		if err != nil {
			t.Fatal(err)
		}
		at, ok := declIdent(t, f.dir, sym)
		if !ok {
			t.Fatalf("no identifier for %s", row.QualifiedName)
		}
		locs = append(locs, fmt.Sprintf("%s:%d:%d", row.Path, at[0], at[1]))
	}
	if out.Direction != "implementations" {
		t.Errorf("find_implementations %s answers %s, want implementations (a class or method outside Go)", key, out.Direction)
		return nil
	}
	return locs
}

// compare records in diffs each position only one side answered, and
// counts the positions in tally.
func compare(diffs map[string]bool, tally map[string]*[3]int, tool string, sym graph.Symbol, server, sextant []string) {
	n := tally[sym.Language+" "+tool]
	if n == nil {
		n = new([3]int)
		tally[sym.Language+" "+tool] = n
	}
	n[0] += len(server)
	n[1] += len(sextant)
	for _, s := range server {
		if slices.Contains(sextant, s) {
			n[2]++
		}
	}
	for _, s := range server {
		if !slices.Contains(sextant, s) {
			diffs[fmt.Sprintf("%s %s +%s", tool, sym.QualifiedName, s)] = true
		}
	}
	for _, s := range sextant {
		if !slices.Contains(server, s) {
			diffs[fmt.Sprintf("%s %s -%s", tool, sym.QualifiedName, s)] = true
		}
	}
}

// TestSubclassesPython: find_implementations of a Python class lists the
// classes extending it, and of a method the methods overriding it, as for
// TypeScript (held to its server by TestSCIPParity), those of pytest's
// files unless include_tests is false; pyright has no
// textDocument/implementation to hold them to.
func TestSubclassesPython(t *testing.T) {
	scipIndexers(t)
	f := newFixture(t, "testdata/scipparity.txtar")
	noTests := false
	for _, c := range []struct {
		name  string
		tests *bool
		want  []string
	}{
		{"Animal", nil, []string{"QuietDog", "Dog", "Puppy"}},
		{"Animal", &noTests, []string{"Dog", "Puppy"}},
		{"Dog", nil, []string{"QuietDog", "Puppy"}},
		{"Puppy", nil, nil},
		{"Animal.speak", nil, []string{"QuietDog.speak", "Dog.speak", "Puppy.speak"}},
		{"Dog.speak", &noTests, []string{"Puppy.speak"}},
		{"Animal.greet", nil, nil},
	} {
		out, err := FindImplementations(context.Background(), f.svc, FindImplementationsInput{SymbolSelector: SymbolSelector{
			SymbolID: SymbolID{QualifiedName: c.name}, Path: "py/zoo/animals.py"}, IncludeTests: c.tests}, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, r := range out.Results {
			got = append(got, r.QualifiedName)
		}
		if out.Direction != "implementations" || !slices.Equal(got, c.want) {
			t.Errorf("%s: %s %v, want implementations %v", c.name, out.Direction, got, c.want)
		}
	}
}

// TestOverrideDeclarations: find_references of a TypeScript method lists
// the declarations of the other methods of its family (kind override) in
// path order among its uses, page by page and under its filters; a
// Python method lists none.
func TestOverrideDeclarations(t *testing.T) {
	scipIndexers(t)
	f := newFixture(t, "testdata/scipparity.txtar")
	refs := func(name, path, kind string, limit int, cursor string) *FindReferencesOutput {
		t.Helper()
		out, err := FindReferences(context.Background(), f.svc, FindReferencesInput{SymbolID: SymbolID{QualifiedName: name},
			SymbolPath: path, Kind: kind, Limit: limit, Cursor: cursor}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	}
	overrides := func(out *FindReferencesOutput) []string {
		var got []string
		for _, f := range out.Results {
			for _, r := range f.References {
				if r.Kind == string(graph.RefOverride) {
					got = append(got, fmt.Sprintf("%s:%d:%d %s", f.Path, r.Line, r.Column, r.Target))
				}
			}
		}
		return got
	}
	for _, c := range []struct {
		name, path string
		want       []string
	}{
		{"Tile.label", "ts/src", []string{"ts/src/shapes.ts:5:3 Shape.label", "ts/src/shapes.ts:13:3 Square.label", "ts/src/shapes.ts:26:3 Circle.label"}},
		{"Shape.area", "ts/src", []string{"ts/src/shapes.ts:10:3 Square.area", "ts/src/shapes.ts:23:3 Circle.area"}},
		{"Node.visit", "ts/src", []string{"ts/src/leaf.ts:4:3 Leaf.visit"}},
		{"Leaf.visit", "ts/src", []string{"ts/src/nodes/base.ts:2:12 Node.visit"}},
		{"Square.constructor", "ts/src", nil},
		{"Dog.speak", "py/zoo", nil},
	} {
		out := refs(c.name, c.path, "", 0, "")
		if got := overrides(out); !slices.Equal(got, c.want) {
			t.Errorf("%s: override rows %v, want %v", c.name, got, c.want)
		}
		var all []string
		for _, f := range out.Results {
			for _, r := range f.References {
				all = append(all, fmt.Sprintf("%s:%d:%d", f.Path, r.Line, r.Column))
			}
		}
		// Pages of two, each after the last, make up the whole answer.
		var paged []string
		for cursor := ""; ; {
			p := refs(c.name, c.path, "", 2, cursor)
			for _, f := range p.Results {
				for _, r := range f.References {
					paged = append(paged, fmt.Sprintf("%s:%d:%d", f.Path, r.Line, r.Column))
				}
			}
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
		}
		if !slices.Equal(paged, all) {
			t.Errorf("%s: pages of two %v, whole %v", c.name, paged, all)
		}
		if got := overrides(refs(c.name, c.path, "call", 0, "")); len(got) > 0 {
			t.Errorf("%s, kind call: override rows %v", c.name, got)
		}
		if got := overrides(refs(c.name, c.path, "override", 0, "")); !slices.Equal(got, c.want) {
			t.Errorf("%s, kind override: %v, want %v", c.name, got, c.want)
		}
	}
}
