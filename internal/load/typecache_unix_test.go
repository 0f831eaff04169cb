//go:build unix && !darwin

package load

import (
	"os"
	"path/filepath"
	"testing"
)

// The type cache is not used from a directory others may write to:
// its entries would be types the loader believes. The default place is
// checked with its sextant/ parent; a place SEXTANT_TYPE_CACHE names, by
// itself.
func TestTypeCacheRefusesOthersDirectory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     bool   // the place is given by SEXTANT_TYPE_CACHE
		open    string // made 0777 before opening, relative to the cache home
		trusted bool
	}{
		{"default", false, "", true},
		{"default, types open", false, "sextant/types", false},
		{"default, sextant open", false, "sextant", false},
		{"given", true, "", true},
		{"given, open", true, "mine", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", home)
			t.Setenv(TypeCacheEnv, "")
			if tc.env {
				t.Setenv(TypeCacheEnv, filepath.Join(home, "mine"))
			}
			if tc.open != "" {
				dir := filepath.Join(home, tc.open)
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, 0o777); err != nil {
					t.Fatal(err)
				}
			}
			if got := openTypeCache() != nil; got != tc.trusted {
				t.Errorf("cache opened: %v, want %v", got, tc.trusted)
			}
		})
	}
}
