package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestChecked checks the indexer's entries: they are kept for the last
// checkedDirs directories, are checked again in memory after an edit of a
// body, and reload (an error) after an edit that changes what the go
// command decided or when a file elsewhere changed.
func TestChecked(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.24\n"}
	const dirs = checkedDirs + 1
	for i := range dirs {
		files[fmt.Sprintf("p%d/p.go", i)] = fmt.Sprintf("package p%d\n\nfunc F() int { return %d }\n", i, i)
	}
	root := writeModule(t, files)
	ctx := context.Background()
	loads, c := New(0), New(0)
	hashes := map[string]string{"go.mod": "m"}
	for i := range dirs {
		p, err := loads.Get(ctx, root, fmt.Sprintf("p%d/p.go", i))
		if err != nil {
			t.Fatal(err)
		}
		c.PutChecked(root, fmt.Sprintf("p%d", i), hashes, p.Packages)
	}
	if got := c.Stats().Entries; got != checkedDirs {
		t.Fatalf("%d entries after %d directories, want %d", got, dirs, checkedDirs)
	}
	if _, err := c.TakeChecked(root, "p0", hashes); err == nil {
		t.Error("p0, the least recently put, was kept")
	}

	last := fmt.Sprintf("p%d", dirs-1)
	name := filepath.Join(root, last, "p.go")
	if err := os.WriteFile(name, []byte(fmt.Sprintf("package %s\n\nfunc F() int { return 40 + 2 }\n", last)), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs, err := c.TakeChecked(root, last, hashes)
	if err != nil {
		t.Fatalf("a body edited: %v, want it checked again", err)
	}
	if len(pkgs) != 1 || pkgs[0].Types.Scope().Lookup("F") == nil || len(pkgs[0].Syntax) != 1 {
		t.Fatalf("checked again: %v", pkgs)
	}
	if got := c.Stats().Rechecks; got != 1 {
		t.Errorf("%d rechecks, want 1", got)
	}
	if _, err := c.TakeChecked(root, last, hashes); err == nil {
		t.Error("an entry taken was still there")
	}

	c.PutChecked(root, last, hashes, pkgs)
	if _, err := c.TakeChecked(root, last, map[string]string{"go.mod": "changed"}); err == nil {
		t.Error("a file outside the directory changed, and the entry held")
	}
	c.PutChecked(root, last, hashes, pkgs)
	if err := os.WriteFile(name, []byte(fmt.Sprintf("package %s\n\nimport \"os\"\n\nfunc F() int { return len(os.Args) }\n", last)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TakeChecked(root, last, hashes); err == nil {
		t.Error("an import added, and the entry held")
	}
	var nilCache *Cache
	nilCache.PutChecked(root, last, hashes, pkgs)
	if _, err := nilCache.TakeChecked(root, last, hashes); err == nil {
		t.Error("a nil cache had an entry")
	}
}
