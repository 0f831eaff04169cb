package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorExit: sextant doctor exits 0 when the roots need nothing
// missing, 1 when a root with a go.mod meets a PATH without go, naming
// it with its fix; --json prints the same report for scripts.
func TestDoctorExit(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no program at all
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	empty, module := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(module, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "sextant.db")
	for _, c := range []struct {
		root string
		code int
	}{{empty, ExitOK}, {module, ExitFailure}} {
		var out bytes.Buffer
		e := env{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}
		if code := run(context.Background(), e, []string{"doctor", "--json", "--db", db, c.root}); code != c.code {
			t.Errorf("doctor %s: exit %d, want %d\n%s", c.root, code, c.code, out.String())
		}
		var r struct {
			OK     bool
			Checks []struct{ Name, Status, Fix string }
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("doctor --json printed %q: %v", out.String(), err)
		}
		if r.OK != (c.code == ExitOK) {
			t.Errorf("doctor --json %s: ok %v with exit %d", c.root, r.OK, c.code)
		}
		for _, ch := range r.Checks {
			if ch.Name == "go" && (ch.Status != "missing" || !strings.Contains(ch.Fix, "go.dev/dl")) {
				t.Errorf("go: %+v, want missing with the command that installs it", ch)
			}
		}
	}
}
