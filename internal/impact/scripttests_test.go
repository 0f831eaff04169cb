package impact

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command lines of TypeScript, JavaScript and Python tests: the
// runner the project names (or assumed, and said), run from the
// project's directory, naming exactly the tests reached.
func TestScriptCommands(t *testing.T) {
	const jsTests = "describe('a', () => {\n  it('b c', () => {});\n  it(\"d.e\", () => {});\n});\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		tests []Test
		want  []string
	}{
		{"jest from devDependencies, above the file",
			map[string]string{"app/package.json": `{"devDependencies": {"jest": "29"}}`, "app/lib/x.test.js": jsTests},
			[]Test{{Name: "a > b c", Path: "app/lib/x.test.js"}, {Name: "a > d.e", Path: "app/lib/x.test.js"}},
			[]string{`cd app && npx jest --runTestsByPath lib/x.test.js -t '^(a b c|a d\.e)$'`}},
		{"tables", map[string]string{"package.json": `{"devDependencies": {"jest": "29"}}`,
			"t.test.js": "describe.each([[1]])('n=%i (100%%)', (n) => {\n  it.each`\n    a\n    ${1}\n  `('adds $a.b', () => {});\n});\n"},
			[]Test{{Name: "n=%i (100%%) > adds $a.b", Path: "t.test.js"}},
			[]string{`npx jest --runTestsByPath t.test.js -t '^(n=.* \(100%\) adds .*)$'`}},
		{"vitest by its import, no package.json",
			map[string]string{"__tests__/y.ts": "import { it } from 'vitest';\n" + jsTests},
			[]Test{{Name: "a > b c", Path: "__tests__/y.ts"}},
			[]string{`npx vitest run __tests__/y.ts -t '^ ?(a( > | )b c)$'`}},
		{"no runner named",
			map[string]string{"package.json": `{"name": "n"}`, "z.spec.ts": jsTests},
			[]Test{{Name: "a > b c", Path: "z.spec.ts"}},
			[]string{`npx jest --runTestsByPath z.spec.ts -t '^(a b c)$'  # jest assumed: no package.json names jest or vitest`}},
		{"pytest, one line a project",
			map[string]string{"p/setup.cfg": "[tool:pytest]\n", "p/t/test_a.py": "def test_x():\n    pass\n\nclass TestY:\n    def test_z(self):\n        pass\n",
				"p/t/b_test.py": "def test_w():\n    pass\n", "q/test_c.py": "def test_v():\n    pass\n"},
			[]Test{{Name: "TestY.test_z", Path: "p/t/test_a.py", Line: 5}, {Name: "test_x", Path: "p/t/test_a.py", Line: 1}, {Name: "test_w", Path: "p/t/b_test.py", Line: 1},
				{Name: "test_v", Path: "q/test_c.py", Line: 1}},
			[]string{"python -m pytest q/test_c.py::test_v  # pytest assumed: . names no test runner",
				"cd p && python -m pytest t/b_test.py::test_w t/test_a.py::test_x t/test_a.py::TestY::test_z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for name, data := range c.files {
				p := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, cmd := range scriptCommands(context.Background(), &cache{}, root, c.tests) {
				got = append(got, cmd.Command)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// A use at file level in a js test file runs the block around it: a
// test, every test of a describe, none in a skipped block, every test of
// the file outside all blocks.
func TestTestsAt(t *testing.T) {
	root := t.TempDir()
	src := "const k = f();\ndescribe('a', () => {\n  const v = f();\n  it('b', () => { f(); });\n  it.skip('c', () => { f(); });\n  test('d', () => {});\n});\n"
	if err := os.WriteFile(filepath.Join(root, "x.test.ts"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests, blocks := (&cache{}).scriptTestsOf(context.Background(), root, "x.test.ts")
	for _, c := range []struct {
		line  int
		want  string
		whole bool
	}{{1, "[a > b a > d]", true}, {3, "[a > b a > d]", true}, {4, "[a > b]", false}, {5, "[]", false}, {6, "[a > d]", false}} {
		at, whole := testsAt(tests, blocks, c.line)
		var names []string
		for _, st := range at {
			names = append(names, st.name)
		}
		if got := fmt.Sprint(names); got != c.want || whole != c.whole {
			t.Errorf("line %d: %s whole=%v, want %s whole=%v", c.line, got, whole, c.want, c.whole)
		}
	}
}

// A change to a TypeScript or Python file names the declarations it
// touches, as one to a Go file does: a method's body is the method's
// change, not its class's; layout is no change; each file is a namespace
// of its own.
func TestCompareScriptFiles(t *testing.T) {
	const ts = "export class Square {\n  constructor(private side: number) {}\n  area(): number {\n    return this.side * this.side;\n  }\n}\n\nexport function main(): number {\n  return new Square(2).area();\n}\n"
	for _, c := range []struct {
		name     string
		old, new map[string]string
		want     []string
	}{
		{"method body", map[string]string{"a.ts": ts}, map[string]string{"a.ts": strings.Replace(ts, "this.side * this.side", "this.side ** 2", 1)},
			[]string{"a.ts:3 method Square.area body"}},
		{"layout", map[string]string{"a.ts": ts}, map[string]string{"a.ts": strings.Replace(ts, "return new Square(2).area();", "return new Square(2)\n    .area();", 1)},
			nil},
		{"signature, added, removed", map[string]string{"m.py": "def f(x):\n    return x\n\n\ndef g():\n    pass\n"},
			map[string]string{"m.py": "def f(x, y):\n    return x\n\n\nclass H:\n    def k(self):\n        pass\n"},
			[]string{"m.py:1 func f signature", "m.py:5 func g removed", "m.py:5 type H added", "m.py:6 method H.k added"}},
		{"two files, one name", map[string]string{"a.py": "def main():\n    pass\n", "b.py": "def main():\n    pass\n"},
			map[string]string{"a.py": "def main():\n    return 1\n", "b.py": "def main():\n    pass\n"},
			[]string{"a.py:1 func main body"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var changes []fileChange
			for _, p := range sortedKeys(c.old) {
				changes = append(changes, fileChange{path: p, old: []byte(c.old[p]), new: []byte(c.new[p])})
			}
			out, unparsable := compareFiles(changes, parseVersion)
			var got []string
			for _, d := range out {
				got = append(got, fmt.Sprintf("%s:%d %s %s %s", d.Path, d.Line, d.Kind, d.QualifiedName, d.Change))
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) || len(unparsable) > 0 {
				t.Errorf("got %q (unparsable %v), want %q", got, unparsable, c.want)
			}
		})
	}
}

// A pytest fixture is known by its decorator, and the tests that take it
// by their parameters, on one line or several.
func TestPytestFixtures(t *testing.T) {
	lines := strings.Split("@pytest.fixture(autouse=True)\ndef a():\n    pass\n@fixture\n@other\ndef b(): pass\n@other\ndef c(): pass\n"+
		"def test_x(\n    a,\n    d: dict[str, int] = {},\n) -> None:\n    pass\nclass TestY:\n    def test_z(self, b): pass\n", "\n")
	for _, c := range []struct {
		line             int
		fixture, autouse bool
	}{{1, true, true}, {4, true, false}, {7, false, false}} {
		if f, a := pytestFixture(lines, c.line); f != c.fixture || a != c.autouse {
			t.Errorf("line %d: fixture %v autouse %v, want %v %v", c.line, f, a, c.fixture, c.autouse)
		}
	}
	for _, c := range []struct {
		from, to int
		want     string
	}{{9, 13, " a, d: dict[str, int] = {}, "}, {15, 15, "self, b"}} {
		if got := defParams(lines, c.from, c.to); strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(c.want), " ") {
			t.Errorf("defParams %d-%d = %q, want %q", c.from, c.to, got, c.want)
		}
	}
}
