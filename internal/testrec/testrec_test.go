package testrec

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/proctree"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// recordFixture records the tests of a txtar fixture module and returns
// its runs by package and name.
func recordFixture(t *testing.T, archive string, opts Options) (map[string]graph.TestRun, Summary) {
	t.Helper()
	dir := txtartest.Write(t, archive)
	opts.Dir, opts.RepoRoot, opts.Repository = dir, dir, "example.com/m"
	runs := map[string]graph.TestRun{}
	opts.Write = func(rs []graph.TestRun, _ []graph.Covered) error {
		for _, r := range rs {
			runs[r.Dir+" "+r.Name] = r
		}
		return nil
	}
	sum, err := Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return runs, sum
}

func key(pkg, qn string, kind graph.Kind) string {
	return graph.StableKey(graph.Identity{Language: "go", Repository: "example.com/m", PackagePath: pkg, QualifiedName: qn, Kind: kind})
}

func keys(r graph.TestRun) map[string]bool {
	m := map[string]bool{}
	for _, c := range r.Covered {
		m[c.Key] = true
	}
	return m
}

// TestRecordFaults records a module whose tests misbehave: each plain
// test with exactly the declarations it ran and its status; a test that
// hangs with a child, and one flooding stdout forever, stopped at the
// deadline with their process trees and recorded as timed out; a
// package that does not build recorded as such with the compiler's
// message; a spoiled coverage profile recorded without coverage and a
// diagnostic.
func TestRecordFaults(t *testing.T) {
	pids := t.TempDir()
	t.Setenv("HANG_PIDS", pids)
	start := time.Now()
	runs, sum := recordFixture(t, "testdata/faults.txtar", Options{TestTimeout: 4 * time.Second})
	t.Logf("recorded in %s: %+v", time.Since(start).Round(time.Millisecond), sum)

	status := map[string]string{}
	for k, r := range runs {
		status[k] = r.Status
	}
	want := map[string]string{
		"b TestSq": graph.TestPassed, "b TestTwice": graph.TestPassed, "b TestFails": graph.TestFailed, "b TestSkipped": graph.TestSkipped,
		"b ExampleSq": graph.TestPassed, "hang TestHang": graph.TestTimedOut, "hang TestQuick": graph.TestPassed,
		"flood TestFlood": graph.TestTimedOut, "broken ": graph.TestNotBuilt, "corrupt TestF": graph.TestNoCover,
	}
	for k, w := range want {
		if status[k] != w {
			t.Errorf("%s: status %q, want %q", k, status[k], w)
		}
	}
	if len(runs) != len(want) {
		t.Errorf("runs %v, want %v", status, want)
	}

	add, mul, sq, twice, unused := key("example.com/m/a", "Add", graph.KindFunc), key("example.com/m/a", "Mul", graph.KindFunc),
		key("example.com/m/b", "Sq", graph.KindFunc), key("example.com/m/b", "Twice", graph.KindFunc), key("example.com/m/a", "Unused", graph.KindFunc)
	if k := keys(runs["b TestSq"]); !k[sq] || !k[mul] || !k[add] || k[twice] || k[unused] || len(k) != 3 {
		t.Errorf("TestSq covered %v, want Sq, Mul and Add alone", runs["b TestSq"].Covered)
	}
	if k := keys(runs["b TestTwice"]); !k[twice] || !k[add] || k[mul] || len(k) != 2 {
		t.Errorf("TestTwice covered %v, want Twice and Add alone", runs["b TestTwice"].Covered)
	}
	if r := runs["b ExampleSq"]; r.Package != "example.com/m/b_test" || !keys(r)[sq] {
		t.Errorf("ExampleSq = %+v, want package example.com/m/b_test covering Sq", r)
	}
	if k := keys(runs["b TestFails"]); !k[twice] {
		t.Errorf("a failing test keeps what it ran: %v", runs["b TestFails"].Covered)
	}
	if r := runs["broken "]; !strings.Contains(r.Message, "cannot use") {
		t.Errorf("not built with message %q, want the compiler's", r.Message)
	}
	if r := runs["corrupt TestF"]; len(r.Covered) != 0 || !strings.Contains(r.Message, "corrupt") {
		t.Errorf("corrupt profile: %+v, want no coverage and why", r)
	}
	if r := runs["hang TestHang"]; len(r.Covered) != 0 {
		t.Errorf("a timed-out test covers nothing known: %+v", r.Covered)
	}
	diags := strings.Join(sum.Diagnostics, "\n")
	for _, w := range []string{"corrupt TestF: coverage not recorded", "broken: not built: # example.com/m/broken", "TestHang: timed out", "TestFlood: timed out"} {
		if !strings.Contains(diags, w) {
			t.Errorf("diagnostics lack %q:\n%s", w, diags)
		}
	}
	b, err := os.ReadFile(filepath.Join(pids, "child"))
	if err != nil {
		t.Fatalf("the hanging test's child pid: %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for proctree.Running(pid) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if proctree.Running(pid) {
		t.Errorf("the hanging test's child %d outlived it", pid)
	}
}

// TestRecordResumes records a package twice: the second time every test
// is recorded already from the same binary, and none runs again.
func TestRecordResumes(t *testing.T) {
	dir := txtartest.Write(t, "testdata/faults.txtar")
	done := map[string]string{}
	opts := Options{Dir: dir, RepoRoot: dir, Repository: "example.com/m", Packages: []string{"./b"},
		Write: func(rs []graph.TestRun, _ []graph.Covered) error {
			for _, r := range rs {
				done[r.Package+" "+r.Name] = r.Binary
			}
			return nil
		},
		Recorded: func(pkg, name, binary string) bool { return done[pkg+" "+name] == binary && binary != "" },
	}
	first, err := Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Tests != 5 || first.Skipped != 0 {
		t.Fatalf("first recording: %+v, want 5 tests run", first)
	}
	second, err := Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if second.Tests != 0 || second.Skipped != 5 {
		t.Fatalf("second recording: %+v, want the 5 skipped as recorded", second)
	}
}

func TestParseProfile(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		blocks   int
		bad      string
	}{
		{"ok", "mode: set\nm/a/a.go:3.24,3.40 1 1\nm/a/a.go:5.24,7.25 2 0\n", 2, ""},
		{"empty", "", 0, "empty"},
		{"no mode", "m/a/a.go:3.24,3.40 1 1\n", 0, "not the mode"},
		{"garbage", "mode: set\n\x00\x01binary\n", 0, "not a coverage block"},
		{"truncated", "mode: set\nm/a/a.go:3.24,3.4", 0, "not a coverage block"},
		{"backwards", "mode: set\nm/a/a.go:9.1,3.4 1 1\n", 0, "not a coverage block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProfile([]byte(tc.in))
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("err = %v, want %q", err, tc.bad)
				}
				return
			}
			if err != nil || len(got) != tc.blocks {
				t.Fatalf("= %v, %v; want %d blocks", got, err, tc.blocks)
			}
			if len(got) == 2 && (!got[0].ran || got[1].ran) {
				t.Errorf("= %v; want the first block run, the second not", got)
			}
		})
	}
}

// TestRecordDeadline stops a recording at its deadline: the test still
// running then is killed and not recorded (it did not time out by
// itself, and the next recording runs it), and the summary says why the
// recording stopped.
func TestRecordDeadline(t *testing.T) {
	start := time.Now()
	runs, sum := recordFixture(t, "testdata/faults.txtar", Options{Packages: []string{"./hang"}, Timeout: 5 * time.Second, TestTimeout: time.Minute})
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the recording took %s past its deadline of 5s", took)
	}
	if r, ok := runs["hang TestHang"]; ok {
		t.Errorf("TestHang recorded as %q; the recording's deadline is not the test's", r.Status)
	}
	if !strings.Contains(sum.Stopped, "deadline") {
		t.Errorf("Stopped = %q, want the deadline", sum.Stopped)
	}
}

// TestRecordBinaryName runs each test under the name go test gives its
// binary, since a test may behave by it, and keeps the coverage of two
// packages of one name apart.
func TestRecordBinaryName(t *testing.T) {
	runs, _ := recordFixture(t, "testdata/argv0.txtar", Options{})
	for _, c := range []struct{ dir, name, pkg, covered string }{
		{"a/name", "TestArgv0", "example.com/m/a/name", "Name"},
		{"b/name", "TestArgv0Other", "example.com/m/b/name", "Other"},
		{"c/v2", "TestArgv0Major", "example.com/m/c/v2", "V"},
	} {
		r, ok := runs[c.dir+" "+c.name]
		if !ok {
			t.Errorf("%s %s: not recorded", c.dir, c.name)
			continue
		}
		if r.Status != graph.TestPassed {
			t.Errorf("%s %s: %s: %s", c.dir, c.name, r.Status, r.Message)
		}
		if !keys(r)[key(c.pkg, c.covered, graph.KindFunc)] {
			t.Errorf("%s %s: covered %v, want %s", c.dir, c.name, keys(r), c.covered)
		}
	}
}

func TestBinaryName(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/spf13/cobra":         "cobra.test",
		"github.com/urfave/cli/v2":       "cli.test",
		"example.com/m/v10":              "m.test",
		"example.com/m/v1":               "v1.test",
		"example.com/m/v0":               "v0.test",
		"example.com/m/vx":               "vx.test",
		"v2":                             "v2.test",
		"golang.org/x/tools/go/packages": "packages.test",
	} {
		if got := BinaryName(in); got != want {
			t.Errorf("BinaryName(%q) = %q, want %q", in, got, want)
		}
	}
}
