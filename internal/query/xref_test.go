package query

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

var update = flag.Bool("update", false, "rewrite the golden files of the cross-reference tools")

// fixture is a txtar module indexed into a real SQLite store in a
// temporary directory, with a Service over it.
type fixture struct {
	dir   string
	store graph.Store
	svc   *Service
}

// newFixture writes the archive's files into a fresh directory, indexes
// them with the real indexer into a real store, and returns a Service
// whose only root is that directory.
func newFixture(t testing.TB, archive string) *fixture {
	t.Helper()
	return indexFixture(t, func() string { return txtartest.Write(t, archive) })
}

// indexFixture is newFixture for the directory that write writes.
func indexFixture(t testing.TB, write func() string) *fixture {
	t.Helper()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	root := write()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatalf("indexing %s: %v", root, err)
	}
	svc, err := New(st, []string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() }) // its directory watches: Windows cannot remove a watched directory
	return &fixture{dir: root, store: st, svc: svc}
}

// call runs a tool by name with JSON arguments, as the MCP server does.
func (f *fixture) call(t testing.TB, tool, args string) (Answer, error) {
	t.Helper()
	tl, ok := LookupTool(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	return tl.Call(context.Background(), f.svc, json.RawMessage(args), nil)
}

// ok runs a tool that must succeed.
func ok[T Answer](t *testing.T, f *fixture, tool, args string) T {
	t.Helper()
	a, err := f.call(t, tool, args)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return a.(T)
}

// fails runs a tool that must fail with code.
func fails(t *testing.T, f *fixture, tool, args string, code graph.Code) *graph.Error {
	t.Helper()
	_, err := f.call(t, tool, args)
	if err == nil {
		t.Fatalf("%s %s succeeded, want %s", tool, args, code)
	}
	e, isCoded := asError(err)
	if !isCoded || e.Code != code {
		t.Fatalf("%s %s: %v, want %s", tool, args, err, code)
	}
	return e
}

// goldenCalls are the calls whose text renderings shapes.golden holds.
var goldenCalls = []toolCall{
	{"find_references", `{"qualified_name":"Shape"}`},
	{"find_references", `{"qualified_name":"Shape.Area"}`},
	{"find_references", `{"qualified_name":"Square.Area"}`},
	{"find_references", `{"qualified_name":"Square.Side","kind":"write"}`},
	{"find_references", `{"qualified_name":"Shape","include_tests":false,"limit":2}`},
	{"find_implementations", `{"qualified_name":"Shape"}`},
	{"find_implementations", `{"qualified_name":"Shape.Name"}`},
	{"find_implementations", `{"qualified_name":"Circle"}`},
	{"find_implementations", `{"qualified_name":"Square.Area"}`},
	{"find_implementations", `{"qualified_name":"Unused"}`},
	{"get_callers", `{"qualified_name":"Square.Area"}`},
	{"get_callers", `{"qualified_name":"Total","depth":2}`},
	{"get_callers", `{"qualified_name":"hidden"}`},
	{"get_callees", `{"qualified_name":"Sum","depth":2}`},
	{"get_callees", `{"qualified_name":"Describe"}`},
	{"get_callees", `{"qualified_name":"ViaReflection"}`},
	{"get_callers", `{"qualified_name":"Shape.Area"}`},
	{"get_callees", `{"qualified_name":"Shape.Name","depth":2}`},
	{"get_callers", `{"qualified_name":"Shape"}`},
	{"get_callees", `{"qualified_name":"Sum","depth":2,"budget":150}`},
}

// TestXrefGolden renders the answers of the cross-reference tools on the
// shapes fixture and compares them with testdata/shapes.golden (go test
// -update rewrites it).
func TestXrefGolden(t *testing.T) {
	checkGolden(t, newFixture(t, "testdata/shapes.txtar"), goldenCalls, "testdata/shapes.golden", nil)
}

// toolCall is one call of a golden test.
type toolCall struct{ tool, args string }

// checkGolden renders the answers (or errors) of calls on f, passes the
// text through clean (nil: unchanged), and compares it with the golden
// file, which -update rewrites.
func checkGolden(t *testing.T, f *fixture, calls []toolCall, golden string, clean func(string) string) {
	t.Helper()
	var b strings.Builder
	for _, c := range calls {
		a, err := f.call(t, c.tool, c.args)
		fmt.Fprintf(&b, "== %s %s\n", c.tool, c.args)
		if err != nil {
			fmt.Fprintf(&b, "%s\n", ErrorOf(err).Text())
			continue
		}
		b.WriteString(a.Text())
	}
	got := b.String()
	if clean != nil {
		got = clean(got)
	}
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

// refSet returns the uses in an answer as "path:line:col kind".
func refSet(o *FindReferencesOutput) map[string]bool {
	m := map[string]bool{}
	for _, f := range o.Results {
		for _, r := range f.References {
			m[fmt.Sprintf("%s:%d:%d %s", f.Path, r.Line, r.Column, r.Kind)] = true
		}
	}
	return m
}

// TestFindReferencesRelated checks that a method's uses include those of
// the methods related through interfaces, as gopls counts them: from an
// interface method, the concrete methods (promoted ones included); from a
// concrete method, the interface methods, but never other concrete ones.
func TestFindReferencesRelated(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/shapes.txtar")
	iface := ok[*FindReferencesOutput](t, f, "find_references", `{"qualified_name":"Shape.Area"}`)
	if want := []string{"Circle.Area", "Solid.Area", "Square.Area"}; !sameSet(iface.Related, want) && !sameSet(iface.Related, []string{"Circle.Area", "Square.Area"}) {
		t.Errorf("Shape.Area related %v, want %v", iface.Related, want)
	}
	conc := ok[*FindReferencesOutput](t, f, "find_references", `{"qualified_name":"Square.Area"}`)
	for _, r := range conc.Related {
		if r == "Circle.Area" {
			t.Errorf("Square.Area is related to Circle.Area: concrete methods must not lead to other concrete methods")
		}
	}
	if !slices.Contains(conc.Related, "Shape.Area") {
		t.Errorf("Square.Area related %v, want Shape.Area", conc.Related)
	}
	// s.Area() in Total is a use of Shape.Area, and so counts for
	// Square.Area too, marked with its target.
	found := false
	for _, fl := range conc.Results {
		for _, r := range fl.References {
			if r.Enclosing == "Total" && r.Kind == "call" {
				found = true
				if r.Target != "Shape.Area" {
					t.Errorf("Total's call is of %q, want target Shape.Area", r.Target)
				}
			}
		}
	}
	if !found {
		t.Errorf("Square.Area: the call through Shape in Total is missing: %v", refSet(conc))
	}
	// A field written in a composite literal and by assignment.
	w := ok[*FindReferencesOutput](t, f, "find_references", `{"qualified_name":"Square.Side","kind":"write"}`)
	if w.Total < 2 {
		t.Errorf("Square.Side writes: %v", refSet(w))
	}
	// A budget is never exceeded; what it cuts is on the next page.
	all := ok[*FindReferencesOutput](t, f, "find_references", `{"qualified_name":"Shape"}`)
	cut := ok[*FindReferencesOutput](t, f, "find_references", `{"qualified_name":"Shape","budget":150,"limit":3}`)
	if len(cut.Text()) > 600 || cut.Returned == 0 || cut.NextCursor == nil {
		t.Errorf("budget 150: %d characters, %d of %d rows, cursor %v\n%s", len(cut.Text()), cut.Returned, all.Total, cut.NextCursor, cut.Text())
	}
	rest := ok[*FindReferencesOutput](t, f, "find_references", fmt.Sprintf(`{"qualified_name":"Shape","budget":150,"limit":3,"cursor":%q}`, *cut.NextCursor))
	if rest.Total != all.Total || cut.Returned+rest.Returned > all.Total {
		t.Errorf("budget pages: %d + %d of %d", cut.Returned, rest.Returned, all.Total)
	}
}

// TestFitBudget checks the search for the largest page that fits.
func TestFitBudget(t *testing.T) {
	render := func(n int) string { return strings.Repeat("x", 100+50*n) }
	for _, c := range []struct{ rows, budget, want int }{
		{10, 1000, 10}, // 600 characters fit in 4000
		{10, 130, 8},   // 100+50*8 = 500 <= 520 < 550
		{10, 30, 1},    // nothing fits: still one row
		{0, 150, 0},
	} {
		if got := fitBudget(c.rows, c.budget, render); got != c.want {
			t.Errorf("fitBudget(%d rows, %d tokens) = %d, want %d", c.rows, c.budget, got, c.want)
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

// TestFindImplementationsFixture checks both directions, pointer
// receivers, promoted methods, and an interface nothing implements.
func TestFindImplementationsFixture(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/shapes.txtar")
	impls := ok[*FindImplementationsOutput](t, f, "find_implementations", `{"qualified_name":"Shape"}`)
	got := map[string]bool{}
	for _, r := range impls.Results {
		got[r.QualifiedName] = r.Pointer
	}
	for name, ptr := range map[string]bool{"Square": false, "Circle": true, "Tile": false, "Solid": false} {
		p, ok := got[name]
		if !ok || p != ptr {
			t.Errorf("Shape implementations %v: want %s (pointer %v)", got, name, ptr)
		}
	}
	m := ok[*FindImplementationsOutput](t, f, "find_implementations", `{"qualified_name":"Shape.Name"}`)
	var names []string
	for _, r := range m.Results {
		names = append(names, r.QualifiedName)
	}
	// Tile gets Name from Square: the method that implements is Square.Name.
	if !slices.Contains(names, "Square.Name") || !slices.Contains(names, "Circle.Name") || slices.Contains(names, "Shape.Name") {
		t.Errorf("Shape.Name implementations %v", names)
	}
	sup := ok[*FindImplementationsOutput](t, f, "find_implementations", `{"qualified_name":"Circle"}`)
	if sup.Direction != "interfaces" || len(sup.Results) != 1 || sup.Results[0].QualifiedName != "Shape" {
		t.Errorf("Circle satisfies %+v, want Shape", sup.Results)
	}
	none := ok[*FindImplementationsOutput](t, f, "find_implementations", `{"qualified_name":"Unused"}`)
	if none.Total != 0 || none.Completeness != blind.Complete || none.Results == nil {
		t.Errorf("Unused: %+v", none)
	}
	fails(t, f, "find_implementations", `{"qualified_name":"Square.Side"}`, graph.CodeInvalidArgument)
	fails(t, f, "find_implementations", `{"qualified_name":"Total"}`, graph.CodeInvalidArgument)
}

// TestCallersThroughInterface checks that a method called only through an
// interface has its callers as candidate edges.
func TestCallersThroughInterface(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/shapes.txtar")
	out := ok[*CallGraphOutput](t, f, "get_callers", `{"qualified_name":"Square.Area"}`)
	byName := map[string]CallRow{}
	for _, r := range out.Results {
		byName[r.QualifiedName] = r
	}
	for _, caller := range []string{"Total", "Describe"} {
		r, ok := byName[caller]
		if !ok {
			t.Errorf("get_callers Square.Area: %s missing from %+v", caller, out.Results)
			continue
		}
		if r.Coverage != string(graph.CoverageCandidate) || r.Via != string(graph.ViaInterface) {
			t.Errorf("%s → Square.Area: coverage %s via %s, want candidate interface", caller, r.Coverage, r.Via)
		}
	}
	// Big calls Name statically: an exact edge.
	name := ok[*CallGraphOutput](t, f, "get_callers", `{"qualified_name":"Square.Name"}`)
	exact := false
	for _, r := range name.Results {
		if r.QualifiedName == "Big" && r.Coverage == string(graph.CoverageExact) && r.Via == string(graph.ViaStatic) {
			exact = true
		}
	}
	if !exact {
		t.Errorf("Big → Square.Name is not exact and static: %+v", name.Results)
	}
}

// TestCallersReflection checks that a function called only through
// reflection gets no caller and a lower_bound verdict naming reflection.
func TestCallersReflection(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/shapes.txtar")
	out := ok[*CallGraphOutput](t, f, "get_callers", `{"qualified_name":"hidden"}`)
	if out.Completeness != blind.LowerBound {
		t.Fatalf("hidden: completeness %s, want lower_bound", out.Completeness)
	}
	found := false
	for _, s := range out.BlindSpots {
		if strings.HasPrefix(s, blind.Reflection+":") && strings.Contains(s, "ViaReflection") {
			found = true
		}
	}
	if !found {
		t.Errorf("hidden: blind spots %v do not name ViaReflection's reflection", out.BlindSpots)
	}
	// A function nothing takes the value of cannot be reached that way.
	sum := ok[*CallGraphOutput](t, f, "get_callers", `{"qualified_name":"defaults"}`)
	if sum.Completeness != blind.Complete {
		t.Errorf("defaults: %s %v, want complete", sum.Completeness, sum.BlindSpots)
	}
}

// TestCallGraphArguments checks the argument errors of the walks.
func TestCallGraphArguments(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/shapes.txtar")
	for _, tool := range []string{"get_callers", "get_callees"} {
		fails(t, f, tool, `{"qualified_name":"Shape"}`, graph.CodeNotAFunction)
		fails(t, f, tool, `{"qualified_name":"Square.Side"}`, graph.CodeNotAFunction)
		for _, d := range []string{"0", "6", "-2", `"two"`} {
			e := fails(t, f, tool, `{"qualified_name":"Total","depth":`+d+`}`, graph.CodeInvalidArgument)
			if e.Data["field"] != "depth" {
				t.Errorf("%s depth %s: %v", tool, d, e.Data)
			}
		}
		fails(t, f, tool, `{"qualified_name":"Total","coverage":"exact,sure"}`, graph.CodeInvalidArgument)
		fails(t, f, tool, `{"qualified_name":"Total","max_nodes":-1}`, graph.CodeInvalidArgument)
	}
}

// TestCursorFromOlderSnapshot checks that a cursor issued on one snapshot
// is refused, with a hint, once the repository has been re-indexed.
func TestCursorFromOlderSnapshot(t *testing.T) {
	f := newFixture(t, "testdata/shapes.txtar")
	page := ok[*FindReferencesOutput](t, f, "find_references", `{"qualified_name":"Shape","limit":1}`)
	if page.NextCursor == nil {
		t.Fatal("no cursor")
	}
	if _, err := index.Index(context.Background(), f.store, f.dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	e := fails(t, f, "find_references", fmt.Sprintf(`{"qualified_name":"Shape","limit":1,"cursor":%q}`, *page.NextCursor), graph.CodeCursorInvalid)
	if !strings.Contains(e.Message, "without cursor") {
		t.Errorf("no hint: %s", e.Message)
	}
}
