package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `sextant index` succeeds on a repository with a required module that
// cannot be loaded, and says on stderr which one, coded INDEXING_FAILED.
func TestIndexNamesUnavailableModule(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.24\n\nrequire github.com/nobody/absent v1.2.3\n",
		"a.go":   "package app\n\nimport \"github.com/nobody/absent\"\n\nfunc A() int { return absent.X }\n\nfunc B() {}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := cliRun("index", "--db", filepath.Join(t.TempDir(), "db"), dir)
	if code != 0 || !strings.Contains(out, "snapshot") {
		t.Fatalf("index exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "go.mod:5: INDEXING_FAILED: module github.com/nobody/absent v1.2.3 could not be loaded") {
		t.Errorf("stderr does not name the unavailable module:\n%s", errOut)
	}
}
