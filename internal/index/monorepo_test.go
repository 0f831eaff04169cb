package index

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// realDir is a fresh directory by its resolved path, as Index records
// repositories.
func realDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// written collects the import paths and symbols (by package-qualified
// name, with their signatures) a snapshot wrote.
func written(w *fakeWriter) (pkgs []string, syms map[string]graph.Symbol) {
	syms = map[string]graph.Symbol{}
	for _, p := range w.packages {
		pkgs = append(pkgs, p.Package.Path)
		for _, s := range p.Symbols {
			syms[p.Package.Path+"."+s.QualifiedName] = s
		}
	}
	slices.Sort(pkgs)
	return pkgs, syms
}

// A go.work indexes every module it uses, and one naming a directory that
// is not there (every module zip of a repository with nested modules has
// one: the zip leaves them out) indexes the others and says which it
// skipped, instead of failing the whole workspace.
func TestIndexWorkspace(t *testing.T) {
	hermetic(t)
	for _, tc := range []struct {
		name    string
		present []string // modules written
		want    []string // packages indexed
		skipped []string // directories reported missing
	}{
		{"all there", []string{"a", "b", "c"}, []string{"example.com/a", "example.com/b", "example.com/c"}, nil},
		{"one missing", []string{"a", "b"}, []string{"example.com/a", "example.com/b"}, []string{"c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := realDir(t)
			writeFile(t, dir, "go.work", "go 1.22\n\nuse (\n\t./a\n\t./b\n\t./c\n)\n")
			for _, m := range tc.present {
				writeFile(t, dir, m+"/go.mod", "module example.com/"+m+"\n\ngo 1.22\n")
			}
			writeFile(t, dir, "a/a.go", "package a\n\n// A is used from b.\nfunc A() int { return 1 }\n")
			writeFile(t, dir, "b/b.go", "package b\n\nimport \"example.com/a\"\n\nfunc B() int { return a.A() }\n")
			if slices.Contains(tc.present, "c") {
				writeFile(t, dir, "c/c.go", "package c\n\nimport \"example.com/b\"\n\nfunc C() int { return b.B() }\n")
			}

			st := &fakeStore{}
			res, err := Index(context.Background(), st, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			w := st.writers[len(st.writers)-1]
			pkgs, syms := written(w)
			if !slices.Equal(pkgs, tc.want) {
				t.Errorf("indexed %q, want %q (diagnostics %+v)", pkgs, tc.want, w.diags)
			}
			for _, p := range tc.want {
				name := strings.ToUpper(strings.TrimPrefix(p, "example.com/"))
				if _, ok := syms[p+"."+name]; !ok {
					t.Errorf("symbol %s.%s not indexed", p, name)
				}
			}
			// b's call of a.A resolved across the workspace.
			aKey := syms["example.com/a.A"].Key
			if !slices.ContainsFunc(w.refs, func(r graph.Ref) bool { return r.Target == aKey && r.Path == "b/b.go" }) {
				t.Errorf("no reference from b/b.go to a.A (%d refs)", len(w.refs))
			}
			var got []string
			for _, d := range res.Skipped {
				got = append(got, d.Path)
				if d.Kind != graph.KindSkipped || d.Line != 6 || !strings.Contains(d.Message, "./c") || !strings.Contains(d.Message, "not indexed") {
					t.Errorf("skipped %+v, want go.work:6 naming ./c", d)
				}
				if !slices.Contains(w.diags, d) {
					t.Errorf("skipped %+v is not among the snapshot's diagnostics", d)
				}
			}
			if len(got) != len(tc.skipped) {
				t.Errorf("skipped %+v, want %d for %q", res.Skipped, len(tc.skipped), tc.skipped)
			}
		})
	}
}
