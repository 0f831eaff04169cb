//go:build unix

package lsp_test

import (
	"syscall"
	"testing"
	"time"
)

func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// gone waits until pid no longer exists (reaped, not a zombie) or fails.
func gone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if syscall.Kill(pid, 0) != nil { // reaped: a zombie still takes signals
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("process %d still exists", pid)
}
