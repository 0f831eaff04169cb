package session

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
		if got := c.get(root, dir, "a.go", 0).line(tc.n); got != tc.want {
			t.Errorf("line %d = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		from, to int
		want     string
		ok       bool
	}{
		{1, 1, "package a\r\n", true},
		{2, 3, "\nfunc F() {}", true},
		{3, 9, "func F() {}", true}, // past the end: to the end
		{4, 4, "", false},
		{0, 1, "", false},
		{3, 2, "", false},
	} {
		if got, ok := c.get(root, dir, "a.go", 0).span(tc.from, tc.to); got != tc.want || ok != tc.ok {
			t.Errorf("span(%d, %d) = %q, %v, want %q, %v", tc.from, tc.to, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := (*cachedFile)(nil).span(1, 1); ok {
		t.Error("an unread file gave a span")
	}
	if first := c.get(root, dir, "a.go", 0); c.get(root, dir, "a.go", 0) != first {
		t.Error("an unchanged file was read again")
	}
	write("package a\n\nfunc G() {}\n", t0.Add(time.Second))
	if got := c.get(root, dir, "a.go", 0).line(3); got != "func G() {}" {
		t.Errorf("after a rewrite, line 3 = %q", got)
	}
	if c.get(root, dir, "missing.go", 0) != nil || c.get(root, dir, "../x.go", 0) != nil {
		t.Error("a missing file or one outside the root gave lines")
	}
}

// TestLineCacheWatchGenerations: an entry found current in a watch
// generation is served in that generation without opening the file, and
// in no other; without a watch (generation 0) never.
func TestLineCacheWatchGenerations(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var c lineCache
	if c.get(root, dir, "a.go", 0) == nil || c.cached(dir, "a.go", 0) != nil {
		t.Fatal("generation 0 served an entry unopened")
	}
	if c.cached(dir, "a.go", 5) != nil {
		t.Fatal("an entry never found current in generation 5 was served in it")
	}
	f := c.get(root, dir, "a.go", 5) // found current, unchanged
	if got := c.cached(dir, "a.go", 5); got == nil || got != f {
		t.Fatalf("generation 5: cached %p, want %p", got, f)
	}
	if c.cached(dir, "a.go", 6) != nil {
		t.Error("an entry of generation 5 was served in generation 6")
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package b\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := c.get(root, dir, "a.go", 6).line(1); got != "package b" {
		t.Errorf("generation 6 after a rewrite: line 1 = %q", got)
	}
	if got := c.cached(dir, "a.go", 6).line(1); got != "package b" {
		t.Errorf("generation 6 unopened: line 1 = %q", got)
	}
}
