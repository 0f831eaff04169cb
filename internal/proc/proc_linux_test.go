//go:build linux

package proc

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The shim's directory goes first on PATH of everything Sextant starts,
// so GuardGo refuses one another user owns or may write to (its
// sextant/ and go-shim/ parents too), and clears anything but the go
// link out of its own: a git planted there never runs.
func TestGuardGoRefusesPlantedShimDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(exe))
	hash := hex.EncodeToString(sum[:8])
	for _, tc := range []struct {
		name    string
		mode    map[string]os.FileMode // relative to the cache home: sextant, sextant/go-shim, sextant/go-shim/HASH
		chown   bool                   // give the shim's directory to uid 65534
		refused bool
	}{
		{"private, git planted", nil, false, false},
		{"open to all", map[string]os.FileMode{"sextant/go-shim/HASH": 0o777}, false, true},
		{"group-writable", map[string]os.FileMode{"sextant/go-shim/HASH": 0o770}, false, true},
		{"sextant open to all", map[string]os.FileMode{"sextant": 0o777}, false, true},
		{"go-shim open to all", map[string]os.FileMode{"sextant/go-shim": 0o777}, false, true},
		{"another user's", nil, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.chown && os.Getuid() != 0 {
				t.Skip("not root: cannot give a directory away")
			}
			home := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", home)
			t.Setenv("PATH", os.Getenv("PATH"))
			t.Setenv(RealGoEnv, "")
			t.Setenv(ShimDirEnv, "")
			dir := filepath.Join(home, "sextant", "go-shim", hash)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			ran := filepath.Join(home, "ran")
			if err := os.WriteFile(filepath.Join(dir, "git"), []byte("#!/bin/sh\necho planted > "+ran+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			for rel, mode := range tc.mode {
				if err := os.Chmod(filepath.Join(home, strings.ReplaceAll(rel, "HASH", hash)), mode); err != nil {
					t.Fatal(err)
				}
			}
			if tc.chown {
				if err := os.Chown(dir, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
			err := GuardGo()
			onPath := slices.Contains(filepath.SplitList(os.Getenv("PATH")), dir)
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "refusing") {
					t.Errorf("GuardGo = %v, want a refusal", err)
				}
				if onPath {
					t.Errorf("the refused directory is on PATH: %s", os.Getenv("PATH"))
				}
			} else {
				if err != nil || !onPath {
					t.Fatalf("GuardGo = %v, on PATH %v", err, onPath)
				}
				ents, _ := os.ReadDir(dir)
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				if !slices.Equal(names, []string{"go"}) {
					t.Errorf("the shim's directory holds %q, want only go", names)
				}
			}
			if out, err := exec.Command("git", "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "git version") {
				t.Errorf("git --version: %q, %v", out, err)
			}
			if b, err := os.ReadFile(ran); err == nil {
				t.Errorf("the planted git ran: %s", b)
			}
		})
	}
}
