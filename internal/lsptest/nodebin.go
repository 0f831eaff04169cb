package lsptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NodeBin returns the directory e2e/lsp/node_modules/.bin of this
// repository, where `npm ci --prefix e2e/lsp` installs the pinned language
// servers and SCIP indexers, once each of names is a program there (on
// Windows, its .cmd shim). Without one the test is skipped loudly, saying
// what was NOT tested (untested), except in CI (CI=true), where its absence
// is a failure.
func NodeBin(t testing.TB, untested string, names ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "e2e", "lsp", "package.json")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no e2e/lsp/package.json above the test's directory")
		}
		dir = parent
	}
	bin := filepath.Join(dir, "e2e", "lsp", "node_modules", ".bin")
	for _, name := range names {
		if _, err := exec.LookPath(filepath.Join(bin, name)); err != nil {
			msg := fmt.Sprintf("%s is not installed (npm ci --prefix e2e/lsp installs it): %s was NOT tested", name, untested)
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip("SKIPPED LOUDLY: " + msg)
		}
	}
	return bin
}
