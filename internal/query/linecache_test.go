package query

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLineCacheFollowsTheDisk: lines come from the file as it is now, a
// rewrite is seen on the next read, and line endings and the last line
// without one are handled.
func TestLineCacheFollowsTheDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.go")
	write := func(s string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var c lineCache
	t0 := time.Now().Add(-time.Hour)
	write("package a\r\n\nfunc F() {}", t0)
	for _, tc := range []struct {
		n    int
		want string
	}{{1, "package a"}, {2, ""}, {3, "func F() {}"}, {4, ""}, {0, ""}} {
		if got := c.get(root, dir, "a.go").line(tc.n); got != tc.want {
			t.Errorf("line %d = %q, want %q", tc.n, got, tc.want)
		}
	}
	if c.get(root, dir, "a.go") != c.get(root, dir, "a.go") {
		t.Error("an unchanged file was read again")
	}
	write("package a\n\nfunc G() {}\n", t0.Add(time.Second))
	if got := c.get(root, dir, "a.go").line(3); got != "func G() {}" {
		t.Errorf("after a rewrite, line 3 = %q", got)
	}
	if c.get(root, dir, "missing.go") != nil || c.get(root, dir, "../x.go") != nil {
		t.Error("a missing file or one outside the root gave lines")
	}
}
