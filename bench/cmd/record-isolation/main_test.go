package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The added TestMain would clash with a package's own: the harness finds
// one declared in any test file, and not one in a comment or a string.
func TestDeclaresTestMain(t *testing.T) {
	for _, tc := range []struct {
		files map[string]string
		want  bool
	}{
		{map[string]string{"a_test.go": "package a\n\nfunc TestMain(m *testing.M) { m.Run() }\n"}, true},
		{map[string]string{"a_test.go": "package a\n\n// func TestMain(m *testing.M) is not here\nfunc TestA(t *testing.T) {}\n", "a.go": "package a\n\nfunc TestMain(m *testing.M) {}\n"}, false},
		{map[string]string{"b_test.go": "package a_test\n\nfunc TestB(t *testing.T) {}\n", "c_test.go": "package a_test\n\nfunc TestMain(m *testing.M) {}\n"}, true},
	} {
		dir := t.TempDir()
		for name, text := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := declaresTestMain(dir)
		if err != nil || got != tc.want {
			t.Errorf("%v: declaresTestMain = %v, %v; want %v", tc.files, got, err, tc.want)
		}
	}
}
