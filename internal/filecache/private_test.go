//go:build unix

package filecache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory another user could write to, or that another user owns, is
// refused, its parents below the base included: whoever can write there
// can plant entries, or programs. A missing one is created private.
func TestPrivateDir(t *testing.T) {
	if os.Getuid() != 0 {
		t.Log("not root: the directory owned by another user is not made")
	}
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, base string) // base/a/b is asked for
		refused string                          // "" when accepted
	}{
		{"missing", func(*testing.T, string) {}, ""},
		{"private", func(t *testing.T, base string) { mkdir(t, filepath.Join(base, "a", "b"), 0o700) }, ""},
		{"world-writable", func(t *testing.T, base string) { mkdir(t, filepath.Join(base, "a", "b"), 0o777) }, "writable by others"},
		{"group-writable", func(t *testing.T, base string) { mkdir(t, filepath.Join(base, "a", "b"), 0o770) }, "writable by others"},
		{"parent world-writable", func(t *testing.T, base string) {
			mkdir(t, filepath.Join(base, "a"), 0o777)
			mkdir(t, filepath.Join(base, "a", "b"), 0o700)
		}, "writable by others"},
		{"another user's", func(t *testing.T, base string) {
			if os.Getuid() != 0 {
				t.Skip("not root: cannot give a directory away")
			}
			mkdir(t, filepath.Join(base, "a", "b"), 0o700)
			if err := os.Chown(filepath.Join(base, "a", "b"), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 65534"},
		{"a file", func(t *testing.T, base string) {
			mkdir(t, filepath.Join(base, "a"), 0o700)
			if err := os.WriteFile(filepath.Join(base, "a", "b"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			tc.prepare(t, base)
			dir, err := PrivateDir(base, "a", "b")
			if tc.refused == "" {
				if err != nil || dir != filepath.Join(base, "a", "b") {
					t.Fatalf("PrivateDir = %q, %v", dir, err)
				}
				for _, d := range []string{dir, filepath.Dir(dir)} {
					if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o077 != 0 {
						t.Errorf("%s: %v, %v; want private", d, fi.Mode(), err)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Fatalf("PrivateDir = %q, %v; want refused: %s", dir, err, tc.refused)
			}
			// Open checks the directory it is given, not its parents.
			if _, err := Open(filepath.Join(base, "a", "b")); err == nil && !strings.HasPrefix(tc.name, "parent") {
				t.Errorf("Open accepted the directory PrivateDir refused")
			}
		})
	}
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}
