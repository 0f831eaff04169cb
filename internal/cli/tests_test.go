package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// gitCommitAll makes dir a git repository with everything in it committed.
func gitCommitAll(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}

// edit replaces old by new in the file rel of dir.
func edit(t *testing.T, dir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", rel, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTestsRecordImpact records a fixture module's tests, then asks
// get_impact about edits of the working tree: a body change of a function
// the recording knows is answered by exactly the tests that ran it (not
// TestBig, which the static reach finds through a branch no test takes),
// as one go test line; a change to a test helper is answered by the
// static reach, and the answer says so.
func TestTestsRecordImpact(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := txtartest.Write(t, "testdata/testrec.txtar")
	gitCommitAll(t, dir)
	db := filepath.Join(t.TempDir(), "db")
	t.Chdir(dir)

	out, errOut, code := cliRun("tests", "record", "--db", db, "--json", dir)
	if code != 0 {
		t.Fatalf("tests record exited %d: %s%s", code, out, errOut)
	}
	var rec struct {
		Summary struct {
			Tests    int            `json:"tests"`
			ByStatus map[string]int `json:"by_status"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.Summary.Tests != 6 || rec.Summary.ByStatus["pass"] != 6 {
		t.Fatalf("tests record: %v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(errOut, "tests: ") {
		t.Errorf("no progress on stderr:\n%s", errOut)
	}

	// A body change of Mul: TestSq ran it; TestBig reaches it only
	// through a branch it does not take.
	edit(t, dir, "a/a.go", "r := 0", "r := 0 * x")
	out, errOut, code = cliRun("get_impact", "--db", db, "--diff", "--format", "commands")
	if code != 0 {
		t.Fatalf("get_impact exited %d: %s%s", code, out, errOut)
	}
	if want := "go test -run '^(TestSq)$' ./b\n"; out != want {
		t.Errorf("commands for a body change of Mul:\n%s\nwant\n%s", out, want)
	}
	out, errOut, code = cliRun("get_impact", "--db", db, "--diff", "--json")
	if code != 0 {
		t.Fatalf("get_impact exited %d: %s%s", code, out, errOut)
	}
	var ans struct {
		Results []struct {
			Name, Source string
		} `json:"results"`
		Recording *struct {
			Changes, Covered int
			Static           []string
		} `json:"recording"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Results) != 1 || ans.Results[0].Name != "TestSq" || ans.Results[0].Source != "recorded" ||
		ans.Recording == nil || ans.Recording.Changes != 1 || ans.Recording.Covered != 1 {
		t.Errorf("answer for Mul: %s", out)
	}
	edit(t, dir, "a/a.go", "r := 0 * x", "r := 0")

	// A test helper's change: coverage does not record test files, so
	// what it reaches is answered statically, and the answer says so.
	edit(t, dir, "b/b_test.go", "if got != want {", "if got != want || got < 0 {")
	out, errOut, code = cliRun("get_impact", "--db", db, "--diff")
	if code != 0 {
		t.Fatalf("get_impact exited %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"go test -run '^(TestHelped)$' ./b", "0 of 1 changes answered", "static: check (declared in a test file"} {
		if !strings.Contains(out, want) {
			t.Errorf("answer for the helper lacks %q:\n%s", want, out)
		}
	}
	edit(t, dir, "b/b_test.go", "if got != want || got < 0 {", "if got != want {")

	// A commit after the recording: what it says of Mul is still
	// answered, and the answer says the recording may be stale.
	edit(t, dir, "b/b.go", "return a.Add(x, x)", "return a.Add(x, x) + 0")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "later")
	edit(t, dir, "a/a.go", "r := 0", "r := 0 * x")
	out, errOut, code = cliRun("get_impact", "--db", db, "--diff")
	if code != 0 {
		t.Fatalf("get_impact exited %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"go test -run '^(TestSq)$' ./b", "stale_recording: the test recording was made at"} {
		if !strings.Contains(out, want) {
			t.Errorf("answer after a later commit lacks %q:\n%s", want, out)
		}
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}

// TestTestsRecordShared records into a shared PostgreSQL graph, as a
// team's CI does, and a working copy's get_impact (the overlay of a
// local index over the shared graph) answers a body change from that
// recording.
func TestTestsRecordShared(t *testing.T) {
	dsn := pgtest.Schema(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := txtartest.Write(t, "testdata/testrec.txtar")
	gitCommitAll(t, dir)
	vars := map[string]string{"SEXTANT_DB": dsn, "SEXTANT_LOCAL_DB": filepath.Join(t.TempDir(), "local.db")}
	if out, code := sextant(t, vars, "tests", "record", dir); code != 0 || !strings.Contains(out, "recorded 6 tests") {
		t.Fatalf("tests record into the shared graph: exit %d: %s", code, out)
	}
	edit(t, dir, "a/a.go", "r := 0", "r := 0 * x")
	out, code := sextant(t, vars, "get_impact", "--root", dir, "--diff", "--format", "commands")
	if want := "go test -run '^(TestSq)$' ./b\n"; code != 0 || out != want {
		t.Errorf("commands from the shared recording: exit %d:\n%s\nwant\n%s", code, out, want)
	}
}
