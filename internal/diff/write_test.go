package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCompare: the diff Compare writes is what diff -u writes for small
// changes, and Parse reads it back into hunks that Apply turns the old
// text into the new with, both ways.
func TestCompare(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, new []byte
		want     string // the diff; "" to check only the round trip
	}{
		{name: "equal", old: []byte("a\nb\n"), new: []byte("a\nb\n")},
		{name: "one line", old: []byte("a\nb\nc\n"), new: []byte("a\nB\nc\n"),
			want: "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{name: "added file", old: nil, new: []byte("x\ny"),
			want: "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"},
		{name: "deleted file", old: []byte("x\n"), new: nil,
			want: "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"},
		{name: "newline at end", old: []byte("a\nb"), new: []byte("a\nb\n"),
			want: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{name: "two hunks", old: []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"), new: []byte("0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n"),
			want: "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -9,4 +10,3 @@\n 9\n 10\n 11\n-12\n"},
		{name: "joined hunks", old: []byte("1\n2\n3\n4\n5\n6\n7\n8\n"), new: []byte("1\nX\n3\n4\n5\n6\n7\nY\n"),
			want: "--- a/f\n+++ b/f\n@@ -1,8 +1,8 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n 7\n-8\n+Y\n"},
		{name: "hostile", old: []byte("a\n"), new: []byte("a\n<script>alert(1)</script>\n\u202eevil\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Compare("f", c.old, c.new).String()
			if c.want != "" && got != c.want {
				t.Fatalf("diff:\n%s\nwant:\n%s", got, c.want)
			}
			roundTrip(t, got, c.old, c.new)
		})
	}
}

// TestCompareRandom: random edits of random texts round-trip, and a diff
// past MaxEdit is still a correct one.
func TestCompareRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func(n int) []byte {
		var b strings.Builder
		for range n {
			fmt.Fprintf(&b, "%d\n", r.IntN(5))
		}
		return []byte(b.String())
	}
	for i := range 300 {
		old := text(r.IntN(40))
		lines := strings.SplitAfter(string(old), "\n")
		for range r.IntN(6) {
			if len(lines) == 0 {
				break
			}
			j := r.IntN(len(lines))
			switch r.IntN(3) {
			case 0:
				lines = append(lines[:j], lines[j+1:]...)
			case 1:
				lines = append(lines[:j], append([]string{fmt.Sprintf("n%d\n", i)}, lines[j:]...)...)
			default:
				lines[j] = "c\n"
			}
		}
		roundTrip(t, Compare("f", old, []byte(strings.Join(lines, ""))).String(), old, []byte(strings.Join(lines, "")))
	}
	old, new := text(5000), text(5000)
	roundTrip(t, Compare("f", old, new).String(), old, new)
}

func roundTrip(t *testing.T, d string, old, new []byte) {
	t.Helper()
	if d == "" {
		if string(old) != string(new) {
			t.Fatalf("no diff between %q and %q", old, new)
		}
		return
	}
	files, err := Parse([]byte(d))
	if err != nil || len(files) != 1 {
		t.Fatalf("Parse: %d files, %v\n%s", len(files), err, d)
	}
	if got, err := files[0].Apply(old, false); err != nil || string(got) != string(new) {
		t.Fatalf("applied forward: %q, %v; want %q\n%s", got, err, new, d)
	}
	if got, err := files[0].Apply(new, true); err != nil || string(got) != string(old) {
		t.Fatalf("applied back: %q, %v; want %q\n%s", got, err, old, d)
	}
}
