package typeproto

import "testing"

// TestMayImport: the go command's rule for internal directories, the
// standard library's included.
func TestMayImport(t *testing.T) {
	for _, tc := range []struct {
		from, path string
		want       bool
	}{
		{"example.com/m", "io", true},
		{"example.com/m", "internal/bisect", false},
		{"net/http", "internal/bisect", true},
		{"example.com/m/a", "example.com/m/internal/x", true},
		{"example.com/m", "example.com/m/internal/x", true},
		{"example.com/other", "example.com/m/internal/x", false},
		{"example.com/mm", "example.com/m/internal/x", false},
		{"example.com/m/a/internal/b", "example.com/m/a/internal/c", true},
		{"example.com/m", "example.com/m/a/internal/c", false},
	} {
		if got := MayImport(tc.from, tc.path); got != tc.want {
			t.Errorf("MayImport(%q, %q) = %v, want %v", tc.from, tc.path, got, tc.want)
		}
	}
}
