package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolAnswersOutsideModule: a tool subcommand run from a directory
// that is no module answers from the database instead of failing to
// index the working directory, and one run from a subdirectory of an
// indexed repository answers for that repository, its files included.
func TestToolAnswersOutsideModule(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(work, "mod")
	for name, body := range map[string]string{
		"go.mod":   "module example.com/mod\n\ngo 1.22\n",
		"a.go":     "package mod\n\n// Parse parses.\nfunc Parse() int { return 1 }\n",
		"pkg/b.go": "package pkg\n\n// Build builds.\nfunc Build() int { return 2 }\n",
	} {
		p := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere := filepath.Join(work, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(work, "db")
	if out, code := sextant(t, nil, "index", "--db", db, mod); code != 0 {
		t.Fatalf("index: exit %d: %s", code, out)
	}

	t.Chdir(elsewhere)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"find_symbol", "--db", db, "Parse"}, "func Parse() int"},
		{[]string{"get_symbol", "--db", db, "Build"}, "func Build() int"},
		{[]string{"list_repositories", "--db", db}, "example.com/mod"},
	} {
		out, code := sextant(t, nil, c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("from a directory that is no module, %v: exit %d, want %q:\n%s", c.args, code, c.want, out)
		}
	}

	t.Chdir(filepath.Join(mod, "pkg"))
	out, code := sextant(t, nil, "read_source", "--db", db, "--ref", "pkg/b.go::Build")
	if code != 0 || !strings.Contains(out, "func Build() int") {
		t.Errorf("from a subdirectory of the repository, read_source: exit %d:\n%s", code, out)
	}
	out, code = sextant(t, nil, "find_symbol", "--db", db, "--json", "Parse")
	if code != 0 || !strings.Contains(out, `"fresh": true`) {
		t.Errorf("from a subdirectory of the repository, find_symbol: exit %d:\n%s", code, out)
	}
}
