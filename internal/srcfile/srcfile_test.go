package srcfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCacheLoad: a file unchanged on disk is parsed once; changed, it is
// parsed again; and two caches share nothing.
func TestCacheLoad(t *testing.T) {
	root := t.TempDir()
	write := func(src string) {
		if err := os.WriteFile(filepath.Join(root, "a.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package p\n\n// F is f.\nfunc F() {}\n")
	c := NewCache()
	f1, err := c.Load(root, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	if ds := f1.Find("F", ""); len(ds) != 1 || ds[0].DocLine != 3 || ds[0].Line != 4 || f1.LineCount() != 4 {
		t.Fatalf("F: %+v in %d lines, want doc line 3, line 4 of 4", ds, f1.LineCount())
	}
	if f2, _ := c.Load(root, "a.go"); f2 != f1 {
		t.Error("an unchanged file was parsed again")
	}
	if f3, _ := NewCache().Load(root, "a.go"); f3 == f1 {
		t.Error("two caches share a parse")
	}
	write("package p\n\nfunc G() {}\n")
	f4, err := c.Load(root, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	if f4 == f1 || len(f4.Find("G", "")) != 1 || f4.Text(3, 3) != "func G() {}" {
		t.Errorf("after a change: %q, decls %+v", f4.Text(3, 3), f4.Decls)
	}
}
