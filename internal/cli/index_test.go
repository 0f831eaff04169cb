package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `sextant index` publishes the complete snapshot alone; with --staged,
// a first index publishes its syntax and types stages before it, as
// serve does, and shows them in its progress.
func TestIndexStaged(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := writeTree(t, map[string]string{
		"go.mod": "module example.com/st\n\ngo 1.24\n",
		"a.go":   "package st\n\nfunc A() {}\n",
	})
	for _, c := range []struct {
		flags    []string
		snapshot string
		syntax   bool
	}{
		{nil, "snapshot 1:", false},
		{[]string{"--staged"}, "snapshot 3:", true},
	} {
		args := append(append([]string{"index"}, c.flags...), "--db", filepath.Join(t.TempDir(), "db"), dir)
		out, errOut, code := cliRun(args...)
		if code != 0 {
			t.Fatalf("%v exited %d: %s%s", args, code, out, errOut)
		}
		if !strings.Contains(out, c.snapshot) || strings.Contains(errOut, ": syntax 1/1") != c.syntax || strings.Contains(errOut, ": types 1/1") != c.syntax {
			t.Errorf("%v: want %q and syntax and types stages %v; got\n%s%s", c.flags, c.snapshot, c.syntax, out, errOut)
		}
	}
}

// `sextant index` succeeds on a repository with a required module that
// cannot be loaded, and says on stderr which one, coded INDEXING_FAILED.
func TestIndexNamesUnavailableModule(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := writeTree(t, map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.24\n\nrequire github.com/nobody/absent v1.2.3\n",
		"a.go":   "package app\n\nimport \"github.com/nobody/absent\"\n\nfunc A() int { return absent.X }\n\nfunc B() {}\n",
	})
	out, errOut, code := cliRun("index", "--db", filepath.Join(t.TempDir(), "db"), dir)
	if code != 0 || !strings.Contains(out, "snapshot") {
		t.Fatalf("index exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "go.mod:5: INDEXING_FAILED: module github.com/nobody/absent v1.2.3 could not be loaded") {
		t.Errorf("stderr does not name the unavailable module:\n%s", errOut)
	}
}

// writeTree writes files (relative path → content) into a new temporary
// directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
