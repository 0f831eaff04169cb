package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolAnswersAboutItsRepository indexes two clones of one module into
// one database and checks that find_symbol run in the second lists the
// second's symbol alone, and that gc drops the first once its directory
// is gone, and nothing else.
func TestToolAnswersAboutItsRepository(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	db := filepath.Join(t.TempDir(), "sextant.db")
	vars := map[string]string{"SEXTANT_DB": db}
	var clones []string
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{"go.mod": "module example.com/clone\n\ngo 1.22\n", "clone.go": "package clone\n\n// Hello greets.\nfunc Hello() {}\n"}
		for f, body := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out, code := sextant(t, vars, "index", dir); code != 0 {
			t.Fatalf("index %s: exit %d\n%s", dir, code, out)
		}
		clones = append(clones, dir)
	}
	out, code := sextant(t, vars, "find_symbol", "Hello", "--root", clones[1], "--json")
	if code != 0 || strings.Count(out, `"qualified_name": "Hello"`) != 1 {
		t.Fatalf("find_symbol in the second clone (exit %d) lists not one Hello:\n%s", code, out)
	}
	if !strings.Contains(out, `"repository": "example.com/clone~2"`) {
		t.Errorf("find_symbol in the second clone answers from another:\n%s", out)
	}
	if out, code := sextant(t, vars, "get_symbol", "Hello", "--root", clones[1]); code != 0 {
		t.Errorf("get_symbol Hello in the second clone: exit %d (ambiguous across clones?)\n%s", code, out)
	}

	if err := os.RemoveAll(clones[0]); err != nil {
		t.Fatal(err)
	}
	if out, code := sextant(t, vars, "gc", "--dry-run"); code != 0 || !strings.Contains(out, "would drop example.com/clone ") {
		t.Errorf("gc --dry-run: exit %d\n%s", code, out)
	}
	if out, code := sextant(t, vars, "gc"); code != 0 || !strings.Contains(out, "dropped example.com/clone ") || strings.Contains(out, "clone~2") {
		t.Errorf("gc: exit %d\n%s", code, out)
	}
	out, _ = sextant(t, vars, "list_repositories", "--root", clones[1])
	if !strings.Contains(out, "example.com/clone~2") || strings.Contains(out, clones[0]) {
		t.Errorf("after gc, list_repositories:\n%s", out)
	}
	if _, code := sextant(t, map[string]string{"SEXTANT_DB": "postgres://u:p@127.0.0.1:1/db"}, "gc"); code != ExitUsage {
		t.Errorf("gc on a shared graph: exit %d, want %d (refused)", code, ExitUsage)
	}
}
