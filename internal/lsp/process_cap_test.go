//go:build unix

package lsp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp"
)

// TestPolledMemoryCap: with the macOS guard (SEXTANT_LSP_GUARD=reaper on
// Linux), a server growing past its cap is stopped by the poller, the
// call fails naming the cap, and the next call restarts it.
func TestPolledMemoryCap(t *testing.T) {
	t.Setenv("SEXTANT_LSP_GUARD", "reaper")
	dir := t.TempDir()
	path := file(t, dir, "m.txt", "ALLOC 32\n")
	p := testPool(t, lsp.PoolConfig{SoftMemoryMB: 1000})
	spec := fakeSpec(t)
	spec.MemoryMB = 150 // resident, not address space: a small cap works
	l := acquire(t, p, spec, dir)
	if l.MemoryCapMB() != 150 {
		t.Fatalf("cap %d MiB, want 150", l.MemoryCapMB())
	}
	var err error
	for i := 0; i < 40 && err == nil; i++ {
		_, err = hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1})
		time.Sleep(200 * time.Millisecond) // the poller measures every 500 ms
	}
	l.Release()
	if code(err) != graph.CodeLSPUnavailable {
		t.Fatalf("growing past the cap: %v", err)
	}
	l = acquire(t, p, spec, dir)
	defer l.Release()
	notices := strings.Join(l.Notices, "\n")
	if !strings.Contains(notices, "restarted") || !strings.Contains(notices, "memory cap of 150 MiB") {
		t.Errorf("notices %q, want a restart naming the cap", l.Notices)
	}
}
