package main

import (
	"os"
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
