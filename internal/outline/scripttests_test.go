package outline

import (
	"fmt"
	"testing"
)

// ScriptTests finds the describe, it and test blocks of a test file with
// their names and lines, whatever strings, comments and templates hold.
func TestScriptTests(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // full name (" > "), lines, skipped
	}{
		{"nested", `import { describe, it } from "vitest";
describe("shapes", () => {
  it("sums", () => {
    expect(f("(")).toBe(1);
  });
  // it("commented", () => {});
  it.skip('skipped', () => {});
  describe.only(` + "`inner`" + `, () => {
    test("deep \"q\"", async () => { await g(` + "`${x}) {`" + `); });
  });
});
test("top", () => f({ a: [1, 2] }));
`, []string{"shapes 2-11", "shapes > sums 3-5", "shapes > skipped 7-7 skipped", "shapes > inner 8-10", `shapes > inner > deep "q" 9-9`, "top 12-12"}},
		{"not tests", `const it = items.test("x");
obj.describe("y", () => {});
it(name, () => {});
test(` + "`n ${i}`" + `, () => {});
xit("off", () => {});
/* describe("c", () => {}) */
`, []string{"off 5-5 skipped"}},
		{"tables", "describe.each([[1], [2]])('n=%i', (n) => {\n  test.each`\n    a    | b\n    ${1} | ${'(x'}\n  `('adds $a', ({ a }) => {\n    f(a);\n  });\n  it.each([1])(`t ${n}`, () => {});\n});\n",
			[]string{"n=%i 1-9 each", "n=%i > adds $a 5-7 each"}},
		{"multi-line call", "describe(\n  'a b',\n  function () {\n    it('c', done => done());\n  }\n);\n",
			[]string{"a b 1-6", "a b > c 4-4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			blocks := ScriptTests([]byte(c.src))
			var got []string
			for i, b := range blocks {
				s := fmt.Sprintf("%s %d-%d", FullName(blocks, i, " > "), b.Line, b.EndLine)
				if b.Skipped {
					s += " skipped"
				}
				if b.Each {
					s += " each"
				}
				got = append(got, s)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}
