package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// xrefOutput is what Extract hands to a Sink.
type xrefOutput struct {
	recs  []PackageRecords
	refs  []graph.Ref
	edges []graph.CallEdge
	impls []graph.Implements
}

func extractAll(t *testing.T, repo, dir string) xrefOutput {
	t.Helper()
	plan, pkgs := loadFixture(t, dir)
	var out xrefOutput
	err := Extract(repo, dir, plan.Modules, pkgs, Sink{
		Package:    func(r PackageRecords) error { out.recs = append(out.recs, r); return nil },
		Refs:       func(b []graph.Ref) error { out.refs = append(out.refs, b...); return nil },
		CallEdges:  func(b []graph.CallEdge) error { out.edges = append(out.edges, b...); return nil },
		Implements: func(b []graph.Implements) error { out.impls = append(out.impls, b...); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestXRefsGolden checks the references and implementations of the
// fixtures in testdata/xref against their golden files.
func TestXRefsGolden(t *testing.T) {
	hermetic(t)
	archives, err := filepath.Glob("testdata/xref/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no fixtures in testdata/xref (%v)", err)
	}
	for _, archive := range archives {
		name := strings.TrimSuffix(filepath.Base(archive), ".txtar")
		t.Run(name, func(t *testing.T) {
			dir := txtartest.Write(t, archive)
			out := extractAll(t, "example.com/"+name, dir)
			checkXRefInvariants(t, out)
			// Call edges are the callgraph package's to get right (it has
			// its own golden files); here only their resolution is checked,
			// by the invariants and by TestXRefsAcrossUnits.
			out.edges = nil
			got := renderXRefs(out)
			golden := strings.TrimSuffix(archive, ".txtar") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/index -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("cross-references differ from %s (run go test ./internal/index -update and review the diff):\n%s",
					golden, txtartest.LineDiff(string(want), got))
			}
		})
	}
}

// checkXRefInvariants asserts what holds for any extraction: every key a
// record names is a symbol, positions are sane, nothing repeats.
func checkXRefInvariants(t *testing.T, out xrefOutput) {
	t.Helper()
	syms := map[string]graph.Symbol{}
	files := map[string]bool{}
	for _, r := range out.recs {
		for _, s := range r.Symbols {
			syms[s.Key] = s
		}
		for _, f := range r.Files {
			files[f.Path] = f.Test
		}
	}
	seen := map[graph.Ref]bool{}
	for _, r := range out.refs {
		if seen[r] {
			t.Errorf("reference repeats: %+v", r)
		}
		seen[r] = true
		if !graph.ValidKey(r.Target) {
			t.Errorf("reference %s:%d:%d: target %q is not a stable key", r.Path, r.Line, r.Col, r.Target)
		} else if _, ok := syms[r.Target]; !ok {
			t.Errorf("reference %s:%d:%d: target %s is no symbol", r.Path, r.Line, r.Col, r.Target)
		}
		if _, ok := syms[r.Enclosing]; r.Enclosing != "" && !ok {
			t.Errorf("reference %s:%d:%d: enclosing %s is no symbol", r.Path, r.Line, r.Col, r.Enclosing)
		}
		test, ok := files[r.Path]
		if !ok || test != r.TestOnly {
			t.Errorf("reference %s:%d:%d: file known %v, test %v vs %v", r.Path, r.Line, r.Col, ok, test, r.TestOnly)
		}
		if r.Line < 1 || r.Col < 1 || r.EndCol <= r.Col || !slices.Contains(graph.RefKinds, r.Kind) {
			t.Errorf("reference %+v: bad position or kind", r)
		}
	}
	edges := map[graph.CallEdge]bool{}
	for _, e := range out.edges {
		if edges[e] {
			t.Errorf("call edge repeats: %+v", e)
		}
		edges[e] = true
		_, callerOK := syms[e.Caller]
		_, calleeOK := syms[e.Callee]
		if !callerOK || e.Callee != "" && !calleeOK || e.Callee != "" && e.CalleeName != "" {
			t.Errorf("call edge %+v: caller or callee is no symbol", e)
		}
		if _, ok := files[e.Path]; !ok || e.Line < 1 || e.Col < 1 {
			t.Errorf("call edge %+v: bad call site", e)
		}
	}
	for _, im := range out.impls {
		a, ok1 := syms[im.Type]
		b, ok2 := syms[im.Interface]
		if !ok1 || !ok2 {
			t.Errorf("implementation %+v: not symbols", im)
			continue
		}
		typePair := (a.Kind == graph.KindType || a.Kind == graph.KindInterface) && b.Kind == graph.KindInterface
		methodPair := (a.Kind == graph.KindMethod || a.Kind == graph.KindInterfaceMethod) && b.Kind == graph.KindInterfaceMethod
		selfPair := a.Key == b.Key && a.Kind == graph.KindInterfaceMethod
		if !typePair && !methodPair || a.Key == b.Key && !selfPair {
			t.Errorf("implementation of %s %s by %s %s", b.Kind, b.QualifiedName, a.Kind, a.QualifiedName)
		}
	}
}

// renderXRefs prints references and implementations readably, keys
// replaced by the package-qualified names of their symbols:
//
//	path:line:col-endcol kind target in enclosing [test]
func renderXRefs(out xrefOutput) string {
	names := map[string]string{}
	for _, r := range out.recs {
		for _, s := range r.Symbols {
			n := strings.TrimPrefix(s.PackagePath, "example.com/")
			if s.Kind != graph.KindPackage {
				n += "." + s.QualifiedName
			}
			if s.TestOnly {
				n += "(test)"
			}
			names[s.Key] = n
		}
	}
	name := func(key string) string {
		if key == "" {
			return "-"
		}
		if n, ok := names[key]; ok {
			return n
		}
		return "?" + key
	}
	var b strings.Builder
	b.WriteString("-- refs\n")
	for _, r := range out.refs {
		target := name(r.Target)
		if r.Implicit {
			target = "implicit " + target
		}
		fmt.Fprintf(&b, "%s:%d:%d-%d %s %s in %s", r.Path, r.Line, r.Col, r.EndCol, r.Kind, target, name(r.Enclosing))
		if r.TestOnly {
			b.WriteString(" test")
		}
		b.WriteByte('\n')
	}
	b.WriteString("-- implements\n")
	for _, im := range out.impls {
		fmt.Fprintf(&b, "%s implements %s", name(im.Type), name(im.Interface))
		if im.Pointer {
			b.WriteString(" pointer")
		}
		b.WriteByte('\n')
	}
	if len(out.edges) > 0 {
		b.WriteString("-- calls\n")
		for _, e := range out.edges {
			callee := name(e.Callee)
			if e.Callee == "" {
				callee = e.CalleeName
			}
			fmt.Fprintf(&b, "%s:%d:%d %s -> %s %s %s", e.Path, e.Line, e.Col, name(e.Caller), callee, e.Coverage, e.Via)
			if e.Go {
				b.WriteString(" go")
			}
			if e.Defer {
				b.WriteString(" defer")
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestXRefsAcrossUnits indexes two modules loaded separately, one seeing
// the other through export data (file and line only): every use in b
// must still find the symbol of a it names, even where several are
// declared on one line. (b's uses of Box[int].V are left out, as gopls
// leaves them out: see goplsGenericFieldParity.)
func TestXRefsAcrossUnits(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, "testdata/units.txtar.in")
	st := &fakeStore{}
	res, err := Index(t.Context(), st, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Modules != 2 || res.Refs != len(st.writers[0].refs) || res.CallEdges != len(st.writers[0].edges) ||
		res.Implementations != len(st.writers[0].impls) {
		t.Fatalf("result %+v", res)
	}
	w := st.writers[0]
	var out xrefOutput
	out.recs, out.refs, out.impls, out.edges = w.packages, w.refs, w.impls, w.edges
	checkXRefInvariants(t, out)
	got := renderXRefs(out)
	want := `-- refs
a/a.go:9:7-8 type a.P in a.P.M
a/a.go:9:24-25 type a.Q in a.Q.M
a/a.go:13:10-13 type a.Box in a.Box.Get
a/a.go:13:37-38 read a.Box.V in a.Box.Get
b/b.go:3:8-23 import a in -
b/b.go:6:9-10 type a.P in b.F
b/b.go:6:11-12 write a.P.B in b.F
b/b.go:6:16-17 read a.Y in b.F
b/b.go:7:9-10 type a.Q in b.F
b/b.go:7:11-12 write a.Q.B in b.F
b/b.go:7:16-17 read a.X in b.F
b/b.go:8:4-5 call a.P.M in b.F
b/b.go:9:4-5 call a.Q.M in b.F
b/b.go:10:10-11 type a.I in b.F
b/b.go:11:4-5 call a.I.M in b.F
b/b.go:12:11-14 type a.Box in b.F
b/b.go:12:25-26 read a.P.A in b.F
b/b.go:13:13-16 call a.Box.Get in b.F
b/b.go:13:31-32 read a.Q.B in b.F
-- implements
a.P implements a.I
a.Q implements a.I
a.P.M implements a.I.M
a.Q.M implements a.I.M
-- calls
b/b.go:8:4 b.F -> a.P.M exact static
b/b.go:9:4 b.F -> a.Q.M exact static
b/b.go:11:4 b.F -> a.P.M candidate interface
b/b.go:13:13 b.F -> a.Box.Get exact static
`
	if got != want {
		t.Errorf("cross-unit references:\n%s", txtartest.LineDiff(want, got))
	}
}

// TestImplicitRefs checks the references recorded for uses of methods
// outside the graph
// that gopls counts as references to the package's own methods.
func TestImplicitRefs(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, "testdata/xref/refs.txtar")
	plan, pkgs := loadFixture(t, dir)
	x, err := newExtractor("example.com/refs", dir, plan.Modules)
	if err != nil {
		t.Fatal(err)
	}
	var out xrefOutput
	for _, g := range selectPackages(pkgs) {
		rec, xr := x.extract(context.Background(), g)
		x.keep(xr)
		out.recs = append(out.recs, rec)
	}
	var implicit []pendingRef
	for _, r := range x.xt.refs {
		if r.implicit {
			implicit = append(implicit, r)
		}
	}
	for _, r := range implicit {
		out.refs = append(out.refs, graph.Ref{Target: x.xt.resolve(r.to), Path: x.xt.strs[r.path], Line: int(r.line),
			Col: int(r.col), EndCol: int(r.endCol), Kind: refKinds[r.kind], Enclosing: x.xt.strs[r.enclosing]})
	}
	got := renderXRefs(out)
	want := `-- refs
p/p.go:125:4-7 call refs/p.Logger.Log in refs/p.Dispatch
p/p.go:125:12-17 call refs/p.Err.Error in refs/p.Dispatch
p/p.go:126:12-18 call refs/p.Base.String in refs/p.Dispatch
p/p.go:133:45-48 call refs/p.Upper.Len in refs/p.Lengths
-- implements
`
	if got != want {
		t.Errorf("implicit references:\n%s", txtartest.LineDiff(want, got))
	}
}

// TestXRefsAcrossVariants checks that uses made in test variants resolve
// to the symbols of the packages they name: p's in-package test (the
// variant "p [p.test]") uses q; q's in-package test uses p; p's external
// test uses p, and r as recompiled for p's tests ("r [p.test]").
func TestXRefsAcrossVariants(t *testing.T) {
	hermetic(t)
	out := extractAll(t, "example.com/refs", txtartest.Write(t, "testdata/xref/refs.txtar"))
	qualified := map[string]string{}
	for _, r := range out.recs {
		for _, s := range r.Symbols {
			qualified[s.Key] = s.PackagePath + "." + s.QualifiedName
		}
	}
	got := map[string]bool{}
	for _, r := range out.refs {
		got[fmt.Sprintf("%s:%d:%d %s", r.Path, r.Line, r.Col, qualified[r.Target])] = true
	}
	for _, want := range []string{
		"p/p_test.go:12:8 example.com/refs/q.Double",
		"p/p_test.go:12:15 example.com/refs/p.Default",
		"q/q_test.go:10:14 example.com/refs/p.Default",
		"q/q_test.go:10:30 example.com/refs/p.New",
		"q/q_test.go:10:36 example.com/refs/p.Server.Port",
		"p/ext_test.go:8:11 example.com/refs/r.Wrapper",
		"p/ext_test.go:8:23 example.com/refs/p.Server.Port",
		"p/ext_test.go:11:7 example.com/refs/p.New",
	} {
		if !got[want] {
			t.Errorf("missing reference %s", want)
		}
	}
}

// TestEdgeOnce checks that a call reaching a function both as itself and
// through a function literal it contains is one edge to it.
func TestEdgeOnce(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, "testdata/edgeonce.txtar.in")
	out := extractAll(t, "example.com/edgeonce", dir)
	checkXRefInvariants(t, out)
	names := map[string]string{}
	for _, r := range out.recs {
		for _, s := range r.Symbols {
			names[s.Key] = s.QualifiedName
		}
	}
	var got []string
	for _, e := range out.edges {
		if e.Line == 17 {
			got = append(got, fmt.Sprintf("%s -> %s %s %s", names[e.Caller], names[e.Callee], e.Coverage, e.Via))
		}
	}
	if want := []string{"call -> A.run candidate func_value"}; !slices.Equal(got, want) {
		t.Errorf("edges of the call f():\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
