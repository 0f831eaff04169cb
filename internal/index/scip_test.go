package index_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/scipindexer"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// scipIndexers puts the SCIP indexers pinned by e2e/lsp/package.json (npm
// ci --prefix e2e/lsp installs them) first on PATH. Without them the test
// is skipped loudly, except in CI (CI=true), where their absence is a
// failure.
func scipIndexers(t *testing.T) {
	t.Helper()
	bin := lsptest.NodeBin(t, "indexing other languages", scipindexer.TypeScriptCommand, scipindexer.PythonCommand)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(index.SCIPEnv, "")
}

// nodeOnly leaves on PATH only the directory of node, where no SCIP
// indexer is installed.
func nodeOnly(t *testing.T) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED LOUDLY: node is not on PATH")
	}
	dir := filepath.Dir(node)
	for _, name := range []string{scipindexer.TypeScriptCommand, scipindexer.PythonCommand} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Skipf("SKIPPED LOUDLY: %s is installed beside node in %s", name, dir)
		}
	}
	goDir := filepath.Dir(goTool(t))
	t.Setenv("PATH", goDir+string(os.PathListSeparator)+dir)
}

func goTool(t *testing.T) string {
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "sextant.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// symbolsByLanguage reads the current snapshot's symbols back, by
// language and qualified name, counting each.
func symbolsByLanguage(t *testing.T, st graph.Store) map[string]map[string]int {
	t.Helper()
	ctx := context.Background()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchPrefix, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]int{}
	for _, s := range syms {
		lang := s.Language
		if lang == "" {
			lang = "go"
		}
		if out[lang] == nil {
			out[lang] = map[string]int{}
		}
		out[lang][s.QualifiedName]++
	}
	return out
}

// A root of Go, TypeScript and Python is indexed as one snapshot: each
// language's symbols, a file of a nested project once, and the summary
// names each indexer with its version.
func TestIndexSCIPMixed(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	root := txtartest.Write(t, "testdata/scip/mixed.txtar")
	st := openStore(t)
	res, err := index.Index(context.Background(), st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := symbolsByLanguage(t, st)
	for lang, names := range map[string][]string{
		"go":         {"Greet", "main"},
		"typescript": {"Shape", "Shape.area", "Square", "Square.area", "totalArea", "clamp"},
		"python":     {"Base", "Circle", "Circle.area", "total_area"},
	} {
		for _, n := range names {
			if got[lang][n] == 0 {
				t.Errorf("%s symbol %s not indexed; %s has %v", lang, n, lang, got[lang])
			}
		}
	}
	if n := got["typescript"]["clamp"]; n != 1 {
		t.Errorf("clamp of the nested project indexed %d times, want once", n)
	}
	langs := map[string]index.LanguageResult{}
	for _, l := range res.Languages {
		langs[l.Language] = l
	}
	for _, l := range []string{"typescript", "python"} {
		lr := langs[l]
		if lr.Indexed == 0 || lr.Symbols == 0 || lr.Version == "" || lr.NotIndexed != "" {
			t.Errorf("summary of %s: %+v, want it indexed with its indexer's version", l, lr)
		}
	}
	if res.Symbols < 12 {
		t.Errorf("res.Symbols = %d, want every language's", res.Symbols)
	}
}

// A root with no go.mod and a TypeScript project is indexed.
func TestIndexSCIPWithoutGo(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	root := t.TempDir()
	writeFileIn(t, root, "package.json", `{"name": "lib", "version": "1.0.0"}`)
	writeFileIn(t, root, "tsconfig.json", `{"compilerOptions": {"strict": true}}`)
	writeFileIn(t, root, "lib.ts", "export function double(n: number): number { return 2 * n; }\n")
	st := openStore(t)
	if _, err := index.Index(context.Background(), st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := symbolsByLanguage(t, st); got["typescript"]["double"] != 1 {
		t.Errorf("double not indexed: %v", got)
	}
}

// An indexer that is not installed leaves its language out with a
// diagnostic naming the command that installs it; Go is indexed.
func TestIndexSCIPNotInstalled(t *testing.T) {
	hermeticEnv(t)
	nodeOnly(t)
	t.Setenv(index.SCIPEnv, "")
	root := txtartest.Write(t, "testdata/scip/mixed.txtar")
	st := openStore(t)
	res, err := index.Index(context.Background(), st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := symbolsByLanguage(t, st); got["go"]["Greet"] != 1 || len(got["typescript"]) > 0 {
		t.Errorf("symbols %v, want Go's alone", got)
	}
	for _, want := range []string{scipindexer.TypeScriptInstall, scipindexer.PythonInstall} {
		found := false
		for _, d := range res.Skipped {
			found = found || strings.Contains(d.Message, want)
		}
		if !found {
			t.Errorf("no skipped diagnostic says %q: %v", want, res.Skipped)
		}
	}
	for _, l := range res.Languages {
		if l.NotIndexed == "" || l.Indexed != 0 {
			t.Errorf("%s: %+v, want it not indexed, saying why", l.Language, l)
		}
	}
}

// An indexer that fails is a diagnostic with its reason and the end of
// its output; the rest is indexed.
func TestIndexSCIPFailed(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	bad := filepath.Join(t.TempDir(), "scip-python")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho 'pyright: something broke' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	root := txtartest.Write(t, "testdata/scip/mixed.txtar")
	writeFileIn(t, root, "sextant.toml", fmt.Sprintf("[scip.python]\ncommand = %q\n", bad))
	t.Setenv(scipindexer.TrustEnv, "1")
	st := openStore(t)
	res, err := index.Index(context.Background(), st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := symbolsByLanguage(t, st)
	if got["go"]["Greet"] != 1 || got["typescript"]["Square"] != 1 || len(got["python"]) > 0 {
		t.Errorf("symbols %v, want Go's and TypeScript's", got)
	}
	diags := diagnostics(t, st)
	found := false
	for _, d := range diags {
		found = found || strings.Contains(d.Message, "INDEXING_FAILED") && strings.Contains(d.Message, string(scipindexer.Crashed)) &&
			strings.Contains(d.Message, "pyright: something broke")
	}
	if !found {
		t.Errorf("no diagnostic gives the reason and output of the failed run: %v", diags)
	}
	for _, l := range res.Languages {
		if l.Language == "python" && (len(l.Failed) != 1 || l.NotIndexed == "") {
			t.Errorf("python: %+v, want its failure", l)
		}
	}
}

// A sextant.toml naming an indexer's command, not trusted, runs no
// indexer: each language is a diagnostic saying why; Go is indexed.
func TestIndexSCIPUntrustedConfig(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	t.Setenv(scipindexer.TrustEnv, "")
	root := txtartest.Write(t, "testdata/scip/mixed.txtar")
	writeFileIn(t, root, "sextant.toml", "[scip.python]\ncommand = \"/bin/false\"\n")
	st := openStore(t)
	res, err := index.Index(context.Background(), st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := symbolsByLanguage(t, st); len(got) != 1 || got["go"]["Greet"] != 1 {
		t.Errorf("symbols %v, want Go's alone", got)
	}
	if len(res.Languages) != 2 {
		t.Fatalf("languages %+v, want typescript and python", res.Languages)
	}
	for _, l := range res.Languages {
		if !strings.Contains(l.NotIndexed, scipindexer.TrustEnv) {
			t.Errorf("%s: %+v, want it not indexed, naming %s", l.Language, l, scipindexer.TrustEnv)
		}
	}
}

// SEXTANT_SCIP=off indexes Go alone.
func TestIndexSCIPOff(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	t.Setenv(index.SCIPEnv, "off")
	root := txtartest.Write(t, "testdata/scip/mixed.txtar")
	st := openStore(t)
	res, err := index.Index(context.Background(), st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := symbolsByLanguage(t, st); len(got) != 1 || got["go"]["Greet"] != 1 || len(res.Languages) != 0 {
		t.Errorf("symbols %v, languages %v: want Go's alone", got, res.Languages)
	}
}

// A TypeScript or Python file edited or added after the index is read by
// the refresh, which amends the snapshot with the index of its project
// alone, Go's packages and the other projects as they were, and reports
// graph.PhaseBackground before the indexer runs.
func TestRefreshSCIPFile(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	root := txtartest.Write(t, "testdata/scip/mixed.txtar")
	st := openStore(t)
	ctx := context.Background()
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ file, add, want string }{
		{"web/src/shapes.ts", "\nexport function perimeter(): number { return 4; }\n", "perimeter"},
		{"web/src/extra.ts", "export function extra(): number { return 5; }\n", "extra"},
		{"py/shapes/more.py", "def more() -> int:\n    return 6\n", "more"},
	} {
		time.Sleep(20 * time.Millisecond) // a later modification time
		p := filepath.Join(root, filepath.FromSlash(step.file))
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(b, step.add...), 0o644); err != nil {
			t.Fatal(err)
		}
		var background []string
		res, err := index.Refresh(ctx, st, root, index.Options{Progress: func(p index.Progress) {
			if p.Phase == graph.PhaseBackground {
				background = append(background, p.Message)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		got := symbolsByLanguage(t, st)
		n := got["typescript"][step.want] + got["python"][step.want]
		if n != 1 || got["go"]["Greet"] != 1 || got["typescript"]["clamp"] != 1 || got["python"]["Circle"] != 1 || got["typescript"]["Square"] != 1 {
			t.Errorf("after %s changed, the refresh (whole: %q, amended %v) has %s %d times; want once, and the rest once: %v", step.file, res.Whole, res.Amended, step.want, n, got)
		}
		if res.Whole != "" || len(res.Amended) != 0 || len(background) != 1 {
			t.Errorf("after %s changed: whole %q, amended %v, background %q; want one project indexed again in the background", step.file, res.Whole, res.Amended, background)
		}
	}
}

// A root without go.mod is refreshed after an edit, as it was indexed.
func TestRefreshSCIPWithoutGo(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	root := t.TempDir()
	writeFileIn(t, root, "package.json", `{"name": "lib", "version": "1.0.0"}`)
	writeFileIn(t, root, "tsconfig.json", `{"compilerOptions": {"strict": true}}`)
	writeFileIn(t, root, "lib.ts", "export function double(n: number): number { return 2 * n; }\n")
	st := openStore(t)
	ctx := context.Background()
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a later modification time
	writeFileIn(t, root, "lib.ts", "export function double(n: number): number { return 2 * n; }\nexport function half(n: number): number { return n / 2; }\n")
	if _, err := index.Refresh(ctx, st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := symbolsByLanguage(t, st); got["typescript"]["half"] != 1 {
		t.Errorf("half not indexed by the refresh: %v", got)
	}
}

func diagnostics(t *testing.T, st graph.Store) []graph.Diagnostic {
	t.Helper()
	ctx := context.Background()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	if err != nil || len(repos) != 1 {
		t.Fatalf("repositories %v: %v", repos, err)
	}
	ds, err := r.Diagnostics(ctx, repos[0].Name, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func hermeticEnv(t *testing.T) {
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
}

func writeFileIn(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A workspace's packages laid out alike (each a src/index.ts exporting
// init) keep one key each, and a use one package makes of another's
// declaration, which the using package's index writes with the
// declaring package's symbol, is a reference and a call of that
// declaration.
func TestIndexSCIPWorkspace(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	root := txtartest.Write(t, "testdata/scip/workspace.txtar")
	st := openStore(t)
	ctx := context.Background()
	first, err := index.Index(ctx, st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The base configuration is a project with no input files, not a
	// failure; the JSON module is no document to warn of.
	if len(first.Languages) != 1 || first.Languages[0].Indexed != 2 || len(first.Languages[0].Failed) != 0 ||
		!slices.Equal(first.Languages[0].Empty, []string{"."}) || first.Diagnostics != 0 {
		t.Errorf("languages %+v, %d diagnostics; want 2 projects indexed, the root's empty, no diagnostic", first.Languages, first.Diagnostics)
	}
	check(t, st, []string{"packages/app/src/index.ts:1 import", "packages/app/src/index.ts:8 call"})

	// An edit of the using package indexes it alone again, and joins its
	// uses to the declarations of the package it did not index again.
	time.Sleep(20 * time.Millisecond) // a later modification time
	writeFileIn(t, root, "packages/app/src/index.ts", `import { scale } from "../../geo/src/index";

export function init(): string {
  return "app";
}

export function doubled(n: number): number {
  return scale(n, 2);
}

export function tripled(n: number): number {
  return scale(n, 3);
}
`)
	res, err := index.Refresh(ctx, st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Whole != "" {
		t.Errorf("the refresh indexed the whole root again (%s), want the app's project alone", res.Whole)
	}
	check(t, st, []string{"packages/app/src/index.ts:1 import", "packages/app/src/index.ts:12 call", "packages/app/src/index.ts:8 call"})
}

// A package imported by its name, through the link npm makes in
// node_modules, is joined the same way.
func TestIndexSCIPWorkspaceLinked(t *testing.T) {
	scipIndexers(t)
	hermeticEnv(t)
	root := txtartest.Write(t, "testdata/scip/workspace-linked.txtar")
	if err := os.MkdirAll(filepath.Join(root, "node_modules", "@ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "packages", "geo"), filepath.Join(root, "node_modules", "@ws", "geo")); err != nil {
		t.Skipf("SKIPPED LOUDLY: no symbolic link here (%v): a workspace linked by npm was NOT tested", err)
	}
	st := openStore(t)
	ctx := context.Background()
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	scale, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "scale", Mode: graph.MatchExact, Limit: 10})
	if err != nil || len(scale) != 1 {
		t.Fatalf("scale: %v, %v", scale, err)
	}
	if at, want := usesOf(t, r, scale[0].Key), []string{"packages/app/src/index.ts:1 import", "packages/app/src/index.ts:4 call"}; !slices.Equal(at, want) {
		t.Errorf("uses of scale %v, want %v", at, want)
	}
}

// usesOf lists the uses of key as path:line kind, sorted.
func usesOf(t *testing.T, r graph.Reader, key string) []string {
	t.Helper()
	refs, _, err := r.Refs(context.Background(), graph.RefQuery{Targets: []string{key}, IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, ref := range refs {
		at = append(at, fmt.Sprintf("%s:%d %s", ref.Path, ref.Line, ref.Kind))
	}
	slices.Sort(at)
	return at
}

// check checks the workspace's keys, and that scale's uses are at
// wantUses (sorted), with one call edge from each of doubled and tripled
// (those declared).
func check(t *testing.T, st graph.Store, wantUses []string) {
	t.Helper()
	ctx := context.Background()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	find := func(name string) []graph.Symbol {
		syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: name, Mode: graph.MatchExact, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return syms
	}
	inits := find("init")
	if len(inits) != 2 || inits[0].Key == inits[1].Key {
		t.Errorf("init: %d symbols, keys %v; want one key for each package's", len(inits), keysOf(inits))
	}
	scale, doubled := find("scale"), find("doubled")
	if len(scale) != 1 || len(doubled) != 1 {
		t.Fatalf("scale %d, doubled %d symbols, want one each", len(scale), len(doubled))
	}
	if at := usesOf(t, r, scale[0].Key); !slices.Equal(at, wantUses) {
		t.Errorf("uses of scale %v, want %v", at, wantUses)
	}
	edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callees: []string{scale[0].Key}})
	if err != nil {
		t.Fatal(err)
	}
	callers := map[string]bool{doubled[0].Key: true}
	if tripled := find("tripled"); len(tripled) == 1 {
		callers[tripled[0].Key] = true
	}
	for _, e := range edges {
		if !callers[e.Caller] || e.Coverage != graph.CoverageExact {
			t.Errorf("call of scale %+v, want from doubled or tripled, exact", e)
		}
		delete(callers, e.Caller)
	}
	calls := 0
	for _, u := range wantUses {
		if strings.HasSuffix(u, " call") {
			calls++
		}
	}
	if len(callers) > 0 || len(edges) != calls {
		t.Errorf("calls of scale %+v, want one from each of doubled and tripled (declared)", edges)
	}
}

func keysOf(syms []graph.Symbol) []string {
	var out []string
	for _, s := range syms {
		out = append(out, s.Key)
	}
	return out
}
