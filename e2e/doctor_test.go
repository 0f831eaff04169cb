package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDoctorChangesNothing: the built binary's doctor reports on a
// machine without changing what Sextant keeps there (its cache directory
// is not made, not even for the go guard), and passes a root that needs
// nothing it lacks.
func TestDoctorChangesNothing(t *testing.T) {
	cache := t.TempDir()
	cmd := exec.Command(bin, "doctor", "--json", t.TempDir())
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "LocalAppData="+cache, "HOME="+cache, "SEXTANT_DB=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sextant doctor: %v\n%s", err, out)
	}
	var r struct{ OK bool }
	if err := json.Unmarshal(out, &r); err != nil || !r.OK {
		t.Errorf("sextant doctor --json of an empty root: %s (%v), want ok", out, err)
	}
	// The programs it asks their version may keep caches of their own
	// (gopls does); Sextant's directory is not made.
	if _, err := os.Stat(filepath.Join(cache, "sextant")); err == nil {
		t.Errorf("doctor made %s", filepath.Join(cache, "sextant"))
	}
}
