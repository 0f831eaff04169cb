package proctree

import (
	"strings"
	"testing"
)

// A Tail keeps the last lines of a flood, whole, within its size.
func TestTail(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		n, max int
		want   string
	}{
		{"all kept", []string{"one\n", "two\n"}, 64, 64, "one\ntwo"},
		{"a line lost", []string{"first line\n", "second\n", "third\n"}, 16, 16, "second\nthird"},
		{"one write over the size", []string{strings.Repeat("x", 40) + "\nlast\n"}, 16, 16, "last"},
		{"max under the size", []string{"aaaa\n", "bbbb\n", "cccc\n"}, 64, 8, "cccc"},
	} {
		tl := NewTail(c.n)
		for _, w := range c.writes {
			if n, err := tl.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("%s: Write = %d, %v", c.name, n, err)
			}
		}
		if got := tl.String(c.max); got != c.want {
			t.Errorf("%s: String(%d) = %q, want %q", c.name, c.max, got, c.want)
		}
	}
}
