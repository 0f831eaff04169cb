package impact

import (
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestCompareFilesTokens: a change of comments and layout alone changes
// no declaration; a change of tokens in a body or a signature does, and
// says which.
func TestCompareFilesTokens(t *testing.T) {
	old := "package p\n\n// F adds.\nfunc F(a, b int) int {\n\treturn a + b\n}\n\nfunc G(s string) string { return s }\n\nvar V = 1 + 2\n\ntype I interface {\n\tM(int) error\n}\n"
	cases := []struct{ name, new, want string }{
		{"layout", "package p\n\n// F adds two ints.\nfunc F(a,\n\tb int) int {\n\treturn a +\n\t\tb // sum\n}\n\nfunc G(s string) string {\n\treturn s\n}\n\nvar V = 1 +\n\t2\n\ntype I interface {\n\t// M is m.\n\tM(int) error\n}\n", ""},
		{"body", strings.Replace(old, "return a + b", "return a - b", 1), "F:body"},
		{"signature", strings.Replace(old, "func G(s string) string", "func G(s []byte) string", 1), "G:signature"},
		{"value", strings.Replace(old, "1 + 2", "1 + 3", 1), "V:body"},
		{"interface method", strings.Replace(old, "M(int) error", "M(int64) error", 1), "I.M:signature"},
	}
	for _, tc := range cases {
		var got []string
		changed, _ := compareFiles([]fileChange{{path: "p.go", old: []byte(old), new: []byte(tc.new)}}, parseVersion)
		for _, c := range changed {
			if c.Kind == string(graph.KindInterface) {
				continue // its methods say what changed
			}
			got = append(got, c.QualifiedName+":"+c.Change)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: changed %v, want %q", tc.name, got, tc.want)
		}
	}
}
