package load

import (
	"context"
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

// sourceFixture is a module with test variants, generics, embedding, a
// type error, a dependency module reached through a replace directive
// (so its package is type-checked from source with IgnoreFuncBodies),
// and standard-library imports.
func sourceFixture(t *testing.T) string {
	t.Helper()
	// The dependency lives in the root (replace directives that leave it
	// are not followed), in a directory Discover skips.
	return writeTree(t, map[string]string{
		"_dep/go.mod": "module example.com/dep\n\ngo 1.22\n",
		"_dep/dep.go": `package dep

import "io"

// Set is generic.
type Set[T comparable] map[T]struct{}

func (s Set[T]) Add(v T) { s[v] = struct{}{} }

type ReadNamer interface {
	io.Reader
	Name() string
}

const Max = 1 << 10

// Hidden's body would not compile; a dependency's body is never checked.
func Hidden() int { return undefinedName }
`,
		"go.mod": "module example.com/m\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./_dep\n",
		"m.go": `package m

import (
	"fmt"
	"net/http"
	"strings"

	"example.com/dep"
)

type Named struct{ dep.ReadNamer }

func Use(s dep.Set[string], r dep.ReadNamer) string {
	s.Add(r.Name())
	var h http.Handler = http.NotFoundHandler()
	_ = h
	return fmt.Sprint(strings.Repeat("x", dep.Max))
}

func Broken() int { return "not an int" }
`,
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestUse(t *testing.T) { _ = Use }\n",
		"x_test.go": "package m_test\n\nimport \"example.com/m\"\n\nvar _ = m.Use\n",
	})
}

// describe renders what the indexer reads of the initial packages: their
// errors, whether they are ill-typed, every definition and use with its
// object, and the exported API of every package they import.
func describe(t *testing.T, pkgs []*packages.Package) string {
	t.Helper()
	var b strings.Builder
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].ID < pkgs[j].ID })
	for _, p := range pkgs {
		fmt.Fprintf(&b, "== %s ill=%v files=%d syntax=%d\n", p.ID, p.IllTyped, len(p.CompiledGoFiles), len(p.Syntax))
		for _, e := range p.Errors {
			fmt.Fprintf(&b, "error %s: %s\n", filepath.Base(e.Pos), e.Msg)
		}
		if p.TypesInfo == nil || p.Types == nil {
			if !strings.HasSuffix(p.ID, ".test") {
				t.Errorf("%s has no types", p.ID)
			}
			continue
		}
		var lines []string
		for id, obj := range p.TypesInfo.Defs {
			if obj != nil {
				lines = append(lines, "def "+position(p, id)+" "+types.ObjectString(obj, nil))
			}
		}
		for id, obj := range p.TypesInfo.Uses {
			lines = append(lines, "use "+position(p, id)+" "+types.ObjectString(obj, nil))
		}
		for e, tv := range p.TypesInfo.Types {
			lines = append(lines, fmt.Sprintf("type %s %s", position(p, e), tv.Type))
		}
		slices.Sort(lines)
		b.WriteString(strings.Join(lines, "\n"))
		b.WriteString("\n")
		var imports []string
		for path := range p.Imports {
			imports = append(imports, path)
		}
		slices.Sort(imports)
		for _, path := range imports {
			ip := p.Imports[path].Types
			fmt.Fprintf(&b, "import %s complete=%v\n", path, ip.Complete())
			for _, name := range ip.Scope().Names() {
				if obj := ip.Scope().Lookup(name); obj.Exported() {
					fmt.Fprintf(&b, "  %s\n", types.ObjectString(obj, nil))
				}
			}
		}
	}
	return b.String()
}

func position(p *packages.Package, n ast.Node) string {
	pos := p.Fset.Position(n.Pos())
	return fmt.Sprintf("%s:%d:%d", filepath.Base(pos.Filename), pos.Line, pos.Column)
}

func loadWith(t *testing.T, loader, dir string) []*packages.Package {
	t.Helper()
	t.Setenv(LoaderEnv, loader)
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := Load(context.Background(), plan.Units[0])
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// The initial packages type-checked with their dependencies from source
// are what the indexer got from export data: the same errors, the same
// objects at the same places, the same imported APIs. The one difference
// by design: a dependency's function bodies are not checked, so Hidden's
// broken body marks nothing ill-typed.
func TestSourceMatchesExportData(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := sourceFixture(t)
	fromExport := describe(t, loadWith(t, "export", dir))
	fromSource := describe(t, loadWith(t, "source", dir))
	// Export data fails for the dependency whose body does not compile;
	// go/packages then checks it from source and its errors make every
	// importer ill-typed. That is the difference by design.
	fromExport = strings.ReplaceAll(fromExport, "ill=true", "ill=?")
	fromSource = strings.ReplaceAll(fromSource, "ill=true", "ill=?")
	fromSource = strings.ReplaceAll(fromSource, "ill=false", "ill=?")
	fromExport = strings.ReplaceAll(fromExport, "ill=false", "ill=?")
	if fromExport != fromSource {
		t.Errorf("from source differs from export data:\n%s", lineDiff(fromExport, fromSource))
	}
	if !strings.Contains(fromSource, `error m.go:20:28: cannot use "not an int"`) {
		t.Errorf("the initial package's type error is missing:\n%s", fromSource)
	}
	if !strings.Contains(fromSource, "func (example.com/dep.Set[T comparable]) Add(v T)") &&
		!strings.Contains(fromSource, "type example.com/dep.Set[T comparable]") {
		t.Errorf("the dependency's generic API is missing:\n%s", fromSource)
	}
}

// A dependency is checked without its bodies: its broken body is no
// error of the load, and the initial package using it is ill-typed only
// through its own error.
func TestSourceSkipsDependencyBodies(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := sourceFixture(t)
	roots := loadWith(t, "source", dir)
	initial := map[*packages.Package]bool{}
	for _, p := range roots {
		initial[p] = true
	}
	deps := 0
	packages.Visit(roots, nil, func(q *packages.Package) {
		if initial[q] {
			return
		}
		deps++
		if q.PkgPath == "example.com/dep" && len(q.Errors) > 0 {
			t.Errorf("dependency %s has errors: %v", q.ID, q.Errors)
		}
		if q.Syntax != nil || q.TypesInfo != nil {
			t.Errorf("dependency %s kept its syntax or type information", q.ID)
		}
		if q.Types == nil || !q.Types.Complete() {
			t.Errorf("dependency %s has no complete types", q.ID)
		}
	})
	if deps < 10 {
		t.Errorf("only %d dependencies were loaded", deps)
	}
}

// A dependency's syntax serves its own check alone (its importers read
// its types): it is released as soon as the dependency is checked, so
// that a load holds the syntax of the packages being checked and of the
// initial packages, not of every dependency of a large workspace (on a
// vendored monorepo, the declarations of thousands of files) until the
// load ends.
func TestSourceReleasesDependencySyntaxOnceChecked(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv(TypeCacheEnv, "off") // every dependency checked from source
	dir := sourceFixture(t)
	var mu sync.Mutex
	var kept []string // dependencies with syntax when an importer was checked
	checkedHook = func(p *packages.Package) {
		mu.Lock()
		defer mu.Unlock()
		for _, ip := range p.Imports {
			if ip.Syntax != nil && ip.TypesInfo == nil {
				kept = append(kept, ip.ID+" (imported by "+p.ID+")")
			}
		}
	}
	defer func() { checkedHook = func(*packages.Package) {} }()
	roots := loadWith(t, "source", dir)
	if len(roots) == 0 {
		t.Fatal("nothing loaded")
	}
	if len(kept) > 0 {
		sort.Strings(kept)
		t.Errorf("%d dependencies still had their syntax when an importer was checked, e.g. %s", len(kept), kept[0])
	}
}

// An initial package that uses cgo is checked from its Go files, with
// a C compiler at hand that the load never runs: everything the export
// data knows of its Go side (definitions, uses and types at Go names) is
// there; what is lost is the C side alone, the types of the C.name
// expressions and the imports cgo generates. An error says cgo was not
// run.
func TestSourceCgo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc)")
	}
	t.Setenv("GOPROXY", "off")
	t.Setenv("CGO_ENABLED", "1")
	bin := t.TempDir()
	ran := filepath.Join(bin, "ran")
	cc := filepath.Join(bin, "cc")
	if err := os.WriteFile(cc, []byte("#!/bin/sh\necho \"$@\" >> "+ran+"\nexec gcc \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", cc)
	dir := writeTree(t, map[string]string{
		"go.mod": "module example.com/c\n\ngo 1.22\n",
		"c.go":   "package c\n\n// int add(int a, int b) { return a + b; }\nimport \"C\"\n\nimport \"net\"\n\nvar _ net.IP\n\nfunc Add(a, b int) int { return int(C.add(C.int(a), C.int(b))) }\n",
		"p.go":   "package c\n\nfunc Plain() int { return Add(1, 2) }\n",
	})
	fromSource := describe(t, loadWith(t, "source", dir))
	if out, err := os.ReadFile(ran); err == nil {
		t.Fatalf("the load from source ran the C compiler: %s", out)
	}
	fromExport := describe(t, loadWith(t, "export", dir))
	goSide := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			f := strings.Fields(l)
			if len(f) < 2 || (f[0] != "def" && f[0] != "use" && f[0] != "type") ||
				!strings.HasPrefix(f[1], "c.go:") && !strings.HasPrefix(f[1], "p.go:") {
				continue
			}
			// The C side: cgo's generated names and imports from export
			// data, the fake package C from source.
			if !strings.Contains(l, "._C") && !strings.Contains(l, `("unsafe")`) && !strings.HasSuffix(l, " package C") {
				m[l] = true
			}
		}
		return m
	}
	want, got := goSide(fromExport), goSide(fromSource)
	if len(want) < 10 {
		t.Fatalf("only %d facts of the Go side from export data:\n%s", len(want), fromExport)
	}
	for l := range want {
		if !got[l] {
			t.Errorf("lost from the Go side: %s", l)
		}
	}
	for l := range got {
		if !want[l] {
			t.Errorf("not in export data: %s", l)
		}
	}
	var errs []string
	for _, l := range strings.Split(fromSource, "\n") {
		if strings.HasPrefix(l, "error ") {
			errs = append(errs, l)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], CgoNotRun) {
		t.Errorf("errors %q, want the one that says cgo was not run", errs)
	}
}

func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	in := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	am, bm := in(al), in(bl)
	var out []string
	for _, s := range al {
		if !bm[s] {
			out = append(out, "- "+s)
		}
	}
	for _, s := range bl {
		if !am[s] {
			out = append(out, "+ "+s)
		}
	}
	if len(out) > 60 {
		out = append(out[:60], "...")
	}
	return strings.Join(out, "\n")
}

// ListFiles lists what go list lists, without the go command: the same
// packages and test variants, each with the same Go files and the same
// files build constraints exclude.
func TestListFilesMatchesGoList(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := writeTree(t, map[string]string{
		"go.mod":          "module example.com/l\n\ngo 1.22\n",
		"l.go":            "package l\n\nfunc F() {}\n",
		"l_linux.go":      "package l\n\nfunc OnLinux() {}\n",
		"l_windows.go":    "package l\n\nfunc OnWindows() {}\n",
		"tagged.go":       "//go:build never\n\npackage l\n",
		"l_test.go":       "package l\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n",
		"x_test.go":       "package l_test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"sub/s.go":        "package sub\n",
		"only/ignored.go": "//go:build never\n\npackage only\n",
		"testdata/t.go":   "package t\n",
		"_hidden/h.go":    "package h\n",
		"nested/go.mod":   "module example.com/nested\n\ngo 1.22\n",
		"nested/n.go":     "package nested\n",
	})
	t.Setenv("GOOS", "linux")
	plan, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var u Unit
	for _, x := range plan.Units {
		if x.Dir == dir {
			u = x
		}
	}
	render := func(pkgs []*packages.Package) []string {
		var out []string
		for _, p := range pkgs {
			if strings.HasSuffix(p.ID, ".test") {
				continue // the generated test main, which the syntax stage does not need
			}
			rel := func(files []string) []string {
				var r []string
				for _, f := range files {
					r = append(r, strings.TrimPrefix(filepath.ToSlash(f), filepath.ToSlash(dir)+"/"))
				}
				slices.Sort(r)
				return r
			}
			out = append(out, fmt.Sprintf("%s name=%s files=%v ignored=%v", p.ID, p.Name, rel(p.GoFiles), rel(p.IgnoredFiles)))
		}
		slices.Sort(out)
		return out
	}
	cfg := Config(u)
	cfg.Mode = packages.NeedName | packages.NeedFiles | packages.NeedModule
	listed, err := packages.Load(cfg, u.Patterns...)
	if err != nil {
		t.Fatal(err)
	}
	want, got := render(listed), render(ListFiles(u))
	if !slices.Equal(got, want) {
		t.Errorf("ListFiles:\n%s\ngo list:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An index's load lists the package graph without the go command's
// module index, a load after an edit with it (see withoutModuleIndex),
// and both keep what the user set in GODEBUG. A go command first on PATH
// records the GODEBUG each listing ran with and runs the real one.
func TestListingSkipsModuleIndex(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the recording go command is a shell script")
	}
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GODEBUG", "panicnil=1")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv(LoaderEnv, "source")
	plan, err := Discover(sourceFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		load  func(context.Context, Unit) error
		debug string
	}{
		{"LoadWhen", func(ctx context.Context, u Unit) error {
			_, keep, err := LoadWhen(ctx, u, nil)
			keep()
			return err
		}, "panicnil=1,goindex=0"},
		{"Load", func(ctx context.Context, u Unit) error { _, err := Load(ctx, u); return err }, "panicnil=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shim, log := t.TempDir(), filepath.Join(t.TempDir(), "godebug")
			script := fmt.Sprintf("#!/bin/sh\necho \"$1 $GODEBUG\" >> %q\nexec %q \"$@\"\n", log, real)
			if err := os.WriteFile(filepath.Join(shim, "go"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", shim+string(os.PathListSeparator)+os.Getenv("PATH"))
			if err := tc.load(context.Background(), plan.Units[0]); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			lists := 0
			for line := range strings.Lines(string(data)) {
				cmd, debug, _ := strings.Cut(strings.TrimSpace(line), " ")
				if cmd != "list" {
					continue
				}
				lists++
				if debug != tc.debug {
					t.Errorf("go list ran with GODEBUG=%q, want %q", debug, tc.debug)
				}
			}
			if lists == 0 {
				t.Fatalf("no go list ran through %s:\n%s", shim, data)
			}
		})
	}
}
