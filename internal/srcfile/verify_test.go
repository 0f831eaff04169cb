package srcfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// A symbol of a language Sextant does not parse is read at its indexed
// span while its file is as indexed, and after an edit at the line
// nearest its old start that names it, never as stale text.
func TestVerifyIndexed(t *testing.T) {
	sym := graph.Symbol{Language: "typescript", Path: "a.ts", Name: "area", QualifiedName: "Square.area", Kind: graph.KindMethod, StartLine: 2, EndLine: 4}
	for _, c := range []struct {
		name, src string
		changed   bool
		from, to  int
		notFound  bool
		note      bool
	}{
		{"as indexed", "class Square {\n  area(): number {\n    return 1;\n  }\n}\n", false, 2, 4, false, false},
		{"moved down", "// a comment\n\nclass Square {\n  area(): number {\n    return 1;\n  }\n}\n", true, 4, 6, false, true},
		{"a longer name only", "class Square {\n  areaOf(): number {\n    return 1;\n  }\n}\n", true, 0, 0, true, false},
		{"file shorter than the span", "class Square {\n", false, 0, 0, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "a.ts"), []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := NewCache().Load(root, "a.ts")
			if err != nil {
				t.Fatal(err)
			}
			vs, err := verifyIndexed(f, sym, c.changed, 1)
			if c.notFound {
				if graph.CodeOf(err) != graph.CodeSymbolNotFound {
					t.Errorf("got %+v, %v; want SYMBOL_NOT_FOUND", vs, err)
				}
				return
			}
			if err != nil || vs.From != c.from || vs.To != c.to || (vs.Note != "") != c.note {
				t.Errorf("got lines %d-%d note %q, %v; want %d-%d", vs.From, vs.To, vs.Note, err, c.from, c.to)
			}
		})
	}
}
