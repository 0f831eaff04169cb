package load

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// writeTree creates files (path → content, forward slashes) under a fresh
// directory and returns its symlink-free path.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDiscoverNestedModules(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":                   "module example.com/root\n\ngo 1.22\n",
		"go.sum":                   "",
		"root.go":                  "package root\n",
		"sub/go.mod":               "// A nested module.\nmodule example.com/root/sub // the sub module\n\ngo 1.23.1\n",
		"sub/deeper/x/go.mod":      "module example.com/x\n",
		"vendor/v/go.mod":          "module example.com/vendored\n",
		"testdata/t/go.mod":        "module example.com/testdata\n",
		"node_modules/n/go.mod":    "module example.com/node\n",
		".hidden/go.mod":           "module example.com/hidden\n",
		"_skipped/go.mod":          "module example.com/skipped\n",
		"sub/_examples/e/go.mod":   "module example.com/examples\n",
		"nested/go.work":           "go 1.22\n", // only a go.work at the root counts
		"nested/inner/go.mod":      "module example.com/inner\n\ngo 1.21\n",
		"nested/inner/go.work.sum": "",
	})
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []graph.Module{
		{Path: "example.com/root", Dir: ".", GoVersion: "1.22"},
		{Path: "example.com/inner", Dir: "nested/inner", GoVersion: "1.21"},
		{Path: "example.com/root/sub", Dir: "sub", GoVersion: "1.23.1"},
		{Path: "example.com/x", Dir: "sub/deeper/x"},
	}
	if !reflect.DeepEqual(plan.Modules, want) {
		t.Errorf("modules:\n got %+v\nwant %+v", plan.Modules, want)
	}
	if plan.Root != dir {
		t.Errorf("root %q, want %q", plan.Root, dir)
	}
	if len(plan.Units) != len(want) {
		t.Fatalf("got %d units, want one per module: %+v", len(plan.Units), plan.Units)
	}
	for i, u := range plan.Units {
		m := want[i]
		if u.Workspace || u.Dir != filepath.Join(dir, filepath.FromSlash(m.Dir)) ||
			!reflect.DeepEqual(u.Patterns, []string{"./..."}) || !reflect.DeepEqual(u.Modules, []graph.Module{m}) {
			t.Errorf("unit %d: %+v", i, u)
		}
		if got := u.Manifest(dir); got != strings.TrimPrefix(m.Dir+"/go.mod", "./") {
			t.Errorf("unit %d manifest %q", i, got)
		}
	}
	wantManifests := []string{"go.mod", "go.sum", "nested/inner/go.mod", "sub/deeper/x/go.mod", "sub/go.mod"}
	if !reflect.DeepEqual(plan.Manifests, wantManifests) {
		t.Errorf("manifests %q, want %q", plan.Manifests, wantManifests)
	}
	if len(plan.Diagnostics) != 0 {
		t.Errorf("diagnostics: %+v", plan.Diagnostics)
	}
}

func TestDiscoverWorkspace(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.work":       "go 1.22\n\nuse (\n\t./a\n\t./b\n\t../outside\n)\n",
		"go.work.sum":   "",
		"a/go.mod":      "module example.com/a\n\ngo 1.22\n",
		"a/a.go":        "package a\n\nimport \"example.com/b\"\n\nvar X = b.Y\n",
		"b/go.mod":      "module example.com/b\n\ngo 1.22\n",
		"b/b.go":        "package b\n\nvar Y = 1\n",
		"unused/go.mod": "module example.com/unused\n\ngo 1.22\n",
		"unused/u.go":   "package unused\n",
	})
	// A module the workspace uses from outside the root is a dependency,
	// not something to index.
	outside := filepath.Join(filepath.Dir(dir), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "go.mod"), []byte("module example.com/outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Units) != 2 {
		t.Fatalf("units: %+v", plan.Units)
	}
	ws, rest := plan.Units[0], plan.Units[1]
	if !ws.Workspace || ws.Dir != dir || !reflect.DeepEqual(ws.Patterns, []string{"./a/...", "./b/..."}) || len(ws.Modules) != 2 {
		t.Errorf("workspace unit: %+v", ws)
	}
	if ws.Manifest(dir) != "go.work" {
		t.Errorf("workspace manifest %q", ws.Manifest(dir))
	}
	if rest.Workspace || rest.Dir != filepath.Join(dir, "unused") || rest.Modules[0].Path != "example.com/unused" {
		t.Errorf("unit for the module the workspace does not use: %+v", rest)
	}
	if !reflect.DeepEqual(plan.Manifests, []string{"a/go.mod", "b/go.mod", "go.work", "go.work.sum", "unused/go.mod"}) {
		t.Errorf("manifests %q", plan.Manifests)
	}

	// The workspace resolves a's import of b without a require in a/go.mod.
	t.Setenv("GOPROXY", "off")
	pkgs, err := Load(t.Context(), ws)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range pkgs {
		paths = append(paths, p.ID)
		if len(p.Errors) > 0 {
			t.Errorf("%s: %v", p.ID, p.Errors)
		}
	}
	slices.Sort(paths)
	if !reflect.DeepEqual(paths, []string{"example.com/a", "example.com/b"}) {
		t.Errorf("workspace loaded %q", paths)
	}
}

func TestDiscoverBrokenWorkFile(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.work":  "go 1.22\nuse (\n",
		"a/go.mod": "module example.com/a\n",
	})
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Units) != 1 || plan.Units[0].Workspace {
		t.Errorf("units: %+v", plan.Units)
	}
	if len(plan.Diagnostics) != 1 || plan.Diagnostics[0].Path != "go.work" || plan.Diagnostics[0].Line == 0 {
		t.Errorf("diagnostics: %+v", plan.Diagnostics)
	}
}

func TestDiscoverNoModule(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"main.go":         "package main\n",
		"vendor/go.mod":   "module example.com/vendored\n",
		".git/x/go.mod":   "module example.com/git\n",
		"testdata/go.mod": "module example.com/testdata\n",
		"docs/readme.txt": "",
	})
	_, err := Discover(dir)
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Code != graph.CodeIndexingFailed {
		t.Fatalf("got %v, want an %s error", err, graph.CodeIndexingFailed)
	}
	for _, want := range []string{"no Go module was found under " + dir, "go mod init"} {
		if !strings.Contains(ge.Message, want) {
			t.Errorf("message %q does not say %q", ge.Message, want)
		}
	}

	// Inside a module, the error names the module's root.
	sub := filepath.Join(dir, "inner", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inner", "go.mod"), []byte("module example.com/inner\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Discover(sub)
	if !errors.As(err, &ge) || !strings.Contains(ge.Message, "inside the module rooted at "+filepath.Join(dir, "inner")) {
		t.Errorf("Discover inside a module: %v", err)
	}

	if _, err := Discover(filepath.Join(dir, "missing")); err == nil {
		t.Error("Discover of a missing directory succeeded")
	}
	if _, err := Discover(filepath.Join(dir, "main.go")); graph.CodeOf(err) != graph.CodeIndexingFailed {
		t.Errorf("Discover of a file: %v", err)
	}
}

func TestDiscoverBrokenGoMod(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":          "module example.com/ok\n\ngo 1.22\n",
		"bad/go.mod":      "module example.com/bad\n\ngo 1.22\nrequire (\n\texample.com/dep v1.0.0\n",
		"nomodule/go.mod": "go 1.22\n",
		"ünï/go.mod":      "module example.com/u\n\ngo 1.22\n\trequire 'x' v1\n",
	})
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Modules) != 1 || plan.Modules[0].Path != "example.com/ok" || len(plan.Units) != 1 {
		t.Errorf("modules %+v units %+v", plan.Modules, plan.Units)
	}
	byPath := map[string]graph.Diagnostic{}
	for _, d := range plan.Diagnostics {
		if d.Kind != "list" || d.Message == "" {
			t.Errorf("diagnostic %+v", d)
		}
		byPath[d.Path] = d
	}
	if d, ok := byPath["bad/go.mod"]; !ok || d.Line < 4 {
		t.Errorf("bad/go.mod: %+v", d)
	}
	if d, ok := byPath["nomodule/go.mod"]; !ok || !strings.Contains(d.Message, "no module directive") {
		t.Errorf("nomodule/go.mod: %+v", d)
	}
	if d, ok := byPath["ünï/go.mod"]; !ok || d.Line != 4 {
		t.Errorf("ünï/go.mod: %+v", d)
	}

	// With no usable module left, discovery fails and says why.
	dir = writeTree(t, map[string]string{"go.mod": "module\n", "x/go.mod": "modul example.com/x\n"})
	_, err = Discover(dir)
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Code != graph.CodeIndexingFailed {
		t.Fatalf("got %v, want an %s error", err, graph.CodeIndexingFailed)
	}
	diags, ok := ge.Data["diagnostics"].([]graph.Diagnostic)
	if !ok || len(diags) != 2 || diags[0].Path != "go.mod" || diags[1].Path != "x/go.mod" {
		t.Errorf("diagnostics in the error: %#v", ge.Data["diagnostics"])
	}
}

func TestDiscoverSymlinkLoop(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":   "module example.com/loop\n",
		"a/a.go":   "package a\n",
		"b/go.mod": "module example.com/loop/b\n",
	})
	// a/up points back at the root and b/self at itself: walking either
	// would never end if symlinks were followed.
	if err := os.Symlink(dir, filepath.Join(dir, "a", "up")); err != nil {
		t.Skipf("cannot create symlinks: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "b"), filepath.Join(dir, "b", "self")); err != nil {
		t.Fatal(err)
	}
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Modules) != 2 || plan.Modules[0].Dir != "." || plan.Modules[1].Dir != "b" {
		t.Errorf("modules: %+v", plan.Modules)
	}
}

func TestDiscoverVendor(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":             "module example.com/v\n\ngo 1.22\n",
		"vendor/modules.txt": "",
	})
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Units) != 1 || !plan.Units[0].Vendor {
		t.Errorf("units: %+v", plan.Units)
	}
}
