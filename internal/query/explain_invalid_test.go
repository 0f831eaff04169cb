package query

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A type the compiler rejects (an invalid recursive definition) is
// described as invalid, not as a basic type, and satisfies nothing: go/types
// gives it the invalid type as its underlying type, assignable to all.
func TestExplainInvalidType(t *testing.T) {
	f := indexFixture(t, func() string {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			"go.mod": "module example.com/p\n\ngo 1.22\n",
			"p.go": "package p\n\n// T's length needs T's size.\ntype T [len(T{})]int\n\n// U is itself.\ntype U U\n\n" +
				"// V holds itself.\ntype V struct{ v V }\n\n// Fine is a valid type.\ntype Fine int\n",
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	})
	for _, tc := range []struct{ name, kind string }{{"T", "invalid"}, {"U", "invalid"}, {"V", "invalid"}, {"Fine", "basic"}} {
		out := ok[*ExplainTypeOutput](t, f, "explain_type", `{"qualified_name":"`+tc.name+`"}`)
		if out.Results.Kind != tc.kind {
			t.Errorf("explain_type %s: kind %q, underlying %q; want %s", tc.name, out.Results.Kind, out.Results.Underlying, tc.kind)
		}
		if tc.kind == "invalid" && len(out.Results.Satisfies) != 0 {
			t.Errorf("explain_type %s: an invalid type satisfies %+v", tc.name, out.Results.Satisfies)
		}
		if tc.kind == "invalid" && !strings.Contains(out.Text(), "check_file") {
			t.Errorf("explain_type %s does not say where to see why it is invalid:\n%s", tc.name, out.Text())
		}
	}
}
