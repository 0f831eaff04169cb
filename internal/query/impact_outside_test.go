package query

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// A diff_text that names a path outside the repository is OUTSIDE_ROOTS
// naming the field, whatever the file's extension, never "no Go file
// differs" (a path with .. was skipped as not Go source).
func TestImpactDiffTextOutside(t *testing.T) {
	_, svc := gitRepo(t, map[string]string{
		"go.mod": "module example.com/p\n\ngo 1.22\n",
		"a.go":   "package p\n\nfunc A() int { return 1 }\n",
	})
	hunk := "@@ -1 +1 @@\n-package p\n+package q\n"
	tl, _ := LookupTool("get_impact")
	for _, p := range []string{"../a.go", "../../etc/passwd", "x/../../a.go", "/etc/a.go", "..", "sub/../../../a.go"} {
		d := "--- a/" + p + "\n+++ b/" + p + "\n" + hunk
		if p[0] == '/' {
			d = "--- " + p + "\n+++ " + p + "\n" + hunk
		}
		args, _ := json.Marshal(map[string]string{"diff_text": d})
		_, err := tl.Call(context.Background(), svc, args, nil)
		e, ok := asError(err)
		if !ok || e.Code != graph.CodeOutsideRoots || e.Data["field"] != "diff_text" {
			t.Errorf("diff_text naming %s: %v; want OUTSIDE_ROOTS naming diff_text", p, err)
		}
	}
	// A .. that stays inside is the file it leads to.
	d := "--- a/sub/../a.go\n+++ b/sub/../a.go\n@@ -3 +3 @@\n-func A() int { return 1 }\n+func A() int { return 2 }\n"
	args, _ := json.Marshal(map[string]string{"diff_text": d})
	a, err := tl.Call(context.Background(), svc, args, nil)
	if err != nil {
		t.Fatalf("diff_text naming sub/../a.go: %v", err)
	}
	if c := a.(*GetImpactOutput).Changed; len(c) != 1 || c[0].QualifiedName != "A" || c[0].Path != "a.go" {
		t.Errorf("diff_text naming sub/../a.go changed %+v; want A of a.go", c)
	}
}
