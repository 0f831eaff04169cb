package scipindex_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/scipindex"
	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/scip"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// indexer returns the path of a SCIP indexer pinned by e2e/lsp/package.json
// (npm ci --prefix e2e/lsp installs them). Without it the test is skipped
// loudly, except in CI (CI=true), where its absence is a failure.
func indexer(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(lsptest.NodeBin(t, "the SCIP import", name), name)
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runIndexer runs an indexer in dir and returns the index it wrote.
func runIndexer(t *testing.T, dir, bin string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "index.scip")
	cmd := exec.Command(bin, append(args, "--output", out)...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// imported is what an import wrote, read back from a real SQLite store.
type imported struct {
	res    scipindex.Result
	r      graph.Reader
	repo   string
	syms   map[string]graph.Symbol // by qualified name (the first of a value and a type of one name)
	byKind map[string]graph.Symbol // by "qualified name/kind"
}

func importIndex(t *testing.T, root, projectDir string, index []byte, lim scip.Limits) (*imported, error) {
	t.Helper()
	return importProjects(t, root, nil, lim, project{projectDir, index})
}

// project is one project's directory and SCIP index, for importProjects.
type project struct {
	dir   string
	index []byte
}

// importProjects imports the projects into one snapshot, joined by a
// Linker of the packages named when any is.
func importProjects(t *testing.T, root string, packages []string, lim scip.Limits, projects ...project) (*imported, error) {
	t.Helper()
	return importProjectsWith(t, root, packages, nil, lim, projects...)
}

// importProjectsWith is importProjects with the Linker's Lookup, which
// finds the declarations of the projects not imported, as an amend's.
func importProjectsWith(t *testing.T, root string, packages []string, lookup func(context.Context, []string) ([]graph.Symbol, error), lim scip.Limits, projects ...project) (*imported, error) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	repo, err := st.EnsureRepository(ctx, root, "demo")
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.BeginSnapshot(ctx, repo, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	rt, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var link *scipindex.Linker
	if len(packages) > 0 {
		link = scipindex.NewLinker(repo.Name, packages)
		link.Lookup = lookup
	}
	var res scipindex.Result
	for _, p := range projects {
		one, err := scipindex.Import(ctx, bytes.NewReader(p.index), w, scipindex.Options{Repository: repo, Root: rt, ProjectDir: p.dir, Limits: lim, Link: link})
		if err != nil {
			return &imported{res: one}, err
		}
		res = one
	}
	if _, err := link.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchPrefix})
	if err != nil {
		t.Fatal(err)
	}
	im := &imported{res: res, r: r, repo: repo.Name, syms: map[string]graph.Symbol{}, byKind: map[string]graph.Symbol{}}
	for _, s := range syms {
		full, err := r.SymbolByKey(ctx, s.Key)
		if err != nil {
			t.Fatal(err)
		}
		// A name declared as a value and as a type is two symbols, each
		// found as "name/kind".
		byKind := s.QualifiedName + "/" + string(s.Kind)
		if _, dup := im.byKind[byKind]; dup {
			t.Errorf("two %s symbols named %s", s.Kind, s.QualifiedName)
		}
		im.byKind[byKind] = full
		if _, dup := im.syms[s.QualifiedName]; !dup {
			im.syms[s.QualifiedName] = full
		}
	}
	return im, nil
}

func (im *imported) sym(t *testing.T, qname string) graph.Symbol {
	t.Helper()
	s, ok := im.syms[qname]
	if !ok {
		s, ok = im.byKind[qname]
	}
	if !ok {
		names := make([]string, 0, len(im.syms))
		for n := range im.syms {
			names = append(names, n)
		}
		sort.Strings(names)
		t.Fatalf("no symbol %s among %v", qname, names)
	}
	return s
}

// search returns the qualified names of the symbols a full-text search
// for words finds.
func (im *imported) search(t *testing.T, words ...string) []string {
	t.Helper()
	hits, err := im.r.SearchText(context.Background(), graph.TextQuery{Words: words})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Symbol.QualifiedName)
	}
	sort.Strings(out)
	return out
}

// names are the qualified names of the symbols by key.
func (im *imported) names() map[string]string {
	byKey := map[string]string{}
	for q, s := range im.syms {
		byKey[s.Key] = q
	}
	return byKey
}

// implements reports whether typ is recorded as implementing super.
func (im *imported) implements(t *testing.T, typ, super string) bool {
	t.Helper()
	impls, err := im.r.Implementations(context.Background(), im.sym(t, super).Key, true)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(impls, func(i graph.Implements) bool { return i.Type == im.sym(t, typ).Key })
}

// callees lists caller's call edges as "callee coverage" strings (the
// callee by qualified name, or its CalleeName outside the graph).
func (im *imported) callees(t *testing.T, caller string) []string {
	t.Helper()
	edges, err := im.r.CallEdges(context.Background(), graph.EdgeQuery{Callers: []string{im.sym(t, caller).Key}})
	if err != nil {
		t.Fatal(err)
	}
	byKey := im.names()
	var out []string
	for _, e := range edges {
		name := e.CalleeName
		if e.Callee != "" {
			name = byKey[e.Callee]
		}
		out = append(out, name+" "+string(e.Coverage))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// refs lists the uses of target as "path:line kind enclosing" strings.
func (im *imported) refs(t *testing.T, target string) []string {
	t.Helper()
	refs, _, err := im.r.Refs(context.Background(), graph.RefQuery{Targets: []string{im.sym(t, target).Key}, IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	byKey := im.names()
	var out []string
	for _, r := range refs {
		out = append(out, fmt.Sprintf("%s:%d:%d %s %s", r.Path, r.Line, r.Col, r.Kind, byKey[r.Enclosing]))
	}
	return out
}

func check(t *testing.T, what string, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

const tsShapes = `/** Shape is a thing with an area. */
export interface Shape { area(): number }

export class Square implements Shape {
  constructor(private s: number) {}
  area(): number { return this.s * this.s }
}

/** total sums the areas. */
export function total(xs: Shape[]): number {
  let sum = 0
  for (const x of xs) { sum += x.area() }
  return sum
}
`

const tsMain = `import { Square, total } from "./shapes";

export function run(): number {
  const sq = new Square(2);
  return total([sq]) + sq.area();
}

export let counter = 0;
export function bump() { counter = counter + 1; /* the zorbling counter */ }

export const double = (n: number): number => total([new Square(n)]) * ("blorp".length - 3);
export const twice = async function (f: () => number) { return f() + f(); };
export const area: (s: Square) => number = pick(0);
function pick(_n: number) { return (s: Square) => s.area(); }
const shown = 1, hidden = 2;
export { shown as visible };
export const sum = hidden + shown;
function named() { return 3 }
export default named
`

// TestImportTypeScript indexes a TypeScript project, in a directory of
// the repository, with scip-typescript and imports it.
func TestImportTypeScript(t *testing.T) {
	bin := indexer(t, "scip-typescript")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"web/tsconfig.json":   `{"compilerOptions":{"target":"es2020","module":"commonjs","strict":true},"include":["src"]}`,
		"web/src/shapes.ts":   tsShapes,
		"web/src/main.ts":     tsMain,
		"web/src/é/deep.ts":   "export const deep = 1;\n",
		"web/node_modules/.k": "",
	})
	index := runIndexer(t, filepath.Join(root, "web"), bin, "index")
	im, err := importIndex(t, root, "web", index, scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", im.res)
	if im.res.DroppedDocuments != 0 || im.res.BadRanges != 0 {
		t.Errorf("dropped %d documents, %d ranges: %v", im.res.DroppedDocuments, im.res.BadRanges, im.res.Diagnostics)
	}
	for _, c := range []struct {
		qname, kind, path, sig, doc string
		line, col                   int
	}{
		{"Shape", "interface", "web/src/shapes.ts", "interface Shape", "Shape is a thing with an area.", 2, 1},
		{"Shape.area", "interface_method", "web/src/shapes.ts", "(method) area() => number", "", 2, 26},
		{"Square", "type", "web/src/shapes.ts", "class Square implements Shape", "", 4, 1},
		{"Square.area", "method", "web/src/shapes.ts", "(method) area(): number", "", 6, 3},
		{"total", "func", "web/src/shapes.ts", "function total(xs: Shape[]): number", "total sums the areas.", 10, 1},
		{"run", "func", "web/src/main.ts", "function run(): number", "", 3, 1},
		{"counter", "var", "web/src/main.ts", "var counter: number", "", 8, 12},
		{"deep", "var", "web/src/é/deep.ts", "var deep: 1", "", 1, 14},
		// A const whose value is an arrow function or a function
		// expression is a function; one whose value a call returns is
		// not, whatever its type.
		{"double", "func", "web/src/main.ts", "var double: (n: number) => number", "", 11, 14},
		{"twice", "func", "web/src/main.ts", "var twice: (f: () => number) => Promise<number>", "", 12, 14},
		{"area", "var", "web/src/main.ts", "var area: (s: Square) => number", "", 13, 14},
		// A parameter property is a field of its class.
		{"Square.s", "field", "web/src/shapes.ts", "(property) s: number", "", 5, 23},
	} {
		s := im.sym(t, c.qname)
		got := fmt.Sprintf("%s %s %s %q %q %d:%d", s.Language, s.Kind, s.Path, s.Signature, s.Doc, s.StartLine, s.StartCol)
		want := fmt.Sprintf("typescript %s %s %q %q %d:%d", c.kind, c.path, c.sig, c.doc, c.line, c.col)
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.qname, got, want)
		}
	}
	if s := im.sym(t, "Square.area"); s.Parent != im.sym(t, "Square").Key || s.Receiver != "Square" || s.PackagePath != "web/src" {
		t.Errorf("Square.area: parent %s, receiver %q, package %q", s.Parent, s.Receiver, s.PackagePath)
	}
	if !im.implements(t, "Square", "Shape") || !im.implements(t, "Square.area", "Shape.area") {
		t.Errorf("Square does not implement Shape (or its area Shape.area)")
	}
	if s := im.sym(t, "Square.s"); s.Parent != im.sym(t, "Square").Key || s.Name != "s" {
		t.Errorf("Square.s: parent %s, name %q, want Square's field s", s.Parent, s.Name)
	}
	check(t, "uses of Square.s", im.refs(t, "Square.s"), []string{"web/src/shapes.ts:6:32 read Square.area", "web/src/shapes.ts:6:41 read Square.area"})
	check(t, "uses of total", im.refs(t, "total"), []string{"web/src/main.ts:1:18 import ", "web/src/main.ts:5:10 call run", "web/src/main.ts:11:46 call double"})
	check(t, "uses of Shape.area", im.refs(t, "Shape.area"), []string{"web/src/shapes.ts:12:34 call total"})
	check(t, "uses of counter", im.refs(t, "counter"), []string{"web/src/main.ts:9:26 write bump", "web/src/main.ts:9:36 read bump"})
	check(t, "callees of total", im.callees(t, "total"), []string{"Square.area candidate"})
	check(t, "callees of run", im.callees(t, "run"), []string{"Square.area exact", "Square.constructor exact", "total exact"})
	check(t, "callees of double", im.callees(t, "double"), []string{"Square.constructor exact", "total exact"})
	// A module exports what it writes export before, or names in an
	// export clause.
	var exported []string
	for _, q := range []string{"run", "double", "pick", "shown", "hidden", "named", "total", "Square.area"} {
		exported = append(exported, fmt.Sprintf("%s %v", q, im.sym(t, q).Exported))
	}
	check(t, "exported", exported, []string{"run true", "double true", "pick false", "shown true", "hidden false", "named true", "total true", "Square.area true"})
	// A function's string literals and comments are words search_code
	// finds it by.
	check(t, "search blorp", im.search(t, "blorp"), []string{"double"})
	check(t, "search zorbling", im.search(t, "zorbling"), []string{"bump"})
	check(t, "callees of pick", im.callees(t, "pick"), []string{"Square.area exact"})
	// What area's initializer calls runs as the module loads.
	check(t, "uses of pick", im.refs(t, "pick"), []string{"web/src/main.ts:13:44 call "})
	pkgs, err := im.r.Packages(context.Background(), im.repo)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range pkgs {
		paths = append(paths, p.Path+"="+p.Name)
	}
	check(t, "packages", paths, []string{"web/src=src", "web/src/é=é"})
}

const pyModule = `class Base:
    """Base docs."""
    def run(self) -> int:
        return 1


class Child(Base):
    def run(self) -> int:
        return helper(2)


def helper(x: int) -> int:
    """Helper docs, never body text."""
    # round to the nearest frobnication
    return x + len("quux")


def drive(b: Base) -> int:
    total = b.run()
    return total
`

// TestImportPython indexes a Python package with scip-python and imports
// it.
func TestImportPython(t *testing.T) {
	bin := indexer(t, "scip-python")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"pkg/__init__.py":   "",
		"pkg/m.py":          pyModule,
		"tests/test_m.py":   "from pkg.m import helper\n\n\ndef test_helper():\n    assert helper(1) == 2\n",
		"pyproject.toml":    "[project]\nname = \"demo\"\nversion = \"0.1\"\n",
		"tests/__init__.py": "",
	})
	index := runIndexer(t, root, bin, "index", "--project-name", "demo", "--project-version", "0.1", ".")
	im, err := importIndex(t, root, ".", index, scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", im.res)
	for _, c := range []struct{ qname, kind, doc string }{
		{"Base", "type", "Base docs."}, {"Base.run", "method", ""}, {"Child", "type", ""},
		{"Child.run", "method", ""}, {"helper", "func", "Helper docs, never body text."}, {"drive", "func", ""},
	} {
		s := im.sym(t, c.qname)
		if s.Language != "python" || string(s.Kind) != c.kind || s.Doc != c.doc || s.PackagePath != "pkg" || s.ModulePath != "demo" {
			t.Errorf("%s: %s %s doc %q package %s module %s", c.qname, s.Language, s.Kind, s.Doc, s.PackagePath, s.ModulePath)
		}
	}
	if s := im.sym(t, "test_helper"); !s.TestOnly {
		t.Errorf("test_helper is not test code")
	}
	if !im.implements(t, "Child", "Base") || !im.implements(t, "Child.run", "Base.run") {
		t.Errorf("Child does not subclass Base (or Child.run override Base.run)")
	}
	check(t, "callees of Child.run", im.callees(t, "Child.run"), []string{"helper exact"})
	check(t, "search quux", im.search(t, "quux"), []string{"helper"})
	check(t, "search frobnication", im.search(t, "frobnication"), []string{"helper"})
	check(t, "search never", im.search(t, "never"), []string{"helper"}) // its doc
	check(t, "callees of drive", im.callees(t, "drive"), []string{"Base.run candidate", "Child.run candidate"})
	check(t, "uses of helper", im.refs(t, "helper"), []string{"pkg/m.py:9:16 call Child.run", "tests/test_m.py:1:19 import ", "tests/test_m.py:5:12 call test_helper"})

	// A second index of the same code gives the same keys.
	again, err := importIndex(t, root, ".", runIndexer(t, root, bin, "index", "--project-name", "demo", "--project-version", "0.2", "."), scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for q, s := range im.syms {
		if again.syms[q].Key != s.Key {
			t.Errorf("%s: key %s, then %s", q, s.Key, again.syms[q].Key)
		}
	}
}

// TestImportOverloads: a Python function declared again in its file
// (@overload stubs, then the implementation) is one declaration from the
// first stub to the implementation's end, so that the implementation's
// uses and calls are its own, not its module's or class's; its later
// defs stay uses, in the class, not calls of itself.
func TestImportOverloads(t *testing.T) {
	bin := indexer(t, "scip-python")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"pkg/__init__.py": "",
		"pkg/m.py": `from typing import TypeVar, overload


class Conv:
    @overload
    def run(self, x: int) -> int: ...
    @overload
    def run(self, x: str) -> str: ...
    def run(self, x):
        return helper(x)


def helper(x):
    return x


T = TypeVar("T")
`,
		"pyproject.toml": "[project]\nname = \"demo\"\nversion = \"0.1\"\n",
	})
	index := runIndexer(t, root, bin, "index", "--project-name", "demo", "--project-version", "0.1", ".")
	im, err := importIndex(t, root, ".", index, scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if s := im.sym(t, "Conv.run"); s.StartLine != 5 || s.EndLine != 10 {
		t.Errorf("Conv.run declared at lines %d-%d, want 5-10 (the stubs and the implementation)", s.StartLine, s.EndLine)
	}
	check(t, "callees of Conv.run", im.callees(t, "Conv.run"), []string{"helper exact"})
	check(t, "uses of helper", im.refs(t, "helper"), []string{"pkg/m.py:10:16 call Conv.run"})
	// scip-python 0.6.6 calls a type variable "undefined".
	if s := im.sym(t, "T"); s.Signature != `T = TypeVar("T")` {
		t.Errorf("T's signature %q", s.Signature)
	}
	// The later defs are uses, as pyright counts them, in the class:
	// writes of the name, which a def statement binds again.
	check(t, "uses of Conv.run", im.refs(t, "Conv.run"), []string{"pkg/m.py:8:9 write Conv", "pkg/m.py:9:9 write Conv"})
}

// TestImportUnreachableRedeclaration: a class declared in both branches
// of `if TYPE_CHECKING:` gets no occurrence from scip-python in the else
// branch, which pyright deems unreachable but counts among the class's
// references; the importer makes that statement a use (a write in the
// module) and the declaration spans both.
func TestImportUnreachableRedeclaration(t *testing.T) {
	bin := indexer(t, "scip-python")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"pkg/__init__.py": "",
		"pkg/m.py": `import typing as t


class Base:
    pass


if t.TYPE_CHECKING:

    class Info(Base):
        pass

else:
    # at run time
    class Info(Base):
        extra = 1


def make(p: Info) -> Info:
    made: Info = Info()
    return made
`,
		"pyproject.toml": "[project]\nname = \"demo\"\nversion = \"0.1\"\n",
	})
	index := runIndexer(t, root, bin, "index", "--project-name", "demo", "--project-version", "0.1", ".")
	im, err := importIndex(t, root, ".", index, scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if s := im.sym(t, "Info"); s.StartLine != 10 || s.EndLine != 16 {
		t.Errorf("Info declared at lines %d-%d, want 10-16 (both branches)", s.StartLine, s.EndLine)
	}
	// An annotation is a use of the type (one an '=' follows is no
	// write).
	check(t, "uses of Info", im.refs(t, "Info"), []string{"pkg/m.py:15:11 write ", "pkg/m.py:19:13 type make", "pkg/m.py:19:22 type make", "pkg/m.py:20:11 type make", "pkg/m.py:20:18 call make"})
}

// TestImportOverloadsTypeScript: a TypeScript function's overload
// signatures and its implementation are one declaration, so that the
// implementation's calls are the function's; a type alias's signature
// says what it stands for.
func TestImportOverloadsTypeScript(t *testing.T) {
	bin := indexer(t, "scip-typescript")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"web/tsconfig.json": `{"compilerOptions":{"target":"es2020","module":"commonjs","strict":true},"include":["src"]}`,
		"web/src/m.ts": `export function conv(x: number): number;
export function conv(x: string): string;
export function conv(x: number | string): number | string {
  return helper(x);
}

export function helper<T>(x: T): T {
  return x;
}

export type Pair<T> = [T, T];
export type Mode =
  | "a"
  | "b";

export interface Base<T extends { id: string } = { id: string }> {
  one(x: T): void;
}
export interface Leaf extends Base {}
export interface Plain {
  k: number;
}
/** doc */
export abstract class Shape<F extends (x: number) => string> // note: {
  implements Base, /* and */ Plain
{
  k = 1;
  one() {}
}
export class Tile extends Shape<(x: number) => "}"> {}
`,
	})
	im, err := importIndex(t, root, "web", runIndexer(t, filepath.Join(root, "web"), bin, "index"), scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if s := im.sym(t, "conv"); s.StartLine != 1 || s.EndLine != 5 {
		t.Errorf("conv declared at lines %d-%d, want 1-5 (the signatures and the implementation)", s.StartLine, s.EndLine)
	}
	check(t, "callees of conv", im.callees(t, "conv"), []string{"helper exact"})
	// scip-typescript 0.4.0 signs a type alias "type Mode" alone: what
	// it stands for is read from the source.
	// So are a class's and an interface's type parameters and heritage.
	for name, want := range map[string]string{"Pair": "type Pair<T> = [T, T]", "Mode": `type Mode = | "a" | "b"`,
		"Base": "interface Base<T extends { id: string } = { id: string }>", "Leaf": "interface Leaf extends Base",
		"Plain": "interface Plain", "Shape": "abstract class Shape<F extends (x: number) => string> implements Base, Plain",
		"Tile": `class Tile extends Shape<(x: number) => "}">`} {
		if s := im.sym(t, name); s.Signature != want {
			t.Errorf("%s's signature %q, want %q", name, s.Signature, want)
		}
	}
}

func sym(name string) string { return "scip-python python demo 0.1 `pkg.m`/" + name }

func defOcc(name string, line int32) scip.Occurrence {
	return scip.Occurrence{Symbol: sym(name), SymbolRoles: scip.RoleDefinition,
		Range: scip.Range{StartLine: line, StartChar: 4, EndLine: line, EndChar: 5}}
}

// TestImportSrcLayout: a Python package laid out under src/, used from
// its tests, which scip-python resolves to the copy of the package the
// environment has installed (another version): each use of a name the
// project declares counts for the project's own declaration, as pyright
// (which adds src to its import paths) counts it; a name only the copy
// has stays outside the graph.
func TestImportSrcLayout(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"src/demo/__init__.py": "def greet():\n    return 1\n",
		"tests/test_demo.py":   "import demo\n\ndef test_greet():\n    demo.greet()\n    demo.gone()\n",
	})
	own := func(module, name string) string { return "scip-python python demo 0.2 `" + module + "`/" + name }
	installed := func(name string) string { return "scip-python python demo 0.1 `demo`/" + name }
	at := func(l, c1, c2 int32) scip.Range {
		return scip.Range{StartLine: l, StartChar: c1, EndLine: l, EndChar: c2}
	}
	index := scip.AppendDocument(nil, &scip.Document{RelativePath: "src/demo/__init__.py", Language: "python", Occurrences: []scip.Occurrence{
		{Symbol: own("src.demo", "greet()."), SymbolRoles: scip.RoleDefinition, Range: at(0, 4, 9), HasEnclosing: true, EnclosingRange: scip.Range{EndLine: 1, EndChar: 12}},
	}})
	index = scip.AppendDocument(index, &scip.Document{RelativePath: "tests/test_demo.py", Language: "python", Occurrences: []scip.Occurrence{
		{Symbol: own("tests.test_demo", "test_greet()."), SymbolRoles: scip.RoleDefinition, Range: at(2, 4, 14), HasEnclosing: true, EnclosingRange: scip.Range{StartLine: 2, EndLine: 4, EndChar: 15}},
		{Symbol: "scip-python python demo 0.1 demo/__init__:", Range: at(0, 7, 11)},
		{Symbol: installed("greet()."), Range: at(3, 9, 14)},
		{Symbol: installed("gone()."), Range: at(4, 9, 13)},
	}})
	im, err := importIndex(t, root, ".", index, scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "uses of greet", im.refs(t, "greet"), []string{"tests/test_demo.py:4:10 call test_greet"})
	check(t, "callees of test_greet", im.callees(t, "test_greet"), []string{"demo.gone exact", "greet exact"})
}

// TestLinkSrcLayoutAcrossProjects: a Python project of the same root (an
// example, with a pyproject.toml of its own) that imports the root
// project's package laid out under src/ gets, from scip-python, the copy
// the environment has installed; its uses count for the root project's
// declaration, as they do within the root project (TestImportSrcLayout).
func TestLinkSrcLayoutAcrossProjects(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"src/demo/m.py":      "def f():\n    return 1\n",
		"examples/ex/run.py": "import demo\n\ndef main():\n    demo.f()\n    demo.gone()\n",
	})
	at := func(l, c1, c2 int32) scip.Range {
		return scip.Range{StartLine: l, StartChar: c1, EndLine: l, EndChar: c2}
	}
	lib := scip.AppendDocument(nil, &scip.Document{RelativePath: "src/demo/m.py", Language: "python", Occurrences: []scip.Occurrence{
		{Symbol: "scip-python python demo HEAD `src.demo.m`/f().", SymbolRoles: scip.RoleDefinition, Range: at(0, 4, 5), HasEnclosing: true, EnclosingRange: scip.Range{EndLine: 1, EndChar: 12}},
	}})
	ex := scip.AppendDocument(nil, &scip.Document{RelativePath: "run.py", Language: "python", Occurrences: []scip.Occurrence{
		{Symbol: "scip-python python ex HEAD `run`/main().", SymbolRoles: scip.RoleDefinition, Range: at(2, 4, 8), HasEnclosing: true, EnclosingRange: scip.Range{StartLine: 2, EndLine: 4, EndChar: 15}},
		{Symbol: "scip-python python demo 0.1 `demo.m`/f().", Range: at(3, 9, 10)},
		{Symbol: "scip-python python demo 0.1 `demo.m`/gone().", Range: at(4, 9, 13)},
	}})
	im, err := importProjects(t, root, []string{"demo", "ex"}, scip.Limits{}, project{".", lib}, project{"examples/ex", ex})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "uses of f", im.refs(t, "f"), []string{"examples/ex/run.py:4:10 call main"})
	check(t, "callees of main", im.callees(t, "main"), []string{"demo.gone exact", "f exact"})
}

// TestLinkSrcLayoutAmend: the same use, when only the example's project
// is imported again (an amend): the declaration the Linker looks up in
// the snapshot is the one of the project's src/ layout.
func TestLinkSrcLayoutAmend(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"examples/ex/run.py": "import demo\n\ndef main():\n    demo.f()\n"})
	at := func(l, c1, c2 int32) scip.Range {
		return scip.Range{StartLine: l, StartChar: c1, EndLine: l, EndChar: c2}
	}
	ex := scip.AppendDocument(nil, &scip.Document{RelativePath: "run.py", Language: "python", Occurrences: []scip.Occurrence{
		{Symbol: "scip-python python ex HEAD `run`/main().", SymbolRoles: scip.RoleDefinition, Range: at(2, 4, 8), HasEnclosing: true, EnclosingRange: scip.Range{StartLine: 2, EndLine: 3, EndChar: 12}},
		{Symbol: "scip-python python demo 0.1 `demo.m`/f().", Range: at(3, 9, 10)},
	}})
	// The snapshot amended declares f in src/demo/m.py.
	want := graph.StableKey(graph.Identity{Language: graph.LanguagePython, Repository: "demo", PackagePath: "demo:src.demo.m", QualifiedName: "f", Kind: graph.KindFunc})
	lookup := func(_ context.Context, keys []string) ([]graph.Symbol, error) {
		if slices.Contains(keys, want) {
			return []graph.Symbol{{Key: want, Kind: graph.KindFunc, Name: "f", QualifiedName: "f"}}, nil
		}
		return nil, nil
	}
	im, err := importProjectsWith(t, root, []string{"demo", "ex"}, lookup, scip.Limits{}, project{"examples/ex", ex})
	if err != nil {
		t.Fatal(err)
	}
	refs, _, err := im.r.Refs(context.Background(), graph.RefQuery{Targets: []string{want}, IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Path != "examples/ex/run.py" || refs[0].Line != 4 || refs[0].Kind != graph.RefCall {
		t.Errorf("uses of the looked-up f: %+v", refs)
	}
}

// TestImportHostile: a hostile index drops what is wrong, counted and
// named, and imports the rest; an index that is no SCIP index is a
// PARSE_ERROR and writes nothing.
func TestImportHostile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks and FIFOs: the refusals are rootfs's, tested there on Windows")
	}
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.py": "def s(): pass\n", "d/x.py": "def x(): pass\n"})
	good := &scip.Document{RelativePath: "pkg/m.py", Occurrences: []scip.Occurrence{defOcc("f().", 0)}}
	doc := func(path string) *scip.Document {
		return &scip.Document{RelativePath: path, Occurrences: []scip.Occurrence{defOcc("g().", 0)}}
	}
	index := func(docs ...*scip.Document) []byte {
		b := scip.AppendMetadata(nil, scip.Metadata{ToolName: "t"})
		for _, d := range docs {
			b = scip.AppendDocument(b, d)
		}
		return scip.AppendDocument(b, good)
	}
	for _, tc := range []struct {
		name       string
		index      []byte
		lim        scip.Limits
		code       graph.Code // an import error
		dropped    int
		badRanges  int
		duplicates int
		symbols    []string
	}{
		{name: "absolute path", index: index(doc(filepath.Join(outside, "secret.py"))), dropped: 1, symbols: []string{"f"}},
		{name: "dotdot", index: index(doc("../" + filepath.Base(outside) + "/secret.py")), dropped: 1, symbols: []string{"f"}},
		{name: "dotdot inside", index: index(doc("pkg/../../secret.py")), dropped: 1, symbols: []string{"f"}},
		{name: "symlink out", index: index(doc("link.py")), dropped: 1, symbols: []string{"f"}},
		{name: "symlinked directory out", index: index(doc("dlink/x.py")), dropped: 1, symbols: []string{"f"}},
		{name: "backslash", index: index(doc(`pkg\m.py`)), dropped: 1, symbols: []string{"f"}},
		{name: "missing file", index: index(doc("pkg/none.py")), dropped: 1, symbols: []string{"f"}},
		{name: "a fifo", index: index(doc("pkg/fifo.py")), dropped: 1, symbols: []string{"f"}},
		{name: "line past end", index: index(&scip.Document{RelativePath: "pkg/n.py", Occurrences: []scip.Occurrence{defOcc("g().", 99), defOcc("h().", 0)}}),
			badRanges: 1, symbols: []string{"f", "h"}},
		{name: "column past end", index: index(&scip.Document{RelativePath: "pkg/n.py", Occurrences: []scip.Occurrence{
			{Symbol: sym("g()."), SymbolRoles: scip.RoleDefinition, Range: scip.Range{StartLine: 0, StartChar: 4, EndLine: 0, EndChar: 400}}}}),
			badRanges: 1, symbols: []string{"f"}},
		{name: "enclosing range past end", index: index(&scip.Document{RelativePath: "pkg/n.py", Occurrences: []scip.Occurrence{
			{Symbol: sym("g()."), SymbolRoles: scip.RoleDefinition, Range: scip.Range{StartLine: 0, StartChar: 4, EndLine: 0, EndChar: 5},
				HasEnclosing: true, EnclosingRange: scip.Range{StartLine: 0, StartChar: 0, EndLine: 50, EndChar: 0}}}}),
			badRanges: 1, symbols: []string{"f", "g"}},
		{name: "huge symbol", index: index(&scip.Document{RelativePath: "pkg/n.py", Occurrences: []scip.Occurrence{defOcc(strings.Repeat("g", 5000)+"().", 0)}}),
			dropped: 1, symbols: []string{"f"}},
		{name: "huge document", index: index(&scip.Document{RelativePath: "pkg/n.py", Text: strings.Repeat("x", 5000)}),
			lim: scip.Limits{MaxDocumentBytes: 4096}, dropped: 1, symbols: []string{"f"}},
		{name: "duplicate definition", index: index(&scip.Document{RelativePath: "pkg/n.py", Occurrences: []scip.Occurrence{defOcc("f().", 0)}}),
			duplicates: 1, symbols: []string{"f"}},
		// The second copy would repeat every use: it is dropped, named.
		{name: "document twice", index: index(doc("pkg/n.py"), doc("pkg/n.py")), dropped: 1, symbols: []string{"f", "g"}},
		{name: "invalid symbol", index: index(&scip.Document{RelativePath: "pkg/n.py", Occurrences: []scip.Occurrence{
			{Symbol: "s a b c `unclosed", SymbolRoles: scip.RoleDefinition, Range: scip.Range{EndChar: 1}}}}),
			badRanges: 1, symbols: []string{"f"}},
		{name: "truncated", index: index()[:len(index())-3], code: graph.CodeParseError},
		{name: "garbage", index: []byte("\x12\xff\xff\xff\xff\x0f not an index"), code: graph.CodeParseError},
		{name: "text", index: []byte("def f(): pass\n"), code: graph.CodeParseError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{"pkg/m.py": "def f(): pass\n", "pkg/n.py": "def g(): pass\ndef h(): pass\n"})
			if err := os.Symlink(filepath.Join(outside, "secret.py"), filepath.Join(root, "link.py")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "d"), filepath.Join(root, "dlink")); err != nil {
				t.Fatal(err)
			}
			if err := mkfifo(filepath.Join(root, "pkg", "fifo.py")); err != nil {
				t.Fatal(err)
			}
			im, err := importIndex(t, root, ".", tc.index, tc.lim)
			if tc.code != "" {
				if graph.CodeOf(err) != tc.code {
					t.Fatalf("err %v, want %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res := im.res
			if res.DroppedDocuments != tc.dropped || res.BadRanges != tc.badRanges || res.Duplicates != tc.duplicates {
				t.Errorf("dropped %d documents, %d ranges, %d duplicates; want %d, %d, %d (%v)", res.DroppedDocuments, res.BadRanges,
					res.Duplicates, tc.dropped, tc.badRanges, tc.duplicates, res.Diagnostics)
			}
			if (tc.dropped > 0 || tc.badRanges > 0) && len(res.Diagnostics) == 0 {
				t.Errorf("nothing dropped is named in a diagnostic")
			}
			var names []string
			for q := range im.syms {
				names = append(names, q)
			}
			sort.Strings(names)
			check(t, "symbols", names, tc.symbols)
			files, err := im.r.Files(context.Background(), im.repo)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if strings.Contains(f.Path, "..") || filepath.IsAbs(f.Path) || f.Path == "link.py" || strings.HasPrefix(f.Path, "dlink") {
					t.Errorf("a file outside the root was written: %s", f.Path)
				}
			}
		})
	}
}

// TestImportColumns: offsets count UTF-16 units unless the document says
// otherwise, and become character columns; a use is a call, a write or a
// read by the text after it, and is enclosed by the innermost definition
// around it.
func TestImportColumns(t *testing.T) {
	src := "def helper(s):\n    s = \"é😀\"; helper(s)\n    n = helper\n    helper  (n)\n"
	call := func(line, start, end int32) scip.Occurrence {
		return scip.Occurrence{Symbol: sym("helper()."), Range: scip.Range{StartLine: line, StartChar: start, EndLine: line, EndChar: end}}
	}
	for _, tc := range []struct {
		name string
		enc  int32
		occ  scip.Occurrence
		want string
	}{
		{"utf-16", 0, call(1, 15, 21), "pkg/m.py:2:15 call helper"},
		{"utf-8", 1, call(1, 18, 24), "pkg/m.py:2:15 call helper"},
		{"utf-32", 3, call(1, 14, 20), "pkg/m.py:2:15 call helper"},
		{"read", 0, call(2, 8, 14), "pkg/m.py:3:9 read helper"},
		{"write", 0, call(2, 4, 5), "pkg/m.py:3:5 write helper"}, // as if helper stood where n does
		{"call after spaces", 0, call(3, 4, 10), "pkg/m.py:4:5 call helper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{"pkg/m.py": src})
			d := &scip.Document{RelativePath: "pkg/m.py", PositionEncoding: tc.enc, Occurrences: []scip.Occurrence{
				{Symbol: sym("helper()."), SymbolRoles: scip.RoleDefinition, Range: scip.Range{StartChar: 4, EndChar: 10},
					HasEnclosing: true, EnclosingRange: scip.Range{EndLine: 3, EndChar: 15}},
				tc.occ,
			}}
			im, err := importIndex(t, root, ".", scip.AppendDocument(nil, d), scip.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{}
			if tc.want != "" {
				want = append(want, tc.want)
			}
			check(t, "uses", im.refs(t, "helper"), want)
		})
	}
}

// TestImportNamespaceMembers: a name used as a member of a module's
// namespace object (`z.number()`) when the module exports it under
// another name or re-exports it, which scip-typescript gives a
// document-local symbol, is joined to its declaration through the
// modules' export clauses and `export *` chains; a name two modules
// export alike is left unjoined.
func TestImportNamespaceMembers(t *testing.T) {
	bin := indexer(t, "scip-typescript")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"target":"es2020","module":"commonjs","strict":true}}`,
		"types.ts":      "const numberType = () => 1;\nexport function decodeImpl(x: number) { return x; }\nexport { numberType as number };\n",
		"reexport.ts":   "export { decodeImpl as decode } from \"./types\";\nexport { decodeImpl } from \"./types\";\n",
		"external.ts":   "export * from \"./types\";\n",
		"index.ts":      "import * as z from \"./external\";\nexport * from \"./external\";\nexport { z };\n",
		"c.ts":          "const cTwin = 1;\nexport { cTwin as twin };\n",
		"d.ts":          "const dTwin = 2;\nexport { dTwin as twin };\n",
		"both.ts":       "export * from \"./c\";\nexport * from \"./d\";\n",
		"use.ts": `import * as z from "./index";
import * as r from "./reexport";
import * as b from "./both";
import { z as zz } from "./index";

export function main() {
  z.number();
  zz.number();
  z
    .number();
  r.decode(1);
  r.decodeImpl(2);
  const obj = { number: () => 3 };
  obj.number();
  return b.twin;
}
`,
	})
	im, err := importIndex(t, root, ".", runIndexer(t, root, bin, "index"), scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "uses of numberType", im.refs(t, "numberType"), []string{
		"types.ts:3:10 read ", "types.ts:3:24 read ",
		"use.ts:7:5 call main", "use.ts:8:6 call main", "use.ts:10:6 call main"})
	check(t, "uses of decodeImpl", im.refs(t, "decodeImpl"), []string{
		"reexport.ts:1:10 read ", "reexport.ts:1:24 read ", "reexport.ts:2:10 read ",
		"use.ts:11:5 call main", "use.ts:12:5 call main"})
	check(t, "uses of cTwin", im.refs(t, "cTwin"), []string{"c.ts:2:10 read ", "c.ts:2:19 read "})
	check(t, "uses of dTwin", im.refs(t, "dTwin"), []string{"d.ts:2:10 read ", "d.ts:2:19 read "})
}

// TestImportValueTypeTwins: a name declared both as a value and as a
// type is two symbols, and scip-typescript writes both at each use; each
// use counts for the meaning its position has, as the language server
// counts it, and for both in an import or export clause, which names
// both. A use where a type is written is of kind type.
func TestImportValueTypeTwins(t *testing.T) {
	bin := indexer(t, "scip-typescript")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"target":"es2020","module":"commonjs","strict":true,"jsx":"preserve"}}`,
		"schema.ts": `export interface Shape { kind: string }
export const Shape = { make(): Shape { return { kind: "x" }; } };
`,
		"use.ts": `import { Shape } from "./schema";
export function build(): Shape {
  return Shape.make();
}
export const list: Array<Shape> = [Shape.make()];
export { Shape };
`,
		// JSX text is not code: "src/*" opens no comment.
		"view.tsx": `import { Shape } from "./schema";
export const View = () => <p>files in src/*.ts: {Shape.make().kind}</p>;
export const one: Shape = Shape.make();
`,
	})
	im, err := importIndex(t, root, ".", runIndexer(t, root, bin, "index"), scip.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "uses of the value", im.refs(t, "Shape/var"), []string{
		"use.ts:1:10 import ", "use.ts:3:10 read build", "use.ts:5:36 read ", "use.ts:6:10 read ",
		"view.tsx:1:10 import ", "view.tsx:2:50 read View", "view.tsx:3:27 read "})
	check(t, "uses of the type", im.refs(t, "Shape/interface"), []string{
		"schema.ts:2:32 type ", "use.ts:1:10 import ", "use.ts:2:26 type build", "use.ts:5:26 type ", "use.ts:6:10 read ",
		"view.tsx:1:10 import ", "view.tsx:3:19 type "})
}

// FuzzImport: whatever an index says of real files (ranges, module
// symbols, namespace uses, star re-exports), the import neither panics
// nor reads outside its root; what it writes, it writes for files there.
func FuzzImport(f *testing.F) {
	root := f.TempDir()
	files := map[string]string{
		"types.ts": "const numberType = () => 1;\nexport { numberType as number };\nexport * from \"./use\";\n",
		"use.ts":   "import * as z from \"./types\";\nz.number();\nz\n  ?.number();\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	mod := func(p string) string { return "scip-typescript npm demo 1.0.0 `" + p + "`/" }
	at := func(l, c1, c2 int32) scip.Range {
		return scip.Range{StartLine: l, StartChar: c1, EndLine: l, EndChar: c2}
	}
	seed := scip.AppendMetadata(nil, scip.Metadata{ToolName: "scip-typescript"})
	seed = scip.AppendDocument(seed, &scip.Document{RelativePath: "types.ts", Language: "typescript", Occurrences: []scip.Occurrence{
		{Range: at(0, 0, 0), Symbol: mod("types.ts"), SymbolRoles: scip.RoleDefinition},
		{Range: at(0, 6, 16), Symbol: mod("types.ts") + "numberType.", SymbolRoles: scip.RoleDefinition},
		{Range: at(1, 9, 19), Symbol: mod("types.ts") + "numberType."},
		{Range: at(1, 23, 29), Symbol: mod("types.ts") + "numberType."},
		{Range: at(2, 14, 21), Symbol: mod("use.ts")},
	}})
	seed = scip.AppendDocument(seed, &scip.Document{RelativePath: "use.ts", Language: "typescript", Occurrences: []scip.Occurrence{
		{Range: at(0, 0, 0), Symbol: mod("use.ts"), SymbolRoles: scip.RoleDefinition},
		{Range: at(0, 12, 13), Symbol: mod("types.ts")},
		{Range: at(1, 0, 1), Symbol: mod("types.ts")},
		{Range: at(1, 2, 8), Symbol: "local 1"},
		{Range: at(2, 0, 1), Symbol: mod("types.ts")},
		{Range: at(3, 4, 10), Symbol: "local 1"},
	}})
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add(append(append([]byte{}, seed...), seed...))
	f.Add([]byte{})
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "db"))
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	repo, err := st.EnsureRepository(ctx, root, "demo")
	if err != nil {
		f.Fatal(err)
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		f.Fatal(err)
	}
	defer rt.Close()
	f.Fuzz(func(t *testing.T, index []byte) {
		w, err := st.BeginSnapshot(ctx, repo, "")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		lim := scip.Limits{MaxDocumentBytes: 1 << 16, MaxOccurrences: 1 << 10}
		res, err := scipindex.Import(ctx, bytes.NewReader(index), w, scipindex.Options{Repository: repo, Root: rt, Limits: lim})
		if err != nil {
			return
		}
		if res.Documents > len(files) || res.Files > len(files) {
			t.Fatalf("imported %d documents, %d files from a root of %d", res.Documents, res.Files, len(files))
		}
	})
}
