package load

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/par"
)

// Dependents follows imports backwards through packages of its own and
// other modules of a workspace, adds the packages whose tests alone
// import one, stops at a package that only tests import, takes an
// external test package's path for its package's, and leaves out
// directories the go command skips.
func TestDependents(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.work":             "go 1.22\n\nuse (\n\t./a\n\t./b\n)\n",
		"a/go.mod":            "module example.com/a\n\ngo 1.22\n",
		"a/lib/lib.go":        "package lib\n",
		"a/lib/lib_test.go":   "package lib_test\n\nimport _ \"example.com/a/lib\"\n",
		"a/app/app.go":        "package app\n\nimport _ \"example.com/a/lib\"\n",
		"a/top/top.go":        "package top\n\nimport _ \"example.com/a/app\"\n",
		"a/tested/t.go":       "package tested\n",
		"a/tested/t_test.go":  "package tested\n\nimport _ \"example.com/a/app\"\n",
		"a/aftertest/x.go":    "package aftertest\n\nimport _ \"example.com/a/tested\"\n",
		"a/alone/alone.go":    "package alone\n",
		"a/testdata/td/td.go": "package td\n\nimport _ \"example.com/a/lib\"\n",
		"b/go.mod":            "module example.com/b\n\ngo 1.22\n",
		"b/use/use.go":        "package use\n\nimport _ \"example.com/a/top\"\n",
		"b/other/other.go":    "package other\n",
	})
	plan, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Units) != 1 {
		t.Fatalf("%d units, want the workspace's one", len(plan.Units))
	}
	want := []string{"example.com/a/app", "example.com/a/lib", "example.com/a/tested", "example.com/a/top", "example.com/b/use"}
	for _, seed := range []string{"example.com/a/lib", "example.com/a/lib_test"} {
		got := Dependents(plan.Units, seed)
		var paths []string
		for _, d := range got[0] {
			paths = append(paths, d.Path)
		}
		if len(got) != 1 || !reflect.DeepEqual(paths, want) {
			t.Errorf("Dependents(%s) = %v, want %v", seed, paths, want)
		}
		if len(got[0]) > 1 && len(got[0][1].Files) != 2 {
			t.Errorf("files of %s: %v, want lib.go and lib_test.go", got[0][1].Path, got[0][1].Files)
		}
	}
	if got := Dependents(plan.Units, "example.com/nowhere"); len(got[0]) != 0 {
		t.Errorf("Dependents of an unknown path = %v, want none", got)
	}
}

// Spells finds a name as a word, not inside a longer identifier.
func TestSpells(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"x := lib.Load(cfg)", true},
		{"Load", true},
		{"x.Load\n", true},
		{"Loader{}", false},
		{"doLoad()", false},
		{"_Load", false},
		{"éLoad", false},
		{"Load2", false},
		{"// Load them", true},
		{"Loaded, Load", true},
	} {
		if got := hasWord([]byte(c.src), "Load"); got != c.want {
			t.Errorf("hasWord(%q, Load) = %v, want %v", c.src, got, c.want)
		}
	}
}

// A load whose context carries a held gate checks nothing until the gate
// opens: a server's whole index waits while a question's check runs.
func TestLoadWaitsAtGate(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	dir := writeTree(t, map[string]string{
		"go.mod": "module example.com/g\n\ngo 1.22\n",
		"g.go":   "package g\n\nfunc G() int { return 1 }\n",
	})
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var gate par.Gate
	release := gate.Hold()
	done := make(chan error, 1)
	go func() {
		_, err := Load(par.WithGate(context.Background(), &gate), plan.Units[0])
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the load ended (%v) while the gate was held", err)
	case <-time.After(3 * time.Second): // the go command lists meanwhile
	}
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the load did not end once the gate opened")
	}
}
