package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// machine is a PATH of links to this machine's real programs, a root
// that needs go, git and scip-typescript, and an empty cache directory.
type machine struct {
	root, bin, cache string
	programs         map[string]string // name → real path
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the links of a PATH are Unix's here")
	}
	nodeBin := lsptest.NodeBin(t, "doctor finding the SCIP indexers", "scip-typescript", "scip-python")
	m := &machine{root: t.TempDir(), bin: t.TempDir(), cache: t.TempDir(), programs: map[string]string{}}
	for _, name := range []string{"go", "git", "node"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("SKIPPED LOUDLY: %s is not on PATH: doctor was NOT tested", name)
		}
		m.programs[name] = p
	}
	m.programs["scip-typescript"] = filepath.Join(nodeBin, "scip-typescript")
	m.programs["scip-python"] = filepath.Join(nodeBin, "scip-python")
	for name, file := range map[string]string{
		"go.mod":            "module example.com/app\n\ngo 1.22\n",
		"main.go":           "package main\n\nfunc main() {}\n",
		"web/package.json":  `{"name": "web"}`,
		"web/tsconfig.json": `{"compilerOptions": {}}`,
		"web/index.ts":      "export const x = 1;\n",
	} {
		p := filepath.Join(m.root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(m.programs["git"], "init", "-q", m.root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	// The user cache directory, wherever the platform puts it, is empty.
	t.Setenv("XDG_CACHE_HOME", m.cache)
	t.Setenv("HOME", m.cache)
	t.Setenv("SEXTANT_TYPE_CACHE", "")
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	m.cache = cache
	return m
}

// path puts on PATH links to every program but those left out.
func (m *machine) path(t *testing.T, without ...string) {
	t.Helper()
	dir, err := os.MkdirTemp(m.bin, "path")
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range m.programs {
		if !contains(without, name) {
			if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("PATH", dir)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (m *machine) run(t *testing.T) Report {
	t.Helper()
	getenv := func(string) string { return "" }
	return Run(context.Background(), Options{Roots: []string{m.root}, Version: "sextant test",
		Database: filepath.Join(m.cache, "none.db"), Getenv: getenv})
}

func find(r Report, name string) Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

// TestDoctor: with each piece the root needs taken away in turn (the
// go command, git, the SCIP indexers, a cache directory others may
// write to), the report fails and names it with the command that
// installs or fixes it; with everything there it passes.
func TestDoctor(t *testing.T) {
	m := newMachine(t)
	cases := []struct {
		name    string
		without []string
		setup   func(t *testing.T)
		check   string // the failing check
		status  Status
		fix     string // in its fix
	}{
		{name: "everything"},
		{name: "no go", without: []string{"go"}, check: "go", status: Missing, fix: "https://go.dev/dl/"},
		{name: "no git", without: []string{"git"}, check: "git", status: Missing, fix: "git"},
		{name: "no indexers", without: []string{"scip-typescript", "scip-python"}, check: "scip-typescript", status: Missing, fix: scipindexer.TypeScriptInstall},
		{name: "group-writable cache", setup: func(t *testing.T) {
			dir := filepath.Join(m.cache, "sextant")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o770); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
		}, check: "cache directory", status: Refused, fix: "chmod 700 " + filepath.Join(m.cache, "sextant")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m.path(t, c.without...)
			if c.setup != nil {
				c.setup(t)
			}
			r := m.run(t)
			var text strings.Builder
			r.WriteText(&text)
			if c.check == "" {
				if !r.OK {
					t.Fatalf("everything present, and the report fails:\n%s", text.String())
				}
				for _, name := range []string{"go", "git", "scip-typescript", "scip-python"} {
					if ch := find(r, name); ch.Status != OK || ch.Path == "" {
						t.Errorf("%s: %+v, want ok with its path", name, ch)
					}
				}
				return
			}
			got := find(r, c.check)
			if r.OK || !got.Failing() || got.Status != c.status || !strings.Contains(got.Fix, c.fix) {
				t.Errorf("report ok=%v, %s: %+v; want it failing, %s, with a fix containing %q\n%s", r.OK, c.check, got, c.status, c.fix, text.String())
			}
			if want := strings.ToUpper(string(c.status)) + " "; !strings.Contains(text.String(), want) || !strings.Contains(text.String(), "fix: "+got.Fix) {
				t.Errorf("the text does not show %s %s with its fix:\n%s", c.status, c.check, text.String())
			}
		})
	}
}

// TestDoctorRootNeeds: what a root needs follows from what it holds; a
// root holding none of it needs nothing, and passes without go.
func TestDoctorRootNeeds(t *testing.T) {
	m := newMachine(t)
	m.path(t, "go", "git", "scip-typescript", "scip-python")
	empty := t.TempDir()
	r := Run(context.Background(), Options{Roots: []string{empty}, Database: filepath.Join(m.cache, "none.db"), Getenv: func(string) string { return "" }})
	if !r.OK || len(r.Roots) != 1 || len(r.Roots[0].Needs) != 0 {
		t.Errorf("an empty root: ok=%v roots=%+v, want ok and no needs", r.OK, r.Roots)
	}
	if find(r, "go").Status != Missing {
		t.Errorf("go: %+v, want missing (and not failing)", find(r, "go"))
	}
	r = m.run(t)
	if got := strings.Join(r.Roots[0].Needs, ","); got != "go,git,scip-typescript" {
		t.Errorf("the root with go.mod, .git and a TypeScript project needs %s", got)
	}
}
