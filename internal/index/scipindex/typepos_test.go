package scipindex

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/lsptest"
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
		{"for (let i = 0; i < «X».length; i++) {}", valuePos},
		{"if (a < «X») {}", valuePos},
		{"const a = c ? (b) : «X»;", valuePos},
		{"const a = c ? (<T>b) : «X».y;", valuePos},
		{"const a = k in «X»;", valuePos},
		{"const a = z.keyof(«X»);", valuePos},
		{"const a = c ? b : readonly(«X»);", valuePos},
		{"const a = d < 0 ? -1 : d > 0 ? 1 : «X»;", valuePos},
		{"f(a < b, «X»);", valuePos},
		{"const s = (a, b) => a.x < b.x ? 1 : -1\nexport const m: Record<string, F> = {\n  status: «X»,\n}", valuePos},
		{"type T = { readonly [«X».tag]: string };", valuePos},
		{"a = a < 0 ? a + 360 : «X»;", valuePos},
		{"return p.x > x1 - t &&\n  p.x < «X» + t &&\n  p.y > y1;", valuePos},
		{"return k === 1\n  ? // why\n    e.shift\n    ? a.b()\n    : a.c()\n  : «X»;", valuePos},
		{"const a = [...«X»];", valuePos},
		// Types.
		{"type M = { [K in «X»]: 1 };", typePos},
		{"type M = { readonly [K in A | «X»]: 1 };", typePos},
		{"const a = b as [A, ...«X»[]];", typePos},
		{"type C<T> = T extends A ? «X» : B;", typePos},
		{"type C<T> = T extends A ? B : «X»;", typePos},
		{"type C<T> = T extends A ? B : T extends C ? «X» : D;", typePos},
		{"let a: F<T extends A ? «X» : B>;", typePos},
		{"interface I {\n  m?(): «X»;\n}", typePos},
		{"let a: readonly («X» | B)[];", typePos},
		{"let f: (a: A) => void | «X»;", typePos},
		{"type C<D> = new (...a: D) => «X»;", typePos},
		{"type L<T> = F<T> extends () => infer R ? «X» : never;", typePos},
		{"type T = typeof a | «X»;", typePos},
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
		{"const a = <«X»>b;", typePos},
		{"type F = <T>(a: T) => «X»;", typePos},
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
		toks := tokenizeTS(bytes.Split([]byte(src), []byte("\n")), false)
		if got := toks.meaningAt(line, int32(off)); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.src, got, tc.want)
		}
	}
}

// TestMeaningAtJSX: in a file read with JSX, an element's text is not
// code (an apostrophe, a backtick or "</" in it starts no literal), its
// names and the code of its {} are read, and a '<' opening type
// parameters opens no element.
func TestMeaningAtJSX(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want meaning
	}{
		{"const a = <div>{«X»}</div>;", valuePos},
		{"const a = <b>x</b>; let c: «X»;", typePos},
		{"const a = <p>\n  the files src/*.ts\n</p>;\nlet b: «X»;", typePos},
		{"const a = <p>\n  run `make\n</p>;\nlet b: «X»;", typePos},
		{"const a = (\n  <div className=\"x\">\n    Don't {/* c */} `stop\n  </div>\n);\nlet b: «X»;", typePos},
		{"const a = <Foo render={«X»} />;", valuePos},
		{"const a = <div class={c}>\n  <p style={{ pad: «X».size }} />\n</div>;", valuePos},
		{"const a = <«X» prop={1} />;", valuePos},
		{"const a = <X.Y>t</«X».Y>;", valuePos},
		{"const a = <ul>{items.map((i) => <li key={i}>{i}</li>)}</ul>;\nlet c: «X»;", typePos},
		{"const a = <>it's</>;\nlet c: «X»;", typePos},
		{"const a = <input disabled {...props} />;\nlet c: «X»;", typePos},
		{"const a = <p>(see <a href=\"/x\">here</a></p>;\nfunction f(a = { k: «X» }) {}", valuePos},
		{"const f = <T,>(a: T): «X» => a;", typePos},
		{"type F = <T>(a: T) => «X»;", typePos},
		{"function g<T extends «X»>() {}", typePos},
		{"const a = b < c; let d: «X»;", typePos},
		{"const r = <p>a</p> / 2 || «X»;", valuePos},
	} {
		src, line, off := marked(t, tc.src)
		toks := tokenizeTS(bytes.Split([]byte(src), []byte("\n")), true)
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
	f.Add("const a = <div a={<b c='x'/>}>it's {`${y}`} </div>; let b: <T,>(x: T) => T;")
	f.Fuzz(func(t *testing.T, src string) {
		lines := bytes.Split([]byte(src), []byte("\n"))
		for _, jsx := range []bool{false, true} {
			toks := tokenizeTS(lines, jsx)
			for _, tok := range toks.toks {
				if int(tok.line) >= len(lines) || tok.off >= len(lines[tok.line]) {
					t.Fatalf("token %+v outside the source", tok)
				}
				if m := toks.meaningAt(tok.line, int32(tok.off)); m != unsure && m != valuePos && m != typePos {
					t.Fatalf("meaning %d", m)
				}
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
	toks := tokenizeTS([][]byte{[]byte(src)}, false)
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

// TestMeaningAtMatchesCompiler: on the files of testdata/typepos, every
// name the scanner tells a value or a type is one where the TypeScript
// compiler's own parser (testdata/typepos/classify.js, run with node)
// puts a value or a type; unsure is allowed, a wrong meaning is not.
// SEXTANT_TYPEPOS_CORPUS=DIR compares every .ts, .tsx, .js and .jsx file
// under DIR as well, and logs the figures.
func TestMeaningAtMatchesCompiler(t *testing.T) {
	bin := lsptest.NodeBin(t, "the TypeScript scanner against the compiler", "tsc")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED LOUDLY: node is not on PATH: the TypeScript scanner was NOT compared with the compiler")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "typepos", "*.ts*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in testdata/typepos: %v", err)
	}
	compare := func(files []string) (counts map[string]int, wrong []string) {
		cmd := exec.Command(node, append([]string{filepath.Join("testdata", "typepos", "classify.js")}, files...)...)
		cmd.Env = append(os.Environ(), "TS="+filepath.Join(bin, "..", "typescript"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("classify.js: %v", err)
		}
		counts = map[string]int{}
		toks := map[string]*tsTokens{}
		for _, row := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Split(row, "\t")
			if len(f) != 4 {
				t.Fatalf("classify.js wrote %q", row)
			}
			tt := toks[f[0]]
			if tt == nil {
				src, err := os.ReadFile(f[0])
				if err != nil {
					t.Fatal(err)
				}
				tt = tokenizeTS(bytes.Split(src, []byte("\n")), jsxFile(filepath.ToSlash(f[0])))
				toks[f[0]] = tt
			}
			line, _ := strconv.Atoi(f[1])
			col, _ := strconv.Atoi(f[2])
			got := tt.meaningAt(int32(line), int32(col))
			counts[f[3]+" "+got.String()]++
			if f[3] == "type" && got == valuePos || f[3] == "value" && got == typePos {
				wrong = append(wrong, fmt.Sprintf("%s:%d:%d: %s, the compiler says %s", f[0], line+1, col+1, got, f[3]))
			}
		}
		return counts, wrong
	}
	counts, wrong := compare(files)
	for _, w := range wrong {
		t.Error(w)
	}
	if told := counts["type type"] + counts["value value"]; told < 100 {
		t.Errorf("only %d names told as the compiler does (%v)", told, counts)
	}
	t.Logf("testdata: %v", counts)
	if dir := os.Getenv("SEXTANT_TYPEPOS_CORPUS"); dir != "" {
		var corpus []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && !strings.Contains(p, "node_modules") && (strings.HasSuffix(p, ".ts") || jsxFile(p)) {
				corpus = append(corpus, p)
			}
			return nil
		})
		var all []string
		total := map[string]int{}
		for len(corpus) > 0 { // in batches, under the command line's limit
			n := min(len(corpus), 200)
			c, w := compare(corpus[:n])
			corpus = corpus[n:]
			for k, v := range c {
				total[k] += v
			}
			all = append(all, w...)
		}
		t.Logf("%s: %v; %d wrong", dir, total, len(all))
		for i, w := range all {
			if i == 20 {
				break
			}
			t.Log(w)
		}
	}
}
