package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `sextant index` publishes the complete snapshot alone; with --staged,
// a first index publishes its syntax stage before it, as serve does.
func TestIndexStaged(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := t.TempDir()
	for name, body := range map[string]string{
		"go.mod": "module example.com/st\n\ngo 1.24\n",
		"a.go":   "package st\n\nfunc A() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		flags    []string
		snapshot string
		syntax   bool
	}{
		{nil, "snapshot 1:", false},
		{[]string{"--staged"}, "snapshot 2:", true},
	} {
		args := append(append([]string{"index"}, c.flags...), "--db", filepath.Join(t.TempDir(), "db"), dir)
		out, errOut, code := cliRun(args...)
		if code != 0 {
			t.Fatalf("%v exited %d: %s%s", args, code, out, errOut)
		}
		if !strings.Contains(out, c.snapshot) || strings.Contains(errOut, ": syntax") != c.syntax {
			t.Errorf("%v: want %q and a syntax stage %v; got\n%s%s", c.flags, c.snapshot, c.syntax, out, errOut)
		}
	}
}
