package query

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsptest"
)

// scipIndexers puts the SCIP indexers pinned by e2e/lsp/package.json (npm
// ci --prefix e2e/lsp installs them) first on PATH. Without them the test
// is skipped loudly, except in CI (CI=true), where their absence is a
// failure.
func scipIndexers(t *testing.T) {
	t.Helper()
	bin := lsptest.NodeBin(t, "the tools on other languages", "scip-typescript", "scip-python")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("SEXTANT_SCIP", "")
}

// The tools about symbols answer for TypeScript and Python as for Go,
// with the same arguments, from one snapshot of a root of the three; the
// tools that read Go's types answer UNSUPPORTED_LANGUAGE, naming the
// language and the tools that do answer.
func TestSCIPLanguages(t *testing.T) {
	scipIndexers(t)
	f := newFixture(t, "../index/testdata/scip/mixed.txtar")
	answer := func(tool, args string) string {
		t.Helper()
		a, err := f.call(t, tool, args)
		if err != nil {
			t.Errorf("%s %s: %v", tool, args, err)
			return ""
		}
		b, _ := json.Marshal(a)
		return string(b)
	}
	for _, c := range []struct {
		lang, file, name, function, caller, line string
	}{
		{"go", "main.go", "Greet", "Greet", "main", `return \"hello \" + name`},
		{"typescript", "web/src/shapes.ts", "Square", "totalArea", "main", "return t;"},
		{"python", "py/shapes/geometry.py", "Circle", "total_area", "main", "return sum(s.area() for s in shapes)"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			if got := answer("find_symbol", fmt.Sprintf(`{"name":%q,"mode":"exact"}`, c.name)); !strings.Contains(got, c.file) {
				t.Errorf("find_symbol %s: %s", c.name, got)
			}
			lang := `"language":"` + c.lang + `"`
			if c.lang == "go" {
				lang = `"path"` // no language said for Go
			}
			if got := answer("get_symbol", fmt.Sprintf(`{"qualified_name":%q,"path":%q}`, c.name, c.file)); !strings.Contains(got, `"path":"`+c.file+`"`) || !strings.Contains(got, lang) {
				t.Errorf("get_symbol %s: %s", c.name, got)
			}
			if got := answer("get_symbol", fmt.Sprintf(`{"file":%q,"name":%q}`, c.file, c.function)); !strings.Contains(got, `"qualified_name":"`+c.function+`"`) {
				t.Errorf("get_symbol file+name %s: %s", c.function, got)
			}
			if got := answer("read_source", fmt.Sprintf(`{"qualified_name":%q,"path":%q}`, c.function, c.file)); !strings.Contains(got, c.line) {
				t.Errorf("read_source %s: %s", c.function, got)
			}
			if got := answer("get_file_outline", fmt.Sprintf(`{"path":%q}`, c.file)); !strings.Contains(got, `"name":"`+c.name+`"`) || !strings.Contains(got, `"name":"`+c.function+`"`) {
				t.Errorf("get_file_outline %s: %s", c.file, got)
			}
			if got := answer("find_references", fmt.Sprintf(`{"qualified_name":%q,"path":%q}`, c.function, c.file)); !strings.Contains(got, `"total":1`) {
				t.Errorf("find_references %s: %s", c.function, got)
			}
			if got := answer("get_callers", fmt.Sprintf(`{"qualified_name":%q,"path":%q}`, c.function, c.file)); !strings.Contains(got, `"qualified_name":"`+c.caller+`"`) {
				t.Errorf("get_callers %s: %s", c.function, got)
			}
			if c.lang == "go" {
				return
			}
			for _, call := range []struct{ tool, args string }{
				{"explain_effects", fmt.Sprintf(`{"qualified_name":%q,"path":%q}`, c.function, c.file)},
				{"render_ssa", fmt.Sprintf(`{"qualified_name":%q,"path":%q}`, c.function, c.file)},
				{"explain_type", fmt.Sprintf(`{"qualified_name":%q,"path":%q}`, c.name, c.file)},
				{"infer_type", fmt.Sprintf(`{"file":%q,"line":1,"column":1}`, c.file)},
			} {
				_, err := f.call(t, call.tool, call.args)
				e, coded := asError(err)
				if !coded || e.Code != graph.CodeUnsupportedLanguage || !strings.Contains(e.Message, "find_references") || e.Data["language"] != c.lang {
					t.Errorf("%s %s: %v, want UNSUPPORTED_LANGUAGE naming %s and the tools that answer", call.tool, call.args, err, c.lang)
				}
			}
		})
	}
}

// get_repository_overview names each language of a mixed root with its
// files, symbols and indexer; one whose indexer is not installed is
// named with the command that installs it.
func TestSCIPOverviewLanguages(t *testing.T) {
	for _, installed := range []bool{true, false} {
		t.Run(fmt.Sprint("installed=", installed), func(t *testing.T) {
			want := map[string]string{"go": "go/types", "typescript": "scip-typescript", "python": "scip-python"}
			if installed {
				scipIndexers(t)
			} else {
				goBin, err := exec.LookPath("go")
				if err != nil {
					t.Fatal(err)
				}
				t.Setenv("PATH", filepath.Dir(goBin)) // no SCIP indexer there
				if _, err := exec.LookPath("scip-typescript"); err == nil {
					t.Skip("SKIPPED LOUDLY: scip-typescript is installed beside go")
				}
				want["typescript"], want["python"] = "npm install -g @sourcegraph/scip-typescript@0.4.0", "npm install -g @sourcegraph/scip-python@0.6.6"
			}
			f := newFixture(t, "../index/testdata/scip/mixed.txtar")
			t.Setenv("GOOS", "windows")
			t.Setenv("GOARCH", "arm64")
			a, err := f.call(t, "get_repository_overview", `{}`)
			if err != nil {
				t.Fatal(err)
			}
			ov := a.(*GetRepositoryOverviewOutput)
			got := map[string]OverviewLanguage{}
			for _, l := range ov.Languages {
				got[l.Language] = l
			}
			for lang, says := range want {
				l := got[lang]
				indexed := lang == "go" || installed
				if indexed && (l.Files == 0 || l.Symbols == 0 || l.Indexer != says) || !indexed && !strings.Contains(l.NotIndexed, says) {
					t.Errorf("%s: %+v, want it to say %s", lang, l, says)
				}
				// The indexer's version, as the snapshot recorded it.
				if version := map[string]string{"go": runtime.Version(), "typescript": "0.4.0", "python": "0.6.6"}[lang]; indexed && l.Version != version {
					t.Errorf("%s: indexer version %q, want %q", lang, l.Version, version)
				}
			}
			// Where tests live counts each language's test files by its
			// conventions: go test's, pytest's, jest's and vitest's.
			var dirs []string
			for _, d := range ov.Tests {
				dirs = append(dirs, d.Dir)
			}
			slices.Sort(dirs)
			if want := []string{".", "py/tests", "web/src"}; installed && (!slices.Equal(dirs, want) || ov.TestDirs != len(want)) {
				t.Errorf("tests in %d directories %v, want %v", ov.TestDirs, dirs, want)
			}
			// A package counts the source files of its language, tests
			// aside: web/src's one .ts file beside its .test.ts.
			files := map[string]int{}
			for _, p := range ov.Results {
				files[p.Dir] = p.Files
			}
			if want := map[string]int{".": 1, "web/src": 1, "py/shapes": 2}; installed && (files["."] != 1 || files["web/src"] != 1 || files["py/shapes"] != 2) {
				t.Errorf("packages' files %v, want %v", files, want)
			}
			// A TypeScript package's layer counts the packages whose
			// declarations it uses: web/src uses clamp of
			// web/packages/util, which uses none.
			layers := map[string]int{}
			for _, p := range ov.Results {
				layers[p.Dir] = p.Layer
			}
			if installed && (layers["web/src"] != 1 || layers["web/packages/util"] != 0 || layers["py/shapes"] != 0) {
				t.Errorf("packages' layers %v, want web/src 1 above web/packages/util and py/shapes 0", layers)
			}
			if want := "(scip-typescript 0.4.0)"; installed && !strings.Contains(ov.Text(), want) {
				t.Errorf("the overview's text does not say %s:\n%s", want, ov.Text())
			}
			// The configuration the snapshot was made with, not the one
			// of the process reading it.
			if !strings.HasPrefix(ov.Build, "GOOS=linux GOARCH=amd64") {
				t.Errorf("build %q, want the configuration the fixture was indexed with (linux/amd64)", ov.Build)
			}
			if text := ov.Text(); !strings.Contains(text, "language typescript") || !strings.Contains(text, "language python") {
				t.Errorf("the overview's text does not name the languages:\n%s", text)
			}
			if installed {
				return
			}
			// Without the indexers Go answers, and a file of the others is
			// outlined from its source.
			if got := ok[*GetSymbolOutput](t, f, "get_symbol", `{"qualified_name":"Greet"}`); got.Results == nil || got.Results.Path != "main.go" {
				t.Errorf("get_symbol Greet without the SCIP indexers: %+v", got.Results)
			}
			for file, names := range map[string][]string{"web/src/shapes.ts": {"Square", "totalArea"}, "py/shapes/geometry.py": {"Circle", "total_area"}} {
				ol := ok[*GetFileOutlineOutput](t, f, "get_file_outline", fmt.Sprintf(`{"path":%q}`, file))
				var got []string
				for _, r := range ol.Results {
					for _, e := range r.Entries {
						got = append(got, e.Name)
					}
				}
				for _, n := range names {
					if !slices.Contains(got, n) {
						t.Errorf("the outline of %s without its indexer: %v, want %s", file, got, n)
					}
				}
			}
		})
	}
}

// check_file on a TypeScript or Python file lists its language server's
// diagnostics (typescript-language-server, pyright from e2e/lsp) in the
// shape it gives Go's: clean files are ok, a type error is listed at its
// line with the server's code, and go vet's analyzers are refused.
func TestCheckFileOtherLanguages(t *testing.T) {
	scipIndexers(t)
	lsptest.NodeBin(t, "check_file on other languages", "typescript-language-server", "pyright-langserver")
	f := newFixture(t, "../index/testdata/scip/mixed.txtar")
	for _, c := range []struct {
		lang, file, bad, checker string
	}{
		{"typescript", "web/src/shapes.ts", "export const wrong: number = \"text\";\n", "typescript"},
		{"python", "py/shapes/geometry.py", "wrong: int = \"text\"\n", "pyright"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			a, err := f.call(t, "check_file", fmt.Sprintf(`{"file":%q}`, c.file))
			if err != nil {
				t.Fatalf("check_file %s: %v", c.file, err)
			}
			if out := a.(*CheckFileOutput); !out.OK || out.Checker != c.checker || len(out.Results) != 0 {
				t.Errorf("check_file %s, a clean file: %+v, want ok from %s", c.file, out, c.checker)
			}
			path := filepath.Join(f.dir, c.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			line := strings.Count(string(src), "\n") + 1
			if err := os.WriteFile(path, append(src, c.bad...), 0o644); err != nil {
				t.Fatal(err)
			}
			a, err = f.call(t, "check_file", fmt.Sprintf(`{"file":%q}`, c.file))
			if err != nil {
				t.Fatalf("check_file %s: %v", c.file, err)
			}
			out := a.(*CheckFileOutput)
			if out.OK || len(out.Results) == 0 {
				t.Fatalf("check_file %s with a type error: %+v", c.file, out)
			}
			d := out.Results[0]
			if d.Path != c.file || d.Line != line || d.Severity != "error" || d.Code == "" || d.Message == "" {
				t.Errorf("check_file %s: %+v, want an error with a code at line %d", c.file, d, line)
			}
			if text := out.Text(); !strings.Contains(text, fmt.Sprintf("%s:%d:", c.file, line)) {
				t.Errorf("check_file %s text:\n%s", c.file, text)
			}
			_, err = f.call(t, "check_file", fmt.Sprintf(`{"file":%q,"analyzers":true}`, c.file))
			if e, ok := asError(err); !ok || e.Code != graph.CodeInvalidArgument {
				t.Errorf("check_file %s with analyzers: %v, want INVALID_ARGUMENT", c.file, err)
			}
		})
	}
}

// get_impact names the tests of TypeScript and Python that reach a
// change by their runners' conventions, as it names Go's (vitest's describe/it/test blocks,
// named from their string arguments; pytest's test functions and the
// test methods of Test classes and of unittest's TestCase classes, and
// the tests taking a fixture reached), each with how it is reached, and the
// command lines that run exactly them, from the project that runs them.
func TestSCIPImpactTests(t *testing.T) {
	scipIndexers(t)
	f := newFixture(t, "../index/testdata/scip/mixed.txtar")
	for _, c := range []struct {
		name, args string
		tests      []string // name [coverage via]
		commands   []string
	}{
		{"go", `{"qualified_name":"Greet","path":"main.go"}`,
			[]string{"TestGreeting [exact call]"},
			[]string{`go test -run '^(TestGreeting)$' .`}},
		{"typescript", `{"qualified_name":"main","path":"web/src/shapes.ts"}`,
			[]string{"main's area is positive [exact call]", "shapes > sums the areas [exact call]"},
			[]string{`cd web && npx vitest run src/shapes.test.ts -t '^ ?(shapes( > | )sums the areas|main'\''s area is positive)$'`}},
		{"typescript method", `{"qualified_name":"Square.area","path":"web/src/shapes.ts"}`,
			[]string{"shapes > squares a side [exact call]", "main's area is positive [candidate call]", "shapes > sums the areas [candidate call]"},
			[]string{`cd web && npx vitest run src/shapes.test.ts -t '^ ?(shapes( > | )sums the areas|shapes( > | )squares a side|main'\''s area is positive)$'`}},
		{"python", `{"qualified_name":"total_area","path":"py/shapes/geometry.py"}`,
			[]string{"GeometryTests.test_main_again [exact call]", "test_answer [exact reference]", "test_main [exact call]"},
			[]string{`cd py && python -m pytest tests/test_geometry.py::test_main tests/test_geometry.py::GeometryTests::test_main_again tests/test_geometry.py::test_answer`}},
		{"python method", `{"qualified_name":"Circle.area","path":"py/shapes/geometry.py"}`,
			[]string{"TestCircle.test_area [exact call]", "GeometryTests.test_main_again [candidate call]", "test_answer [candidate reference]", "test_main [candidate call]"},
			[]string{`cd py && python -m pytest tests/test_geometry.py::test_main tests/test_geometry.py::TestCircle::test_area tests/test_geometry.py::GeometryTests::test_main_again tests/test_geometry.py::test_answer`}},
		// A file's lines, and a diff, name the declarations they touch
		// from the source, as for Go.
		{"typescript lines", `{"file":"web/src/shapes.ts","lines":"23"}`,
			[]string{"main's area is positive [exact call]", "shapes > sums the areas [exact call]"},
			[]string{`cd web && npx vitest run src/shapes.test.ts -t '^ ?(shapes( > | )sums the areas|main'\''s area is positive)$'`}},
		{"python diff", fmt.Sprintf(`{"diff_text":%q}`, "--- a/py/shapes/geometry.py\n+++ b/py/shapes/geometry.py\n@@ -17 +17 @@\n"+
			"-    return sum(s.area() for s in shapes)\n+    return float(sum(s.area() for s in shapes))\n"),
			[]string{"GeometryTests.test_main_again [exact call]", "test_answer [exact reference]", "test_main [exact call]"},
			[]string{`cd py && python -m pytest tests/test_geometry.py::test_main tests/test_geometry.py::GeometryTests::test_main_again tests/test_geometry.py::test_answer`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := ok[*GetImpactOutput](t, f, "get_impact", c.args)
			var tests, commands []string
			for _, x := range out.Results {
				tests = append(tests, fmt.Sprintf("%s [%s %s]", x.Name, x.Coverage, x.Via))
			}
			for _, x := range out.Commands {
				commands = append(commands, x.Command)
			}
			if spots := strings.Join(out.BlindSpots, "; "); strings.Contains(spots, "fmt calls") || strings.Contains(spots, "reflection") {
				t.Errorf("get_impact %s: Go's blind spots said of another language: %s", c.args, spots)
			}
			if len(out.Changed) != 1 || out.Changed[0].StableKey == "" {
				t.Errorf("get_impact %s: changed %+v, want one declaration of the index", c.args, out.Changed)
			}
			if fmt.Sprint(tests) != fmt.Sprint(c.tests) || fmt.Sprint(commands) != fmt.Sprint(c.commands) || out.TestsTotal != len(c.tests) {
				t.Errorf("get_impact %s:\ntests    %q\nwant     %q\ncommands %q\nwant     %q\n%s", c.args, tests, c.tests, commands, c.commands, out.Text())
			}
		})
	}
}
