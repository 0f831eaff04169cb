package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeNested writes files (slash-separated relative path → content),
// directories included, into a new temporary directory and returns it.
func writeNested(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// `sextant index` of a go.work that uses a missing directory indexes the
// modules that are there and says, in its summary and its JSON, what it
// skipped.
func TestIndexSaysWhatItSkipped(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := writeNested(t, map[string]string{
		"go.work":  "go 1.22\n\nuse (\n\t./a\n\t./gone\n)\n",
		"a/go.mod": "module example.com/a\n\ngo 1.22\n",
		"a/a.go":   "package a\n\nfunc A() {}\n",
	})
	db := filepath.Join(t.TempDir(), "db")
	out, errOut, code := cliRun("index", "--db", db, dir)
	if code != 0 {
		t.Fatalf("index exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "1 packages") || !strings.Contains(out, "skipped 1:") || !strings.Contains(out, "go.work:5: go.work uses ./gone") || !strings.Contains(out, "build GOOS=") {
		t.Errorf("the summary does not say what was skipped:\n%s", out)
	}
	out, errOut, code = cliRun("index", "--json", "--db", db, dir)
	if code != 0 {
		t.Fatalf("index --json exited %d: %s%s", code, out, errOut)
	}
	var sums []struct {
		Packages int      `json:"packages"`
		Skipped  []string `json:"skipped"`
		Build    string   `json:"build"`
	}
	if err := json.Unmarshal([]byte(out), &sums); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(sums) != 1 || sums[0].Packages != 1 || len(sums[0].Skipped) != 1 || !strings.HasPrefix(sums[0].Skipped[0], "go.work:5: go.work uses ./gone") {
		t.Errorf("JSON summary %+v, want one package and go.work:5 skipped", sums)
	}
	if len(sums) == 1 && !strings.HasPrefix(sums[0].Build, "GOOS=") {
		t.Errorf("JSON summary %+v does not say the build configuration", sums)
	}
}

// `sextant index` of a root with a TypeScript and a Python project whose
// indexers are not installed indexes its Go and names, in its summary and
// its JSON, each language it found but did not index, with the command
// that installs its indexer.
func TestIndexSaysLanguagesNotIndexed(t *testing.T) {
	withoutIndexers(t)
	dir := writeNested(t, map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.22\n",
		"m.go":              "package m\n\nfunc M() {}\n",
		"web/package.json":  `{"name": "web"}`,
		"web/tsconfig.json": `{}`,
		"web/a.ts":          "export const a = 1;\n",
		"py/pyproject.toml": "[project]\nname = \"p\"\n",
		"py/p/m.py":         "def f():\n    return 1\n",
	})
	db := filepath.Join(t.TempDir(), "db")
	out, errOut, code := cliRun("index", "--db", db, dir)
	if code != 0 {
		t.Fatalf("index exited %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"typescript: not indexed", "npm install -g @sourcegraph/scip-typescript@0.4.0", "python: not indexed", "npm install -g @sourcegraph/scip-python@0.6.6"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary does not say %q:\n%s", want, out)
		}
	}
	out, errOut, code = cliRun("index", "--json", "--db", db, dir)
	if code != 0 {
		t.Fatalf("index --json exited %d: %s%s", code, out, errOut)
	}
	var sums []struct {
		Symbols   int `json:"symbols"`
		Languages []struct {
			Language   string `json:"language"`
			NotIndexed string `json:"not_indexed"`
		} `json:"languages"`
	}
	if err := json.Unmarshal([]byte(out), &sums); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(sums) != 1 || len(sums[0].Languages) != 2 || sums[0].Symbols == 0 {
		t.Fatalf("JSON summary %+v, want Go's symbols and two languages", sums)
	}
	for _, l := range sums[0].Languages {
		if !strings.Contains(l.NotIndexed, "npm install -g @sourcegraph/scip-") {
			t.Errorf("%s: not_indexed %q, want the install command", l.Language, l.NotIndexed)
		}
	}
}

// A project of JavaScript alone that is found and not indexed is named
// JavaScript, in the index summary, the skipped diagnostic and the
// overview, not TypeScript, whose indexer it shares.
func TestOverviewJavaScriptNotIndexed(t *testing.T) {
	withoutIndexers(t)
	dir := writeNested(t, map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.22\n",
		"m.go":              "package m\n\nfunc M() {}\n",
		"site/package.json": `{"name": "site"}`,
		"site/app.js":       "export const a = 1;\n",
	})
	db := filepath.Join(t.TempDir(), "db")
	out, errOut, code := cliRun("index", "--db", db, dir)
	if code != 0 {
		t.Fatalf("index exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "javascript: not indexed (1 project)") || strings.Contains(out, "typescript:") || strings.Contains(out, "TypeScript") {
		t.Errorf("the index summary does not name JavaScript alone:\n%s", out)
	}
	out, errOut, code = cliRun("get_repository_overview", "--db", db, "--root", dir)
	if code != 0 {
		t.Fatalf("get_repository_overview exited %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"language javascript: not indexed", "JavaScript not indexed (site)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the overview does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "language typescript") || strings.Contains(out, "TypeScript") {
		t.Errorf("the overview names TypeScript for a project of JavaScript alone:\n%s", out)
	}
}

// withoutIndexers leaves on PATH the directory of go alone, where no SCIP
// indexer is (the test is skipped, loudly, when one is), and turns the
// module proxy off.
func withoutIndexers(t *testing.T) {
	t.Helper()
	t.Setenv("GOPROXY", "off")
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(goBin))
	for _, name := range []string{"scip-typescript", "scip-python"} {
		if _, err := exec.LookPath(name); err == nil {
			t.Skipf("SKIPPED LOUDLY: %s is installed beside go", name)
		}
	}
}
