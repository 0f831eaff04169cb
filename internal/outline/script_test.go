package outline

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// ParseScript outlines TypeScript and Python from their source, with the
// kinds and lines the SCIP importer gives: comments, strings and
// template literals that hold braces or declarations are skipped.
func TestParseScript(t *testing.T) {
	for _, c := range []struct {
		name, lang, src string
		want            []string // name kind start-end, members indented
	}{
		{"typescript", "typescript", "import { x } from \"./x\";\n\n" +
			"/** Shape has an area. { */\nexport interface Shape {\n  area(): number;\n  name?: string;\n}\n\n" +
			"export class Square implements Shape {\n  private readonly s = `a ${\"}\"} b`;\n  constructor(private side: number) {}\n" +
			"  area(): number {\n    // function hidden() {\n    return this.side;\n  }\n}\n\n" +
			"export class Box {\n  constructor(\n    public readonly w: number,\n    h: Map<string, number>,\n    protected d = (x: number) => x,\n  ) {}\n}\n" +
			"export function totalArea(\n  shapes: Shape[],\n): number {\n  return 0;\n}\n" +
			"const limit = 3;\ntype Pair = [number, number];\nexport default async function main() { return 1 }\n",
			[]string{"Shape interface 4-7", " area interface_method 5-5", " name field 6-6",
				"Square type 9-16", " s field 10-10", " constructor method 11-11", " side field 11-11", " area method 12-15",
				"Box type 18-24", " constructor method 19-23", " w field 20-20", " d field 22-22",
				"totalArea func 25-29", "limit const 30-30", "Pair type 31-31", "main func 32-32"}},
		{"python", "python", "import os\n\n\nclass Base:\n    \"\"\"Base.\n\ndef not_one():\n    \"\"\"\n\n    def area(self) -> float:\n        return 0.0\n\n\n" +
			"@decorated\ndef total(\n    shapes,\n) -> float:\n    s = '''\ndef nor_this(): pass\n'''\n    return 1\n\n\nasync def main():\n    pass\n",
			[]string{"Base type 4-11", " area method 10-11", "total func 15-21", "main func 24-25"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			of, err := ParseScript(context.Background(), "web/src/a.ts", []byte(c.src), c.lang)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range of.Entries {
				got = append(got, fmt.Sprintf("%s %s %d-%d", e.Name, e.Kind, e.StartLine, e.EndLine))
				for _, m := range e.Members {
					got = append(got, fmt.Sprintf(" %s %s %d-%d", m.Name, m.Kind, m.StartLine, m.EndLine))
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if of.Package != "src" {
				t.Errorf("package %q, want src", of.Package)
			}
		})
	}
}
