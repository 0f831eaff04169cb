package scipindex

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestValueImplementations holds the values found from the uses of a
// type T (every whole word T of the source) to those
// typescript-language-server lists as T's implementations.
func TestValueImplementations(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // line:col what, how
	}{
		{"variable", "const x: T = { a: 1 };", []string{"1:14 object literal, declared as x"}},
		{"array of", "const all: T[] = [a, b];", []string{"1:18 array literal, declared as all"}},
		{"type argument", "const m: Record<string, T> = {};", []string{"1:30 object literal, declared as m"}},
		{"qualified", "  const s: Writeable<ns.T> = { ...o };", []string{"1:30 object literal, declared as s"}},
		{"function type result", "export const f: (e: E) => T = (e) => (v) => v;", []string{"1:31 function, declared as f"}},
		{"function type parameter", "export const f: (e: T) => R = (e) => e;", nil},
		{"generic result of a function type", "const g: (p?: string | P) => C<T, B> = (\n  p) => p;", []string{"1:40 function, declared as g"}},
		{"arrow returns", "export const OK = <X>(value: X): T<X> => ({ status: 1, value });", []string{"1:42 object literal, returned by OK"}},
		{"async arrow returns", "const f = async (d: D): Promise<z.T<X>> => {\n  return {};\n};", []string{"2:10 object literal, returned by f"}},
		{"in a function's body", "test(\"t\", async () => {\n  const f = (d: D): T => ({ d });\n});", []string{"2:26 object literal, returned by f"}},
		{"arrow returns a call", "export const OK = (value: X): T => make(value);", nil},
		{"function returns", "function build(k: K): Array<T> {\n  if (k) {\n    return [];\n  }\n  const f = () => { return {}; };\n  return [first];\n}",
			[]string{"3:12 array literal, returned by build", "6:10 array literal, returned by build"}},
		{"method returns", "const S = {\n  make(kind: string): T {\n    return { kind };\n  },\n};", []string{"3:12 object literal, returned by make"}},
		{"switch returns", "function f(k): T {\n  switch (k) {\n  case 1:\n    return { a };\n  }\n}", []string{"4:12 object literal, returned by f"}},
		{"signature", "interface I {\n  m(): T;\n  p: T;\n}", nil},
		{"property", "class C {\n  p: T = {};\n  q?: T;\n}", []string{"2:10 object literal, declared as p"}},
		{"parameter default", "function f(a: T = {}, b: T) {}", []string{"1:19 object literal, declared as a"}},
		{"object type member", "const x: { a: T } = { a: 1 };", []string{"1:21 object literal, declared as x"}},
		{"assertion", "const x = { a: 1 } as T;\nconst y = f(x) as T;\nconst z = ([1]) as T;", []string{"1:11 object literal, asserted", "3:11 array literal, asserted"}},
		{"asserted arrow in parentheses", "const s = { string: ((arg) => make(arg)) as (typeof T)[\"create\"] };", []string{"1:21 function, asserted"}},
		{"class expression", "const K: T = class { m() {} };", []string{"1:14 class expression, declared as K"}},
		{"async arrow", "const h: T = async (r) => r;\nconst i: T = async function () {};", []string{"1:14 function, declared as h", "2:14 function, declared as i"}},
		{"call initializer", "const x: T = T.make();\nlet y: T\ny = {};", nil},
		{"type alias", "type A = T;\ntype B<X extends T> = { a: T };", nil},
		{"type arguments of a call", "const x = f<T>({});", nil},
		{"heritage", "class A extends B<T> {}\nclass C implements T {}", nil},
		{"ternary", "const x = c ? a : T;", nil},
		{"destructuring", "const { a }: T = { a: 1 };", []string{"1:18 object literal, declared"}},
		{"non-ASCII before", `const é = "😀"; const x: T = {};`, []string{"1:29 object literal, declared as x"}},
		{"once per value", "const x: Map<T, T> = {};", []string{"1:22 object literal, declared as x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(tc.src, "\n")
			var refs []graph.Ref
			word := regexp.MustCompile(`\bT\b`)
			for n, l := range lines {
				for _, m := range word.FindAllStringIndex(l, -1) {
					refs = append(refs, graph.Ref{Path: "a.ts", Line: n + 1, Col: len([]rune(l[:m[0]])) + 1})
				}
			}
			vals := valuesOf(refs, func(string, string) ([]byte, bool) { return []byte(tc.src), true }, (*tsTokens).values)
			var got []string
			for _, v := range vals {
				got = append(got, fmt.Sprintf("%d:%d %s, %s", v.Line, v.Col, v.What, v.How))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestMemberImplementations holds the members found from the uses of an
// interface's method m (every whole word m of the source) to those
// typescript-language-server lists as its implementations.
func TestMemberImplementations(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"method and property", "const x: I = { m() { return 1; } };\nconst y: I = { n: 1, m: () => 1 };", []string{"1:16 method", "2:22 property"}},
		{"argument", "install(inst, \"I\", {\n  async m(a) {},\n});", []string{"2:9 method"}},
		{"nested", "const x = { a: { m<T>(v: T) {} } };", []string{"1:18 method"}},
		{"call", "obj.m();\nm();\nconst z = { m };\nconst w = { [m]: 1 };", nil},
		{"declarations", "class C { m() {} }\ninterface I { m(): void }\ntype T = { m: () => void };", nil},
		{"blocks", "switch (a) { case 1: { m(); } }\nfunction f() { m: for (;;) {} }", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(tc.src, "\n")
			var refs []graph.Ref
			word := regexp.MustCompile(`\bm\b`)
			for n, l := range lines {
				for _, m := range word.FindAllStringIndex(l, -1) {
					refs = append(refs, graph.Ref{Path: "a.ts", Line: n + 1, Col: m[0] + 1})
				}
			}
			var got []string
			for _, v := range valuesOf(refs, func(string, string) ([]byte, bool) { return []byte(tc.src), true }, (*tsTokens).member) {
				got = append(got, fmt.Sprintf("%d:%d %s", v.Line, v.Col, v.What))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestAliasesAndOverloads holds the renamed imports and re-exports found
// from the uses of m, and the body of an overloaded m, to those
// typescript-language-server lists as m's implementations.
func TestAliasesAndOverloads(t *testing.T) {
	src := `import { m as n } from "./a";
import { m } from "./a";
export { m as k } from "./b";
export { m as j };
import { x, m as m } from "./c";
export function m(a: string): string;
export function m(a: number): string;
export function m(a: any): string {
  return a;
}
class C {
  m(): void;
  m(a?: number): void {}
}`
	lines := strings.Split(src, "\n")
	var refs []graph.Ref
	for n, l := range lines[:5] {
		refs = append(refs, graph.Ref{Path: "a.ts", Line: n + 1, Col: regexp.MustCompile(`\bm\b`).FindStringIndex(l)[0] + 1})
	}
	read := func(string, string) ([]byte, bool) { return []byte(src), true }
	var got []string
	for _, v := range valuesOf(refs, read, (*tsTokens).alias) {
		got = append(got, fmt.Sprintf("%d:%d %s, %s", v.Line, v.Col, v.What, v.How))
	}
	byLines := func(from, to int) graph.Symbol {
		return graph.Symbol{Name: "m", Path: "a.ts", StartLine: from, EndLine: to}
	}
	for _, sym := range []graph.Symbol{byLines(6, 10), byLines(8, 10), byLines(12, 13)} {
		for _, v := range overloadBody(sym, bytes.Split([]byte(src), []byte("\n"))) {
			got = append(got, fmt.Sprintf("%d:%d %s", v.Line, v.Col, v.What))
		}
	}
	want := []string{"1:10 alias, imported or exported as n", "3:10 alias, imported or exported as k", "8:17 implementation", "13:3 implementation"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestBoundedReader holds the reading of the uses' files to its bound,
// the files past it counted.
func TestBoundedReader(t *testing.T) {
	b := &boundedReader{src: func(_, p string) ([]byte, bool) { return []byte("12345678"), true }, left: 10}
	var got []bool
	for _, p := range []string{"a", "b", "c", "d"} {
		_, ok := b.read("r", p)
		got = append(got, ok)
	}
	if !slices.Equal(got, []bool{true, true, false, false}) || b.unread != 2 {
		t.Errorf("read %v, %d unread; want two read, 2 unread", got, b.unread)
	}
}

// FuzzValueImplementations holds the reading of any text from any use to
// ending, within the file, and to finding each value once.
func FuzzValueImplementations(f *testing.F) {
	f.Add("const x: T = { a: 1 };\nfunction f(): T {\n  return [x];\n}", 1, 10)
	f.Add("export const f: (e: E) => T = (e) => ({});", 1, 27)
	f.Add("const x = ({ a } as T);\n(): T => { if (a) { return {}; } }", 2, 5)
	f.Add("x: { a: T }\n= <T>(y) => y", 1, 9)
	f.Fuzz(func(t *testing.T, src string, line, col int) {
		refs := []graph.Ref{{Path: "a.ts", Line: line, Col: col}, {Path: "a.tsx", Line: line, Col: col}}
		read := func(_, path string) ([]byte, bool) { return []byte(src), true }
		vals := append(valuesOf(refs, read, (*tsTokens).values), valuesOf(refs[:1], read, (*tsTokens).member)...)
		lines := strings.Split(src, "\n")
		seen := map[string]bool{}
		for _, v := range vals {
			if v.Line < 1 || v.Line > len(lines) || v.Col < 1 || v.Col > len([]rune(lines[v.Line-1])) {
				t.Fatalf("%+v outside the file", v)
			}
			k := fmt.Sprintf("%s:%d:%d", v.Path, v.Line, v.Col)
			if seen[k] {
				t.Fatalf("%s found twice", k)
			}
			seen[k] = true
		}
	})
}
