package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/bench/impacttruth"
)

// TestImpactRecall scores get_impact against measured truth on cobra:
// every test of cobra is run alone with coverage of the whole module
// (bench/impacttruth), and for every function some test runs, the tests
// get_impact names for a body change to it (through the built binary over
// MCP) must include every test that runs it. Precision is logged: the
// median of the tests named against the truth's and against the tests of
// the packages that import the function's package; the answer may never
// name more than those.
func TestImpactRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cobra's tests one by one")
	}
	dir := filepath.Join(t.TempDir(), "cobra")
	if err := copyTree(cobraSrc, dir); err != nil {
		t.Fatal(err)
	}
	truth, err := impacttruth.Build(t.Context(), dir, impacttruth.Options{Log: t.Logf})
	if err != nil {
		t.Fatalf("measuring which tests run what: %v", err)
	}
	t.Logf("truth: %d tests (%d failed alone: their coverage counts), %d functions run, in %s", truth.Tests, len(truth.Failed), len(truth.Funcs), truth.Elapsed)
	if truth.Tests < 250 || len(truth.Funcs) < 200 {
		t.Fatalf("the truth is too small to score against: %d tests, %d functions", truth.Tests, len(truth.Funcs))
	}
	dirToPkg := map[string]string{}
	for _, p := range truth.Packages {
		dirToPkg[p.Dir] = p.Path
	}
	cs := sharedIndex(t)
	funcs := make([]string, 0, len(truth.Funcs))
	for f := range truth.Funcs {
		funcs = append(funcs, f)
	}
	sort.Strings(funcs)
	answers := map[string]impacttruth.Named{}
	for _, f := range funcs {
		d := truth.Decls[f]
		args := map[string]any{"qualified_name": d.Name, "path": d.Path, "limit": 500, "budget": 1000000}
		var named impacttruth.Named
		for {
			a := call(t, cs, "get_impact", args)
			if a.res.IsError {
				t.Fatalf("get_impact %v: %s", args, a.text)
			}
			var out struct {
				Results []struct {
					Name, Dir string
				} `json:"results"`
				BlindSpots []string `json:"blind_spots"`
				NextCursor *string  `json:"next_cursor"`
				Changed    []struct {
					QualifiedName string `json:"qualified_name"`
				} `json:"changed"`
			}
			if err := json.Unmarshal(a.structured, &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Changed) != 1 || out.Changed[0].QualifiedName != d.Name {
				t.Fatalf("get_impact %v changed %+v, want %s", args, out.Changed, d.Name)
			}
			named.BlindSpots = out.BlindSpots
			for _, r := range out.Results {
				named.Tests = append(named.Tests, dirToPkg[r.Dir]+"."+r.Name)
			}
			if out.NextCursor == nil {
				break
			}
			args["cursor"] = *out.NextCursor
		}
		answers[f] = named
	}
	s := truth.ScoreAll(funcs, answers)
	t.Logf("get_impact on cobra: %s", s)
	for _, m := range s.Misses {
		t.Errorf("%s: %d tests run it that get_impact does not name (it names %d): %s", m.Func, len(m.Missing), m.Named, strings.Join(m.Missing, ", "))
	}
	if s.Functions != len(funcs) {
		t.Errorf("scored %d functions of %d", s.Functions, len(funcs))
	}
	if s.MedianNamed > s.MedianDependents {
		t.Errorf("median tests named %.0f is more than running every dependent package (%.0f)", s.MedianNamed, s.MedianDependents)
	}
}

// TestImpactCommandsCLI runs `sextant get_impact --diff --format commands`
// on a git copy of cobra with one function's body edited: it prints only
// go test lines, and they name the tests that call the function.
func TestImpactCommandsCLI(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := freshCopy(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "cobra")
	db := filepath.Join(t.TempDir(), "db")
	runCLI(t, 0, "index", "--db", db, dir)
	file := filepath.Join(dir, "args.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// ExactArgs' body: one more statement.
	edited := strings.Replace(string(src), "func ExactArgs(n int) PositionalArgs {\n", "func ExactArgs(n int) PositionalArgs {\n\t_ = n\n", 1)
	if edited == string(src) {
		t.Fatal("ExactArgs not found in args.go")
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := runCLI(t, 0, "get_impact", "--diff", "--format", "commands", "--db", db, "--root", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatalf("no command printed")
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "go test ") {
			t.Fatalf("line %q is not a go test command; output:\n%s", l, out)
		}
	}
	if !strings.Contains(out, "TestExactArgs") || strings.Contains(out, "./doc") {
		t.Errorf("commands for a change to ExactArgs should run its tests in . and nothing of ./doc:\n%s", out)
	}
}
