//go:build unix && !darwin

package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The default database's directory, sextant/ in the user's cache, is
// refused when someone else may write to it: they could swap the
// database, or the go shim and type cache kept beside it.
func TestDefaultPathRefusesOpenDirectory(t *testing.T) {
	for _, tc := range []struct {
		mode    os.FileMode
		refused bool
	}{{0o700, false}, {0o755, false}, {0o777, true}, {0o775, true}} {
		home := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", home)
		t.Setenv("SEXTANT_DB", "")
		dir := filepath.Join(home, "sextant")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, tc.mode); err != nil {
			t.Fatal(err)
		}
		p, err := DefaultPath()
		if tc.refused != (err != nil) || err != nil && !strings.Contains(err.Error(), "writable by others") {
			t.Errorf("mode %v: DefaultPath = %q, %v; want refused %v", tc.mode, p, err, tc.refused)
		}
		if err == nil && p != filepath.Join(dir, "sextant.db") {
			t.Errorf("mode %v: DefaultPath = %q", tc.mode, p)
		}
	}
}
