package callgraph

import (
	"bytes"
	"context"
	"go/ast"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"weak"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestPaced drives a Paced build the way the indexer does: packages are
// released in import path order as the build is told it may reach them.
// The edges must be those of an unpaced build, and WaitBuilt must wait
// until the build may reach every package.
func TestPaced(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, filepath.Join("testdata", "calls.txtar"))
	units := loadUnits(t, dir)
	for _, mode := range []int{0, -1} {
		opts := Options{InRepo: under(dir), MaxVTACalls: mode}
		want, err := Build(context.Background(), units[0], opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Paced = true
		pending := Start(context.Background(), units[0], opts)
		byPath := map[string][]*packages.Package{}
		for _, p := range units[0] {
			byPath[pathOf(p)] = append(byPath[pathOf(p)], p)
		}
		paths := slices.Sorted(func(yield func(string) bool) {
			for p := range byPath {
				if !yield(p) {
					return
				}
			}
		})
		var saved []packages.Package
		for _, p := range units[0] {
			saved = append(saved, *p)
		}
		pending.WaitPrepared() // the indexer releases nothing before
		select {
		case <-pending.built:
			t.Fatalf("MaxVTACalls %d: WaitBuilt returned before the build could reach any package", mode)
		default:
		}
		for _, path := range paths {
			pending.Reached(path)
			for _, p := range byPath[path] {
				p.Syntax, p.TypesInfo, p.Types = nil, nil, nil
			}
		}
		pending.WaitBuilt()
		got, err := pending.Wait()
		for i, p := range units[0] {
			*p = saved[i]
		}
		if err != nil {
			t.Fatal(err)
		}
		var w, g bytes.Buffer
		render(&w, dir, want)
		render(&g, dir, got)
		if w.String() != g.String() {
			t.Errorf("MaxVTACalls %d: paced edges differ:\n%s", mode, lineDiff(w.String(), g.String()))
		}
	}
}

// TestReleaseSyntax checks that the pinned go/ssa still has the field
// releaseSyntax clears, and that a built package keeps the syntax of its
// generic functions only.
func TestReleaseSyntax(t *testing.T) {
	if syntaxOffset == ^uintptr(0) {
		t.Fatal("ssa.Function has no syntax field of type ast.Node: go/ssa changed; update releaseSyntax")
	}
	hermetic(t)
	dir := txtartest.Write(t, filepath.Join("testdata", "calls.txtar"))
	units := loadUnits(t, dir)
	u := prepare(units[0], Options{InRepo: under(dir), MaxVTACalls: -1})
	var built []*ssa.Package
	for _, p := range u.variants {
		if u.chosen[p] {
			built = append(built, p)
		}
	}
	if err := u.buildSSA(context.Background(), built); err != nil {
		t.Fatal(err)
	}
	var generic, plain int
	for _, p := range built {
		for _, m := range p.Members {
			fn, ok := m.(*ssa.Function)
			if !ok || fn.Synthetic != "" {
				continue
			}
			switch {
			case fn.TypeParams().Len() > 0:
				generic++
				if fn.Syntax() == nil {
					t.Errorf("%s: generic function lost its syntax; its instances need it", fn)
				}
			default:
				plain++
				if fn.Syntax() != nil {
					t.Errorf("%s: syntax kept after the build", fn)
				}
			}
		}
	}
	if generic == 0 || plain == 0 {
		t.Fatalf("fixture has %d generic and %d plain functions; want some of each", generic, plain)
	}
}

// TestSyntaxSwitch builds the fixtures with the syntax release on and off
// (SEXTANT_SSA_SYNTAX=keep): the edges, and the functions Visit sees with
// the declarations they are attributed to, must be the same; the release
// must have dropped syntax when on and kept it when off.
func TestSyntaxSwitch(t *testing.T) {
	hermetic(t)
	if syntaxOffset == ^uintptr(0) {
		t.Skip("no syntax field to release (TestReleaseSyntax fails)")
	}
	defer func(was bool) { releasingSyntax = was }(releasingSyntax)
	for _, archive := range []string{"calls.txtar", "wrappers.txtar"} {
		for _, maxVTA := range []int{0, -1} {
			var out [2]string
			for i, release := range []bool{true, false} {
				releasingSyntax = release
				dir := txtartest.Write(t, filepath.Join("testdata", archive))
				var b bytes.Buffer
				var visited []string
				released, kept := 0, 0
				opts := Options{InRepo: under(dir), MaxVTACalls: maxVTA, Visit: func(fn *ssa.Function, caller Func) {
					visited = append(visited, fn.String()+" in "+trimModule(caller.Name))
					if fn.Synthetic == "" && !keepsSyntax(fn) {
						if fn.Syntax() == nil {
							released++
						} else {
							kept++
						}
					}
				}}
				for _, pkgs := range loadUnits(t, dir) {
					res, err := Build(context.Background(), pkgs, opts)
					if err != nil {
						t.Fatal(err)
					}
					render(&b, dir, res)
				}
				if release && (released == 0 || kept != 0) || !release && (kept == 0 || released != 0) {
					t.Fatalf("%s, MaxVTACalls %d, release %v: %d functions visited without their syntax, %d with it", archive, maxVTA, release, released, kept)
				}
				slices.Sort(visited)
				b.WriteString("== visited\n" + strings.ReplaceAll(strings.Join(visited, "\n"), dir, "DIR") + "\n")
				out[i] = b.String()
			}
			if out[0] != out[1] {
				t.Errorf("%s, MaxVTACalls %d: the syntax release changes the answer:\n%s", archive, maxVTA, lineDiff(out[1], out[0]))
			}
		}
	}
}

// go/ssa keeps the type information of a package that declares a generic
// function for as long as the program lives, and with it every syntax
// tree of the package (the keys of its maps). Once the bodies are built,
// the build keeps only what the generic declarations need: while the
// edges are read, the syntax of the package's other functions is gone.
func TestGenericPackageInfoReleased(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"p/p.go": `package p

import "strings"

func Map[T any](xs []T, f func(T) T) []T {
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Plain(s string) int { return strings.Count(s, "a") }

func Use() []string { return Map([]string{"x"}, strings.ToUpper) }
`,
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs := loadUnits(t, dir)[0]
	// The call in Plain's body, which nothing needs once Plain is built.
	var plainCall weak.Pointer[ast.CallExpr]
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Count" {
						plainCall = weak.Make(c)
					}
				}
				return true
			})
		}
	}
	if plainCall.Value() == nil {
		t.Fatal("no call of strings.Count in the fixture")
	}
	var checked, alive bool
	opts := Options{InRepo: under(dir), Emit: func([]Edge) {
		if !checked {
			checked = true
			runtime.GC()
			alive = plainCall.Value() != nil
		}
	}}
	pending := Start(context.Background(), pkgs, opts)
	for _, p := range pkgs {
		p.Syntax, p.TypesInfo = nil, nil // as the indexer releases them
	}
	res, err := pending.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Algorithm != VTA {
		t.Fatalf("algorithm %v, want VTA (which builds every body)", res.Algorithm)
	}
	if !checked {
		t.Fatal("no edges were emitted")
	}
	if alive {
		t.Error("the syntax of a non-generic function was still held while the edges were read")
	}
}

// The type information of a package with generic functions is pruned as
// soon as the package and every package that imports it are built, not
// when the whole build is: the rest of the build no longer holds its
// syntax.
func TestGenericPackageInfoReleasedDuringBuild(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": `package a

import "strings"

func Map[T any](xs []T, f func(T) T) []T {
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Plain(s string) int { return strings.Count(s, "a") }

func Use() []string { return Map([]string{"x"}, strings.ToUpper) }
`,
		"z/z.go": "package z\n\nfunc Z() int { return len(\"z\") }\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs := loadUnits(t, dir)[0]
	var plainCall weak.Pointer[ast.CallExpr]
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Count" {
						plainCall = weak.Make(c)
					}
				}
				return true
			})
		}
	}
	if plainCall.Value() == nil {
		t.Fatal("no call of strings.Count in the fixture")
	}
	pending := Start(context.Background(), pkgs, Options{InRepo: under(dir), Paced: true})
	pending.WaitPrepared()
	for _, p := range pkgs {
		p.Syntax, p.TypesInfo = nil, nil // as the indexer releases them
	}
	// The build may reach a, not z: a is built, nothing that imports it
	// is left, and z waits.
	pending.Reached("example.com/m/a")
	released := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		runtime.GC()
		if plainCall.Value() == nil {
			released = true
			break
		}
	}
	select {
	case <-pending.built:
		t.Fatal("the build finished before the indexer reached z")
	default:
	}
	if _, err := pending.Wait(); err != nil {
		t.Fatal(err)
	}
	if !released {
		t.Error("a's syntax was still held while z waited to be built")
	}
}
