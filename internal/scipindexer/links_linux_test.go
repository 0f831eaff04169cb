//go:build linux

package scipindexer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// Configurations linked out of the root are tested on Linux, as the
// language servers' are (internal/lsp): under Wine a link a test makes is
// read as its target, which says nothing of Windows.

// TestLoadConfigSymlinkOut: a sextant.toml linked out of the root is not
// read.
func TestLoadConfigSymlinkOut(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "sextant.toml")
	if err := os.WriteFile(outside, []byte("[scip]\ntimeout = \"1m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "sextant.toml")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if _, err := scipindexer.LoadConfig(dir); err == nil {
		t.Fatal("a configuration linked out of the root was read")
	}
}

// TestDiscoverExtendsThroughLink: a tsconfig.json inside the root whose
// extends chain reaches a symlink out of the root notes it and does not
// read it.
func TestDiscoverExtendsThroughLink(t *testing.T) {
	outside := writeTree(t, `
-- base.json --
{"extends": "@secret/never-read"}
`)
	root := writeTree(t, `
-- tsconfig.json --
{"extends": "./base.json"}
-- a.ts --
`)
	if err := os.Symlink(filepath.Join(outside, "base.json"), filepath.Join(root, "base.json")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	ps, err := scipindexer.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	got := summary(ps)
	if strings.Contains(got, "@secret") || !strings.Contains(got, "base.json: file \"base.json\" leads to outside the root (a symbolic link)") {
		t.Errorf("got:\n%s", got)
	}
}
