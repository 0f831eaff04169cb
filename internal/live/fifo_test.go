//go:build unix

package live

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/rootfs"
)

// TestReadRefusesFIFO: a FIFO where a source file should be is refused at
// once; a plain read would wait for a writer forever.
func TestReadRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readInRoot(dir, "pipe.go")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, rootfs.ErrNotRegular) {
			t.Errorf("reading a FIFO: %v, want rootfs.ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
}
