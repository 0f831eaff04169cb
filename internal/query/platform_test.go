package query

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// platformCalls are the calls whose answers testdata/platform.golden
// holds. Paths given in another case than the files' name the same
// files, as they do on macOS and Windows.
var platformCalls = []struct{ tool, args string }{
	{"find_symbol", `{"name":"Hello"}`},
	{"find_symbol", `{"name":"Target","mode":"exact"}`},
	{"get_file_outline", `{"path":"Dir/Upper.go"}`},
	{"get_file_outline", `{"path":"dir/upper.GO"}`},
	{"get_file_outline", `{"path":"DIR"}`},
	{"get_file_outline", `{"path":"lower/lower.go"}`},
	{"read_source", `{"qualified_name":"Hello"}`},
	{"read_source", `{"ref":"Dir/Upper.go:5-6"}`},
	{"read_source", `{"ref":"dir/UPPER.go:14-14"}`},
	{"read_source", `{"ref":"données/lisez-moi.txt:1-2"}`},
	{"read_source", `{"ref":"DONNÉES/LISEZ-MOI.txt:2-2"}`},
	{"find_references", `{"qualified_name":"Hello"}`},
	{"find_references", `{"qualified_name":"Greeting"}`},
	{"find_references", `{"file":"lower/lower.go","name":"dir.Shout"}`},
	{"read_source", `{"ref":"../outside.go:1-2"}`},
}

// TestPlatformGolden records the answers of find_symbol,
// get_file_outline, read_source and find_references on a fixture with
// CRLF files, upper- and lower-case directories and a non-ASCII one, and
// compares them with testdata/platform.golden (go test -update rewrites
// it). The same golden holds on every platform: .ci/windows.sh runs this
// test under Wine, where the file system folds case itself; here a
// folding file system is simulated.
func TestPlatformGolden(t *testing.T) {
	if !session.CaseInsensitive(t.TempDir()) {
		old := session.CaseInsensitive
		session.CaseInsensitive = func(string) bool { return true }
		t.Cleanup(func() { session.CaseInsensitive = old })
	}
	f := newFixture(t, "testdata/platform.txtar")
	var b strings.Builder
	for _, c := range platformCalls {
		a, err := f.call(t, c.tool, c.args)
		fmt.Fprintf(&b, "== %s %s\n", c.tool, c.args)
		if err != nil {
			fmt.Fprintf(&b, "%s\n", strings.ReplaceAll(ErrorOf(err).Text(), f.dir, "$ROOT"))
			continue
		}
		b.WriteString(strings.ReplaceAll(a.Text(), f.dir, "$ROOT"))
	}
	compareGolden(t, "testdata/platform.golden", b.String())
}

// compareGolden compares got with the golden file, or with -update
// rewrites it.
func compareGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("answers differ from %s (go test -update to accept):\n%s", golden, txtartest.LineDiff(string(want), got))
	}
}

// TestPlatformFoldingStaysInRoot: with case folded, an absolute path in
// another case than the root is inside it, a sibling sharing the root's
// prefix is not, and a symlink out of the root is refused in any case.
func TestPlatformFoldingStaysInRoot(t *testing.T) {
	old := session.CaseInsensitive
	session.CaseInsensitive = func(string) bool { return true }
	t.Cleanup(func() { session.CaseInsensitive = old })
	f := newFixture(t, "testdata/platform.txtar")
	outside := filepath.Join(filepath.Dir(f.dir), filepath.Base(f.dir)+"-other")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := f.svc.open(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	upper := filepath.Join(filepath.Dir(f.dir), strings.ToUpper(filepath.Base(f.dir)), "DIR", "upper.go")
	l, err := v.Locate("path", upper, "")
	if err != nil || l.Rel != "Dir/Upper.go" {
		t.Errorf("locate(%q) = %q, %v; want Dir/Upper.go", upper, l.Rel, err)
	}
	for _, p := range []string{filepath.Join(outside, "secret.go"), filepath.Join(strings.ToUpper(outside), "SECRET.go")} {
		if l, err := v.Locate("path", p, ""); err == nil {
			t.Errorf("locate(%q) = %q inside the root", p, l.Rel)
		}
	}
	if err := os.Symlink(outside, filepath.Join(f.dir, "Link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	for _, p := range []string{"Link/secret.go", "LINK/SECRET.GO", "link/secret.go"} {
		if l, err := v.Locate("path", p, ""); err == nil {
			t.Errorf("locate(%q) = %q inside the root", p, l.Rel)
		}
	}
}
