// Package txtartest writes txtar fixtures into directories, for tests.
// Test support only: nothing outside _test.go files imports it.
package txtartest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Write writes the files of the txtar archive at path archive into a fresh
// temporary directory and returns the directory's path with its symlinks
// resolved, the form in which the indexer records roots.
func Write(t testing.TB, archive string) string {
	t.Helper()
	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	WriteDir(t, dir, ar)
	return dir
}

// WriteDir writes the files of ar under dir, creating directories as
// needed.
func WriteDir(t testing.TB, dir string, ar *txtar.Archive) {
	t.Helper()
	for _, f := range ar.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// LineDiff lists the lines that differ between want and got, numbered,
// for the failure message of a golden test.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}
