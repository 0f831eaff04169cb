package outline

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// nestedSource is a file declaring pre, then open depth times, leaf,
// close depth times and post: a declaration nested depth deep.
func nestedSource(pre, open, leaf, close, post string, depth int) []byte {
	return []byte("package p\n\n" + pre + strings.Repeat(open, depth) + leaf + strings.Repeat(close, depth) + post + "\n")
}

// nestingShapes are declarations that go/printer measures by printing
// each nested level again.
var nestingShapes = []struct{ name, pre, open, leaf, close, post string }{
	{"struct field", "type T ", "struct { A ", "int", " }", ""},
	{"interface method", "type T ", "interface { M(", "int", ") }", ""},
	{"var type", "var V ", "struct { A ", "int", " }", ""},
	{"func literal value", "var V = ", "func() any { return ", "1", " }", ""},
	{"func parameter", "func F(x ", "struct { A ", "int", " }", ") {}"},
	{"type parameter", "type G[P ", "interface { M(", "int", ") }", "] int"},
}

// withinHangGuard runs f and fails the test if it has not returned after
// a deadline far above what it needs: a guard against a hang, not a timing.
func withinHangGuard(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("%s has not returned after 60s", what)
	}
}

// outlineBytes is the size of every signature of an outline.
func outlineBytes(of File) (total, longest int) {
	for _, e := range of.Entries {
		total += len(e.Signature)
		longest = max(longest, len(e.Signature))
		for _, m := range e.Members {
			total += len(m.Signature)
			longest = max(longest, len(m.Signature))
		}
	}
	return total, longest
}

// An outline's work grows linearly with the nesting of struct, interface
// and function-literal types, and its signatures are bounded: doubling the
// depth at most about doubles the bytes allocated (go/printer's own
// measuring made it grow with the cube), and the signatures do not grow.
func TestOutlineNestingLinear(t *testing.T) {
	for _, sh := range nestingShapes {
		t.Run(sh.name, func(t *testing.T) {
			var alloc, sigs [2]uint64
			for i, depth := range []int{500, 1000} {
				src := nestedSource(sh.pre, sh.open, sh.leaf, sh.close, sh.post, depth)
				var of File
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				withinHangGuard(t, fmt.Sprint("outline at depth ", depth), func() { of, _ = Parse(context.Background(), "p.go", src, false) })
				runtime.ReadMemStats(&after)
				alloc[i] = after.TotalAlloc - before.TotalAlloc
				total, longest := outlineBytes(of)
				sigs[i] = uint64(total)
				if len(of.Entries) == 0 {
					t.Fatalf("depth %d: no entries; parse errors %q", depth, of.ParseErrors)
				}
				if longest > 2*MaxPrinted {
					t.Errorf("depth %d: a signature of %d bytes, want at most %d", depth, longest, 2*MaxPrinted)
				}
			}
			if alloc[1] > 3*alloc[0] {
				t.Errorf("doubling the depth allocates %d bytes instead of %d (×%.1f), want at most ×3", alloc[1], alloc[0], float64(alloc[1])/float64(alloc[0]))
			}
			if sigs[1] > sigs[0]+16 {
				t.Errorf("doubling the depth grows the signatures from %d to %d bytes", sigs[0], sigs[1])
			}
		})
	}
}
