package query

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/outline"
)

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

// A struct nested 3,000 deep is outlined, and a cancelled outline stops
// and says so instead of finishing its work.
func TestOutlineCancelled(t *testing.T) {
	f := indexFixture(t, func() string {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"go.mod": "module example.com/p\n\ngo 1.24\n", "a.go": "package p\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	})
	// Written after indexing: the outline reads the disk.
	deep := []byte("package p\n\ntype T " + strings.Repeat("struct { A ", 3000) + "int" + strings.Repeat(" }", 3000) + "\n")
	if err := os.WriteFile(filepath.Join(f.dir, "deep.go"), deep, 0o644); err != nil {
		t.Fatal(err)
	}
	tl, _ := LookupTool("get_file_outline")
	withinHangGuard(t, "get_file_outline deep.go", func() {
		a, err := tl.Call(context.Background(), f.svc, json.RawMessage(`{"path":"deep.go"}`), nil)
		if err != nil {
			t.Errorf("outline of a struct nested 3,000 deep: %v", err)
			return
		}
		for _, e := range a.(*GetFileOutlineOutput).Results[0].Entries {
			if n := len(e.Signature); n > 2*outline.MaxPrinted {
				t.Errorf("%s: a signature of %d bytes", e.Name, n)
			}
			for _, m := range e.Members {
				if n := len(m.Signature); n > 2*outline.MaxPrinted {
					t.Errorf("%s.%s: a signature of %d bytes", e.Name, m.Name, n)
				}
			}
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if of, err := outline.Parse(ctx, "deep.go", deep, false); !errors.Is(err, context.Canceled) || len(of.Entries) != 0 {
		t.Errorf("outline with a cancelled context = %d entries, %v; want none and context.Canceled", len(of.Entries), err)
	}
	withinHangGuard(t, "a cancelled get_file_outline", func() {
		a, err := tl.Call(ctx, f.svc, json.RawMessage(`{"path":"."}`), nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled outline = %v, %v; want context.Canceled", a, err)
		}
	})
}
