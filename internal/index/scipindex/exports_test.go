package scipindex

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

func TestModuleExports(t *testing.T) {
	for _, c := range []struct {
		src    string
		module bool
		names  []string
	}{
		{"const a = 1\nfunction f() {}\n", false, nil}, // a script: no export at all
		{"export function f() {}\n", true, nil},
		{"const a = 1, b = 2\nexport { a, b as c }\n", true, []string{"a", "b"}},
		{"export { x, y as z } from './other'\n", true, nil}, // another module's names
		{"type T = 1\nexport { type T }\n", true, []string{"T"}},
		{"const a = 1\nexport default a;\n", true, []string{"a"}},
		{"const a = 1\nexport default a\nconst b = 2\n", true, []string{"a"}},
		{"export default a + b\n", true, nil}, // a value, no declaration
		{"export default f()\n", true, nil},
		{"const z = 1\nexport = z\n", true, []string{"z"}},
	} {
		module, names := moduleExports(tokenizeTS(bytes.Split([]byte(c.src), []byte("\n")), false))
		var got []string
		for n := range names {
			got = append(got, n)
		}
		slices.Sort(got)
		if module != c.module || fmt.Sprint(got) != fmt.Sprint(c.names) {
			t.Errorf("moduleExports(%q) = %v, %v; want %v, %v", c.src, module, got, c.module, c.names)
		}
	}
}

func TestWrittenExported(t *testing.T) {
	for _, c := range []struct {
		line string
		off  int // the name's
		want bool
	}{
		{"export function f() {}", 16, true},
		{"  export default async function f() {}", 32, true},
		{"export const a = 1, f = 2", 20, true},
		{"function f() {}", 9, false},
		{"exportable f", 11, false},
		{"const f = 1 // export", 6, false},
	} {
		if got := writtenExported([]byte(c.line), c.off); got != c.want {
			t.Errorf("writtenExported(%q, %d) = %v, want %v", c.line, c.off, got, c.want)
		}
	}
}
