package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

func TestSplitLoc(t *testing.T) {
	path, line, col := splitLoc("src/a:b.ts:12:3")
	if path != "src/a:b.ts" || line != 12 || col != 3 {
		t.Errorf("splitLoc = %q %d %d", path, line, col)
	}
}

func TestToken(t *testing.T) {
	line := []rune("é = z.number();")
	for col, want := range map[int]string{1: "é", 5: "z", 7: "number", 6: "", 0: "", 99: ""} {
		if got := token(line, col); got != want {
			t.Errorf("token(%d) = %q, want %q", col, got, want)
		}
	}
}

func TestTextRules(t *testing.T) {
	for _, c := range []struct {
		head   string
		ns     string
		member bool
		decl   bool
	}{
		{"const a = z.", "z", true, false},
		{"x = core.util.", "util", true, false},
		{"return f(", "", false, false},
		{".", "", false, false},
		{"    class ", "", false, true},
		{"export function ", "", false, true},
		{"subclass ", "", false, false},
	} {
		ns, ok := namespaceMember(c.head)
		if ns != c.ns || ok != c.member {
			t.Errorf("namespaceMember(%q) = %q, %v; want %q, %v", c.head, ns, ok, c.ns, c.member)
		}
		if got := declares(c.head, "X"); got != c.decl {
			t.Errorf("declares(%q) = %v, want %v", c.head, got, c.decl)
		}
	}
}

// The pick is the same every time, spread over the categories, and
// leaves out tests, other languages and what is not at the top of a
// module among constants.
func TestPickSymbols(t *testing.T) {
	dir := t.TempDir()
	src := "function f0() {}\nfunction f1() {}\nfunction f2() {}\nclass C {}\nconst K = 1;\n"
	if err := os.WriteFile(filepath.Join(dir, "a.ts"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sym := func(name string, kind graph.Kind, line int) graph.Symbol {
		return graph.Symbol{Key: name, Name: name, QualifiedName: name, Kind: kind, Language: "typescript", Path: "a.ts", StartLine: line, StartCol: 1, EndLine: line}
	}
	syms := []graph.Symbol{
		sym("f0", graph.KindFunc, 1), sym("f1", graph.KindFunc, 2), sym("f2", graph.KindFunc, 3),
		sym("C", graph.KindType, 4), sym("K", graph.KindConst, 5),
	}
	nested := sym("K", graph.KindVar, 5)
	nested.Key, nested.QualifiedName = "o.K", "o.K"
	test := sym("f0", graph.KindFunc, 1)
	test.Key, test.TestOnly = "t", true
	py := sym("f1", graph.KindFunc, 2)
	py.Key, py.Language = "py", "python"
	syms = append(syms, nested, test, py)
	got := pickSymbols(syms, "typescript", 4, newSources(dir))
	var keys []string
	for _, s := range got {
		keys = append(keys, s.Key)
	}
	want := []string{"f0", "f1", "C", "K"}
	if len(keys) != len(want) {
		t.Fatalf("picked %v, want %v", keys, want)
	}
	for i := range want {
		if keys[i] != want[i] {
			t.Fatalf("picked %v, want %v", keys, want)
		}
	}
}

// TestPyrightReads: the files pyright's configuration includes, by
// directory, and every file when the project names none.
func TestPyrightReads(t *testing.T) {
	dir := t.TempDir()
	c := &comparer{src: newSources(dir)}
	if !c.pyrightReads("tests/test_a.py") {
		t.Error("no pyproject.toml: every file is read")
	}
	cfg := "[project]\nname = \"x\"\n\n[tool.pyright]\ninclude = [\"src\", \"tests/typing/\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c = &comparer{src: newSources(dir)}
	for path, want := range map[string]bool{"src/x/a.py": true, "tests/typing/t.py": true, "tests/test_a.py": false, "srcx/a.py": false} {
		if got := c.pyrightReads(path); got != want {
			t.Errorf("pyrightReads(%s) = %v, want %v", path, got, want)
		}
	}
}

// TestWholeProject: the copy pyright is given holds the checkout's files
// and a pyrightconfig.json keeping the project's settings but its
// include, on every platform; the comparison then counts every file read
// and no code unreachable.
func TestWholeProject(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	src := t.TempDir()
	files := map[string]string{
		"pyproject.toml":    "[project]\nname = \"x\"\n\n[tool.pyright]\ninclude = [\"src\"]\npythonVersion = \"3.10\"\n",
		"src/x/__init__.py": "import sys\nassert sys.platform == \"win32\"\nX = 1\n",
		"tests/test_a.py":   "from x import X\n",
	}
	for name, text := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", src}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	before := &comparer{src: newSources(src)}
	if before.pyrightReads("tests/test_a.py") || !before.unreachable("src/x/__init__.py", 3) {
		t.Fatal("the project's own configuration: tests/ read, or the code past the assertion reachable")
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := wholeProject(context.Background(), src, dst); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if b, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(name))); err != nil || string(b) != text {
			t.Errorf("%s in the copy: %q, %v", name, b, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dst, "pyrightconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg["include"]; ok || cfg["pythonPlatform"] != "All" || cfg["pythonVersion"] != "3.10" {
		t.Errorf("pyrightconfig.json = %s", b)
	}
	after := &comparer{src: newSources(dst)}
	if !after.pyrightReads("tests/test_a.py") || after.unreachable("src/x/__init__.py", 3) {
		t.Error("the copy's configuration: tests/ not read, or the code past the assertion unreachable")
	}
}

// TestInstalledLacks: a name of the project's src/ package that the
// installed copy (here on PYTHONPATH) does not declare, or whose module
// it lacks.
func TestInstalledLacks(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	root, site := t.TempDir(), t.TempDir()
	for p, text := range map[string]string{
		filepath.Join(root, "src", "pkgsx", "__init__.py"): "",
		filepath.Join(root, "src", "pkgsx", "m.py"):        "class A:\n    pass\nclass B:\n    pass\nC = 1\n",
		filepath.Join(site, "pkgsx", "__init__.py"):        "",
		filepath.Join(site, "pkgsx", "m.py"):               "class A:\n    pass\nC: int = 1\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PYTHONPATH", site)
	c := &comparer{src: newSources(root)}
	for _, tc := range []struct {
		path, name string
		want       bool
	}{
		{"src/pkgsx/m.py", "A", false},
		{"src/pkgsx/m.py", "C", false},
		{"src/pkgsx/m.py", "B", true},
		{"src/pkgsx/gone.py", "A", true},
		{"lib/m.py", "B", false},
	} {
		if got := c.installedLacks(graph.Symbol{Path: tc.path, Name: tc.name}); got != tc.want {
			t.Errorf("installedLacks(%s %s) = %v, want %v", tc.path, tc.name, got, tc.want)
		}
	}
}
