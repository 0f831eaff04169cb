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
	// The poller stops the server once it passes the cap. The call that
	// finds it dead either fails (the server died while it had the
	// request) or, being read-only, is sent once more to the restarted
	// server and says so in the lease's notices.
	restarted := func(l *lsp.Lease) bool { return strings.Contains(strings.Join(l.Notices, "\n"), "restarted") }
	var err error
	for i := 0; i < 40 && err == nil && !restarted(l); i++ {
		_, err = hover(context.Background(), l, path, lsp.Point{Line: 1, Column: 1})
		time.Sleep(200 * time.Millisecond) // the poller measures every 500 ms
	}
	if err != nil && code(err) != graph.CodeLSPUnavailable {
		t.Fatalf("growing past the cap: %v", err)
	}
	if err == nil && !restarted(l) {
		t.Fatalf("growing past the cap: the server was neither stopped nor restarted")
	}
	notices := l.Notices
	l.Release()
	l = acquire(t, p, spec, dir)
	defer l.Release()
	all := strings.Join(append(notices, l.Notices...), "\n")
	if !strings.Contains(all, "restarted") || !strings.Contains(all, "memory cap of 150 MiB") {
		t.Errorf("notices %q, want a restart naming the cap", all)
	}
}
