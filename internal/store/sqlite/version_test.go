package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

func TestCheckVersion(t *testing.T) {
	for v, ok := range map[string]bool{
		"3.51.3": true, "3.51.10": true, "3.52.0": true, "3.54.1": true, "4.0.0": true,
		"3.50.7": true, "3.50.9": true, "3.44.6": true, "3.44.7": true,
		"3.51.2": false, "3.51.0": false, "3.50.6": false, "3.50.0": false, "3.44.5": false,
		"3.45.0": false, "3.49.9": false, "3.43.9": false, "2.99.99": false,
		"3.51": false, "x.y.z": false, "": false,
	} {
		if err := checkVersion(v); (err == nil) != ok {
			t.Errorf("checkVersion(%q) = %v, want ok=%v", v, err, ok)
		}
	}
}

// TestBundledVersion: the library this binary bundles passes the check
// (Open runs it, and would fail).
func TestBundledVersion(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := s.SQLiteVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := checkVersion(v); err != nil {
		t.Fatal(err)
	}
	t.Logf("bundled sqlite %s", v)
}
