package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/sextant-dev/sextant/internal/lsptest"
)

// mixedFixture is a root of Go, TypeScript and Python, the one the
// query tests of the SCIP frontend use.
const mixedFixture = "internal/index/testdata/scip/mixed.txtar"

// scipGate stands in front of each SCIP indexer on PATH: it counts the
// indexer's runs, holds a run while a gate file exists, and fails one
// while a fail file exists, so that a test decides when a background run
// ends and how.
type scipGate struct {
	dir string // the scripts, the run logs, the gate and fail files
}

// newSCIPGate writes the scripts in front of the indexers in real (the
// pinned ones).
func newSCIPGate(t *testing.T, real string) *scipGate {
	t.Helper()
	g := &scipGate{dir: t.TempDir()}
	for _, name := range []string{"scip-typescript", "scip-python"} {
		// The indexer gets an environment of its own (scipindexer.env),
		// so every path is in the script.
		script := fmt.Sprintf("#!/bin/sh\necho run >> '%[1]s'\nwhile [ -e '%[2]s' ]; do sleep 0.05; done\n"+
			"if [ -e '%[3]s' ]; then echo '%[4]s: broken by the test' >&2; exit 3; fi\nexec '%[5]s' \"$@\"\n",
			g.path(name+".runs"), g.path(name+".gate"), g.path(name+".fail"), name, filepath.Join(real, name))
		if err := os.WriteFile(g.path(name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func (g *scipGate) path(name string) string { return filepath.Join(g.dir, name) }

// runs counts the runs of the indexer called name so far.
func (g *scipGate) runs(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(g.path(name + ".runs"))
	if os.IsNotExist(err) {
		return 0
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "run\n")
}

// set creates (on) or removes the file name ("scip-typescript.gate").
func (g *scipGate) set(t *testing.T, name string, on bool) {
	t.Helper()
	if on {
		if err := os.WriteFile(g.path(name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if err := os.Remove(g.path(name)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// writeMixed writes the mixed fixture into a directory of its own and
// returns it, symlinks resolved.
func writeMixed(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join(moduleRoot, filepath.FromSlash(mixedFixture)))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "mixed")
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// connectEnv is connect with env added to the server's environment.
func connectEnv(t *testing.T, env []string, db string, roots ...string) *mcp.ClientSession {
	t.Helper()
	cmd := serveCommand(db, roots...)
	cmd.Env = append(os.Environ(), env...)
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-e2e", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting to sextant serve: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// promptly runs a tool that must answer within a minute, whatever the
// server's patience: an answer that waits for a held indexer fails.
func promptly[T any](t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (T, answer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var zero T
		t.Fatalf("%s %v did not answer within a minute (it waits for the indexer?): %v", tool, args, err)
		return zero, answer{}
	}
	a := answerOf(t, res)
	return decodeOK[T](t, tool, args, a), a
}

type overviewLanguage struct {
	Language   string `json:"language"`
	Files      int    `json:"files"`
	Symbols    int    `json:"symbols"`
	Indexer    string `json:"indexer"`
	NotIndexed string `json:"not_indexed"`
}

type overviewOut struct {
	envelope
	Languages []overviewLanguage `json:"languages"`
}

type impactOut struct {
	envelope
	Changed []struct {
		QualifiedName string `json:"qualified_name"`
		Path          string `json:"path"`
	} `json:"changed"`
	Affected []struct {
		QualifiedName string `json:"qualified_name"`
	} `json:"affected"`
	Results []struct {
		Name     string `json:"name"`
		Path     string `json:"path"`
		Coverage string `json:"coverage"`
	} `json:"results"`
	Commands []struct {
		Command string `json:"command"`
	} `json:"commands"`
}

// TestMixedLanguages serves a root of Go, TypeScript and Python through
// the built binary, the SCIP indexers pinned in e2e/lsp: the overview
// names the three languages; the tools about symbols answer in each, and
// get_impact names each language's tests with the line that runs them; a
// Go-only tool on a Python symbol is UNSUPPORTED_LANGUAGE. An edit of
// the TypeScript file that adds a reference is outlined at once, from
// the file, while its references are answered from the last snapshot,
// marked stale, until scip-typescript has indexed its project again in
// the background (Python and Go are not indexed again); then they are
// fresh and list the new reference. An indexer that fails leaves the
// last snapshot serving, saying so.
func TestMixedLanguages(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the indexers are held by shell scripts")
	}
	real := lsptest.NodeBin(t, "the mixed-language end-to-end test", "scip-typescript", "scip-python")
	gate := newSCIPGate(t, real)
	root := writeMixed(t)
	db := filepath.Join(t.TempDir(), "mixed.db")
	// The node the indexers need stays on PATH after them.
	cs := connectEnv(t, []string{"PATH=" + gate.dir + string(os.PathListSeparator) + os.Getenv("PATH"), "SEXTANT_SCIP=", "SEXTANT_WAIT=600"}, db, root)

	ov, _ := callOK[overviewOut](t, cs, "get_repository_overview", map[string]any{})
	for _, want := range []struct{ lang, indexer string }{{"go", "go/types"}, {"typescript", "scip-typescript"}, {"python", "scip-python"}} {
		found := false
		for _, l := range ov.Languages {
			if l.Language == want.lang {
				found = true
				if l.Files == 0 || l.Symbols == 0 || l.Indexer != want.indexer || l.NotIndexed != "" {
					t.Errorf("overview, %s: %+v", want.lang, l)
				}
			}
		}
		if !found {
			t.Errorf("the overview does not list %s: %+v", want.lang, ov.Languages)
		}
	}

	for _, c := range []struct {
		lang, file, typ, function, caller, line string
		tests                                   []string // the tests get_impact names: file: name
		command                                 string   // and the line that runs them
	}{
		{"go", "main.go", "Greet", "Greet", "main", `return "hello " + name`,
			[]string{"main_test.go: TestGreeting"}, `go test -run '^(TestGreeting)$' .`},
		{"typescript", "web/src/shapes.ts", "Square", "totalArea", "main", "return t;",
			[]string{"web/src/shapes.test.ts: main's area is positive", "web/src/shapes.test.ts: shapes > sums the areas"},
			`cd web && npx vitest run src/shapes.test.ts -t '^ ?(shapes( > | )sums the areas|main'\''s area is positive)$'`},
		{"python", "py/shapes/geometry.py", "Circle", "total_area", "main", "return sum(s.area() for s in shapes)",
			[]string{"py/tests/test_geometry.py: GeometryTests.test_main_again", "py/tests/test_geometry.py: test_answer", "py/tests/test_geometry.py: test_main"},
			"cd py && python -m pytest tests/test_geometry.py::test_main tests/test_geometry.py::GeometryTests::test_main_again tests/test_geometry.py::test_answer"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			sel := map[string]any{"qualified_name": c.function, "path": c.file}
			fs, _ := callOK[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": c.typ, "mode": "exact"})
			if len(fs.Results) != 1 || fs.Results[0].Path != c.file {
				t.Errorf("find_symbol %s: %+v", c.typ, fs.Results)
			}
			gs, _ := callOK[getSymbolOut](t, cs, "get_symbol", map[string]any{"qualified_name": c.typ, "path": c.file})
			if gs.Results == nil || gs.Results.Path != c.file || gs.Results.Name != c.typ {
				t.Errorf("get_symbol %s: %+v", c.typ, gs.Results)
			}
			ol, _ := callOK[outlineOut](t, cs, "get_file_outline", map[string]any{"path": c.file})
			if len(ol.Results) != 1 || ol.Results[0].entry(c.typ) == nil || ol.Results[0].entry(c.function) == nil || !ol.Fresh {
				t.Errorf("get_file_outline %s: fresh=%v %+v", c.file, ol.Fresh, ol.Results)
			}
			rs, _ := callOK[readSourceOut](t, cs, "read_source", sel)
			if len(rs.Results) == 0 || !strings.Contains(rs.Results[0].Source, c.line) {
				t.Errorf("read_source %s: %+v", c.function, rs.Results)
			}
			refs, _ := callOK[findReferencesOut](t, cs, "find_references", sel)
			if refs.Total != 1 || len(refs.Results) != 1 || refs.Results[0].Path != c.file || !refs.Fresh {
				t.Errorf("find_references %s: fresh=%v total=%d %+v", c.function, refs.Fresh, refs.Total, refs.Results)
			}
			callers, _ := callOK[callGraphOut](t, cs, "get_callers", sel)
			if len(callers.Results) != 1 || callers.Results[0].QualifiedName != c.caller {
				t.Errorf("get_callers %s: %+v", c.function, callers.Results)
			}
			imp, _ := callOK[impactOut](t, cs, "get_impact", sel)
			reached := false
			for _, a := range imp.Affected {
				reached = reached || a.QualifiedName == c.caller
			}
			if len(imp.Changed) != 1 || imp.Changed[0].QualifiedName != c.function || !reached {
				t.Errorf("get_impact %s: changed %+v, affected %+v, want %s reached", c.function, imp.Changed, imp.Affected, c.caller)
			}
			var tests []string
			for _, r := range imp.Results {
				tests = append(tests, r.Path+": "+r.Name)
			}
			if fmt.Sprint(tests) != fmt.Sprint(c.tests) || len(imp.Commands) != 1 || imp.Commands[0].Command != c.command {
				t.Errorf("get_impact %s: tests %q, commands %+v; want %q run by %s", c.function, tests, imp.Commands, c.tests, c.command)
			}
		})
	}

	for _, args := range []struct {
		tool string
		args map[string]any
	}{
		{"explain_effects", map[string]any{"qualified_name": "total_area", "path": "py/shapes/geometry.py"}},
		{"infer_type", map[string]any{"file": "py/shapes/geometry.py", "line": 17, "column": 12}},
	} {
		e := callErr(t, cs, args.tool, args.args, "UNSUPPORTED_LANGUAGE")
		if !strings.Contains(e.Message, "python") && !strings.Contains(e.Message, "Python") {
			t.Errorf("%s on Python: %s does not name the language", args.tool, e.Message)
		}
	}

	// An edit of the TypeScript file, a new function calling totalArea,
	// while scip-typescript is held.
	tsRuns, pyRuns := gate.runs(t, "scip-typescript"), gate.runs(t, "scip-python")
	if tsRuns != 2 || pyRuns != 1 {
		// web and web/packages/util; py.
		t.Fatalf("the first index ran scip-typescript %d times and scip-python %d times, want once a project", tsRuns, pyRuns)
	}
	refsOf := map[string]any{"qualified_name": "totalArea", "path": "web/src/shapes.ts"}
	before, _ := callOK[findReferencesOut](t, cs, "find_references", refsOf)
	shapes := filepath.Join(root, "web", "src", "shapes.ts")
	gate.set(t, "scip-typescript.gate", true)
	appendFile(t, shapes, "\nexport function twice(): number {\n  return 2 * totalArea([new Square(1)]);\n}\n")

	ol, _ := promptly[outlineOut](t, cs, "get_file_outline", map[string]any{"path": "web/src/shapes.ts"})
	if len(ol.Results) != 1 || ol.Results[0].entry("twice") == nil || ol.Results[0].entry("Square") == nil || !ol.Fresh {
		t.Errorf("the outline of the edited file, at once: fresh=%v %+v", ol.Fresh, ol.Results)
	}
	stale, _ := promptly[findReferencesOut](t, cs, "find_references", refsOf)
	if stale.Fresh || !containsSubstring(stale.StaleReasons, "web/src/shapes.ts") || stale.Total != before.Total {
		t.Errorf("find_references while scip-typescript runs: fresh=%v reasons=%v total=%d (was %d)", stale.Fresh, stale.StaleReasons, stale.Total, before.Total)
	}
	py, _ := promptly[findSymbolOut](t, cs, "find_symbol", map[string]any{"name": "Circle", "mode": "exact"})
	if len(py.Results) != 1 {
		t.Errorf("Python while scip-typescript runs: %+v", py.Results)
	}

	// Released, the run publishes; answers become fresh and list the
	// new reference.
	gate.set(t, "scip-typescript.gate", false)
	after := pollFresh(t, cs, refsOf)
	if after.Total != before.Total+1 || !refsIn(after, "twice") {
		t.Errorf("find_references once re-indexed: total=%d (was %d) %+v", after.Total, before.Total, after.Results)
	}
	if n := gate.runs(t, "scip-python"); n != pyRuns {
		t.Errorf("an edit of TypeScript ran scip-python again (%d runs, was %d)", n, pyRuns)
	}
	if n := gate.runs(t, "scip-typescript"); n != tsRuns+1 {
		t.Errorf("scip-typescript ran %d times after the edit, want once (on web alone)", n-tsRuns)
	}
	callers, _ := callOK[callGraphOut](t, cs, "get_callers", refsOf)
	if !callers.Fresh || len(callers.Results) != 2 {
		t.Errorf("get_callers once re-indexed: fresh=%v %+v", callers.Fresh, callers.Results)
	}
	goSym, _ := callOK[getSymbolOut](t, cs, "get_symbol", map[string]any{"qualified_name": "Greet", "path": "main.go"})
	if !goSym.Fresh || goSym.Results == nil {
		t.Errorf("Go once TypeScript is re-indexed: fresh=%v %+v", goSym.Fresh, goSym.Results)
	}

	// An indexer that fails: the last snapshot keeps serving, stale, and
	// says why.
	gate.set(t, "scip-typescript.fail", true)
	appendFile(t, shapes, "\nexport function thrice(): number {\n  return 3 * totalArea([]);\n}\n")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, _ := promptly[findReferencesOut](t, cs, "find_references", refsOf)
		if got.Fresh {
			t.Fatalf("find_references after a failed run: fresh, %+v", got.Results)
		}
		if got.Total != after.Total {
			t.Errorf("the last snapshot does not keep serving: total=%d (was %d)", got.Total, after.Total)
		}
		if containsSubstring(got.StaleReasons, "broken by the test") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failed run is not reported within two minutes: %v", got.StaleReasons)
		}
		time.Sleep(100 * time.Millisecond)
	}
	gate.set(t, "scip-typescript.fail", false)
	appendFile(t, shapes, "\n")
	if got := pollFresh(t, cs, refsOf); got.Total != after.Total+1 || !refsIn(got, "thrice") {
		t.Errorf("find_references once mended: total=%d %+v", got.Total, got.Results)
	}
}

// pollFresh calls find_references with args until it is fresh, for at
// most two minutes.
func pollFresh(t *testing.T, cs *mcp.ClientSession, args map[string]any) findReferencesOut {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, _ := promptly[findReferencesOut](t, cs, "find_references", args)
		if got.Fresh {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("find_references %v is not fresh within two minutes: %v", args, got.StaleReasons)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// refsIn reports whether a reference of out is enclosed by a declaration
// called enclosing.
func refsIn(out findReferencesOut, enclosing string) bool {
	for _, f := range out.Results {
		for _, r := range f.References {
			if r.Enclosing == enclosing {
				return true
			}
		}
	}
	return false
}
