package query

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// refsModule returns a module in which lib.Use is used uses times, spread
// over files of usesPerFile, each use in a function of its own on a line
// of ordinary length and some on lines long enough to be cut.
func refsModule(uses, usesPerFile int) *txtar.Archive {
	ar := &txtar.Archive{Files: []txtar.File{
		{Name: "go.mod", Data: []byte("module example.com/refs\n\ngo 1.24\n")},
		{Name: "lib/lib.go", Data: []byte("package lib\n\n// Use is used everywhere.\nfunc Use(a, b int) int { return a + b }\n")},
	}}
	for f := 0; f*usesPerFile < uses; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package app\n\nimport \"example.com/refs/lib\"\n\n")
		for i := f * usesPerFile; i < min(uses, (f+1)*usesPerFile); i++ {
			fmt.Fprintf(&b, "func f%d(x int) int {\n", i)
			if i%3 == 0 {
				fmt.Fprintf(&b, "\tif total := lib.Use(x, %d) + lib.Use(x*2, x) + computeSomethingElse(x, \"label %d\"); total > 0 {\n\t\treturn total\n\t}\n", i, i)
				i++
				if i >= min(uses, (f+1)*usesPerFile) {
					b.WriteString("\treturn 0\n}\n\n")
					break
				}
			}
			fmt.Fprintf(&b, "\treturn lib.Use(x, %d)\n}\n\n", i)
		}
		ar.Files = append(ar.Files, txtar.File{Name: fmt.Sprintf("app/f%02d.go", f), Data: []byte(b.String())})
	}
	ar.Files = append(ar.Files, txtar.File{Name: "app/helper.go", Data: []byte(
		"package app\n\nfunc computeSomethingElse(x int, s string) int { return x + len(s) }\n")})
	return ar
}

// BenchmarkFindReferences measures a find_references call on a function
// with about 300 uses in 20 files as the MCP server answers it: the call,
// the JSON of its structured content and its text.
func BenchmarkFindReferences(b *testing.B) {
	f := indexFixture(b, func() string {
		dir, err := filepath.EvalSymlinks(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		txtartest.WriteDir(b, dir, refsModule(300, 15))
		return dir
	})
	// A server loads the name tables once its roots are indexed (see
	// sqlite.Store.WarmNames); a fuzzy search loads them here.
	if _, err := f.call(b, "find_symbol", `{"name":"Use"}`); err != nil {
		b.Fatal(err)
	}
	tl, _ := LookupTool("find_references")
	args := json.RawMessage(`{"qualified_name":"lib.Use","limit":500}`)
	ctx := context.Background()
	a, err := tl.Call(ctx, f.svc, args, nil)
	if err != nil {
		b.Fatal(err)
	}
	if out := a.(*FindReferencesOutput); out.Total < 300 {
		b.Fatalf("%d uses, want at least 300", out.Total)
	}
	b.ReportAllocs()
	for b.Loop() {
		a, err := tl.Call(ctx, f.svc, args, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(a); err != nil {
			b.Fatal(err)
		}
		_ = RenderText(a)
	}
}
