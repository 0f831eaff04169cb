package txtartest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: every file of the archive, nested directories included, is
// on disk with its contents, under a path free of symlinks.
func TestWrite(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "a.txtar")
	if err := os.WriteFile(archive, []byte("comment\n-- go.mod --\nmodule m\n-- a/b/c.go --\npackage b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := Write(t, archive)
	if resolved, err := filepath.EvalSymlinks(dir); err != nil || resolved != dir {
		t.Errorf("dir %s resolves to %s (%v)", dir, resolved, err)
	}
	for name, want := range map[string]string{"go.mod": "module m\n", "a/b/c.go": "package b\n"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
}
