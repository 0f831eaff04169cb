package scipindex

import (
	"bytes"
	"strings"
	"testing"
)

// TestMeaningAt: the name marked «» in each source stands where a value
// or a type is written, as the TypeScript compiler reads it, or the
// scanner cannot tell (and both meanings stay).
func TestMeaningAt(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want meaning
	}{
		// Values.
		{"core.«$ZodXID».init(inst, def);", valuePos},
		{"return core._array(«ZodArray», element as any, params) as any;", valuePos},
		{"expect(detached).toBeInstanceOf(z.«ZodArray»);", valuePos},
		{"const a = new «X»();", valuePos},
		{"const a = «X»;", valuePos},
		{"const o = { key: «X» };", valuePos},
		{"f({ key: «X», other: 1 });", valuePos},
		{"const a = cond ? «X» : y;", valuePos},
		{"const a = cond ? f(1) : «X»;", valuePos},
		{"class A extends «X» {}", valuePos},
		{"class A extends «X»<T> implements I {}", valuePos},
		{"if (ok) «X».run();", valuePos},
		{"const a = <div>{«X»}</div>;", unsure},
		{"switch (k) { case «X»: break; }", valuePos},
		{"const f = (a) => «X»;", valuePos},
		{"x instanceof «X»", valuePos},
		{"const t: typeof «X» = y;", valuePos},
		{"const s = `${a}` + «X»;", valuePos},
		{"const r = /[{(]/.test(s) || «X»;", valuePos},
		{"/* a: b */ «X».parse(1);", valuePos},
		{"const a = [«X», y];", valuePos},
		{"export default «X»;", valuePos},
		// Types.
		{"export const $ZodXor: core.$constructor<«$ZodXor»> = f();", typePos},
		{"export interface ZodXor<T> extends _ZodType<core.$ZodXorInternals<T>>, core.«$ZodXor»<T> {}", typePos},
		{"export type $ZodXorParams = TypeParams<schemas.«$ZodXor», \"options\">;", typePos},
		{"function f(\n  Class: util.SchemaClass<schemas.«$ZodXor»>,\n): void {}", typePos},
		{"export function xor<T>(a: T): schemas.«$ZodXor»<T> {\n}", typePos},
		{"interface I {\n  exactOptional(): «ZodExactOptional»<this>;\n}", typePos},
		{"export function ipv4(params?: string | core.$ZodIPv4Params): «ZodMiniIPv4» {}", typePos},
		{"let a: «X»;", typePos},
		{"function f(a: «X», b?: Y) {}", typePos},
		{"function f(a: A, b?: «X») {}", typePos},
		{"class C { field: «X»; }", typePos},
		{"class C { private field?: «X» = y; }", typePos},
		{"interface I { m(a: string): «X» }", typePos},
		{"type T = «X»;", typePos},
		{"type T<U> = U | «X»;", typePos},
		{"type T = { a: «X» };", typePos},
		{"type T = [A, «X»];", typePos},
		{"type F = (a: A) => «X»;", typePos},
		{"let f: (a: A) => «X»;", typePos},
		{"const a = b as «X»;", typePos},
		{"const a = b satisfies «X»;", typePos},
		{"function g<T extends «X»>() {}", typePos},
		{"function g<T = «X»>() {}", typePos},
		{"class A extends B implements «X» {}", typePos},
		{"class A implements I, «X» {}", typePos},
		{"interface A extends «X» {}", typePos},
		{"interface A extends I, «X» {}", typePos},
		{"type K = keyof «X»;", typePos},
		{"type C<T> = T extends «X» ? 1 : 2;", typePos},
		{"const a = f<«X»>(b);", typePos},
		{"function isX(a: unknown): a is «X» {}", typePos},
		{"let a: Array<Map<string, «X»>>;", typePos},
		{"let a: A & «X»;", typePos},
		{"let a: readonly «X»[];", typePos},
		// Not settled: both meanings stay.
		{"export { «X» };", unsure},
		{"export { «X» as Y };", unsure},
		{"import { «X» } from \"./x\";", unsure},
		{"const a = { «X», b };", unsure},
		{"const a = b[«X»];", unsure},
	} {
		src, line, off := marked(t, tc.src)
		toks := tokenizeTS(bytes.Split([]byte(src), []byte("\n")))
		if got := toks.meaningAt(line, int32(off)); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.src, got, tc.want)
		}
	}
}

func (m meaning) String() string {
	return [...]string{"unsure", "value", "type"}[m]
}

// marked returns src without its «» marks, and the 0-based line and byte
// offset of the mark.
func marked(t *testing.T, src string) (string, int32, int) {
	i := strings.Index(src, "«")
	if i < 0 {
		t.Fatalf("%q has no mark", src)
	}
	before := src[:i]
	line := int32(strings.Count(before, "\n"))
	off := i - (strings.LastIndex(before, "\n") + 1)
	return strings.NewReplacer("«", "", "»", "").Replace(src), line, off
}

// FuzzMeaningAt: whatever the source, the scanner neither panics nor
// loops, and every token it reads lies inside its line.
func FuzzMeaningAt(f *testing.F) {
	f.Add("export const X: A<B, C> = f((a) => a ? b : { c: X }) as D | E;")
	f.Add("class A extends B<{a: 1}> implements C, D { x?: (y: Y) => Z = `${{a:'}'}`; }")
	f.Add("a = b / c / d; r = /[/]/g; s = '\\'' + \"\\\"\"; /* x */ // y")
	f.Add("type T<U extends keyof V = W> = U extends X ? [Y, ...Z[]] : never;\n#p = 1;")
	f.Fuzz(func(t *testing.T, src string) {
		lines := bytes.Split([]byte(src), []byte("\n"))
		toks := tokenizeTS(lines)
		for _, tok := range toks.toks {
			if int(tok.line) >= len(lines) || tok.off >= len(lines[tok.line]) {
				t.Fatalf("token %+v outside the source", tok)
			}
			if m := toks.meaningAt(tok.line, int32(tok.off)); m != unsure && m != valuePos && m != typePos {
				t.Fatalf("meaning %d", m)
			}
		}
	})
}

// TestMeaningAtBounded: a hostile file whose every name is a twin, in
// one long union (each name's look back would read all before it), is
// read in time linear in its size.
func TestMeaningAtBounded(t *testing.T) {
	const n = 200000
	src := "type T = " + strings.Repeat("X | ", n) + "X;"
	toks := tokenizeTS([][]byte{[]byte(src)})
	typed := 0
	for _, tok := range toks.toks {
		if tok.ident && tok.text == "X" && toks.meaningAt(tok.line, int32(tok.off)) == typePos {
			typed++
		}
	}
	// The first names are near enough to `type T =` to be told types.
	if typed < maxBack/4 || typed > n {
		t.Errorf("%d of %d names told types", typed, n+1)
	}
}
