package impact

import (
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestHashOfLines holds the hash of a function read from its own lines to
// the hash the recording keeps (DeclHashes over the whole file), and
// holds it to give up where the lines are not one declaration whole.
func TestHashOfLines(t *testing.T) {
	const src = `package demo

import "fmt"

// Greet says hello.
func Greet(name string) string {
	return fmt.Sprint("hello, ", name)
}

type T struct{ n int }

func (t *T) Add(k int) int {
	t.n += k
	return t.n
}

func Map[E any](xs []E, f func(E) E) []E {
	for i := range xs {
		xs[i] = f(xs[i])
	}
	return xs
}

func a() int { return 1 }; func b() int { return 2 }

func last() {}`
	whole := map[string]string{}
	for _, d := range DeclHashes("demo.go", []byte(src)) {
		whole[d.QualifiedName] = d.Hash
	}
	for _, tc := range []struct {
		name       string
		kind       graph.Kind
		start, end int
		same       bool // the hash is the whole file's; else ""
	}{
		{"Greet", graph.KindFunc, 5, 8, true}, // from its doc comment
		{"Greet", graph.KindFunc, 6, 8, true},
		{"T.Add", graph.KindMethod, 12, 15, true},
		{"Map", graph.KindFunc, 17, 22, true},
		{"last", graph.KindFunc, 26, 26, true},   // the file's last line, no newline after it
		{"a", graph.KindFunc, 24, 24, false},     // shares its line with b
		{"Greet", graph.KindFunc, 12, 15, false}, // lines moved: another declaration
		{"Greet", graph.KindFunc, 6, 7, false},   // cut short
		{"Greet", graph.KindFunc, 40, 44, false}, // past the end
	} {
		c := &changedDecl{sym: graph.Symbol{QualifiedName: tc.name, Kind: tc.kind, StartLine: tc.start, EndLine: tc.end}}
		got := hashOfLines(c, []byte(src))
		want := ""
		if tc.same {
			want = whole[tc.name]
			if want == "" {
				t.Fatalf("DeclHashes has no %s", tc.name)
			}
		}
		if got != want {
			t.Errorf("hashOfLines(%s, lines %d-%d) = %q, want %q", tc.name, tc.start, tc.end, got, want)
		}
	}
}
