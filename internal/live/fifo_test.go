//go:build unix

package live

import (
	"context"
	"errors"
	"os"
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

// TestLoadSkipsSpecialFiles: FIFOs in the package's directory and in a
// package it imports do not block the load (the go command would wait on
// them forever), and a Go file linked from outside the root is not part
// of the imported package's types.
func TestLoadSkipsSpecialFiles(t *testing.T) {
	root := writeModule(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.24\n",
		"a/a.go": "package a\n\nimport \"example.com/m/b\"\n\nconst A = b.B\n",
		"b/b.go": "package b\n\nconst B = 1\n",
	})
	outside := t.TempDir()
	write(t, outside, "z.go", "package b\n\n// Hidden is outside the root.\nconst Hidden = 2\n")
	if err := os.Symlink(filepath.Join(outside, "z.go"), filepath.Join(root, "b", "z.go")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a/pipe.go", "b/pipe.go", "b/pipe.s"} {
		if err := syscall.Mkfifo(filepath.Join(root, filepath.FromSlash(name)), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	p, err := New(0).Get(ctx, root, "a/a.go")
	if err != nil {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}
	if took := time.Since(start); took > 40*time.Second {
		t.Errorf("the load took %s: it waited on a FIFO", took)
	}
	if p.Pkg.Types == nil || p.Pkg.Types.Scope().Lookup("A") == nil {
		t.Fatalf("package a has no A: %v", p.Pkg.Errors)
	}
	b := p.Pkg.Imports["example.com/m/b"]
	if b == nil || b.Types == nil {
		t.Fatal("no types for the imported package b")
	}
	if b.Types.Scope().Lookup("Hidden") != nil {
		t.Error("package b's types hold Hidden, declared in a file outside the root")
	}
}
