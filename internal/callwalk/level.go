package callwalk

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
)

// level turns the edges read at depth d into the level's rows, one per
// function at the far end, parent, coverage and way of calling, with
// their call sites, sorted: functions of the graph by file and line, then
// names outside it, then unresolved calls. Functions reached at an
// earlier level are left out (each function is listed once), but for a
// call back to the root and a function calling itself, which are how
// recursion shows. Rows are not capped here: walk admits their functions
// in this order.
func (w *walker) level(d, depth int, edges []graph.CallEdge) []Row {
	groups := map[string]*Row{}
	var order []string
	for _, e := range edges {
		near := e.Caller
		if w.callers {
			near = e.Callee
		}
		if !w.callers {
			if e.Coverage == graph.CoverageUnresolved {
				w.unresolved++
			}
			if e.Callee == "" && blind.IsReflectCall(e.CalleeName) {
				w.reflecting[e.Caller] = true
			}
		}
		far := w.far(e)
		row := Row{Depth: d, Parent: w.syms[near].QualifiedName, Coverage: string(e.Coverage), Via: viaOf(e),
			parentPath: w.syms[near].Path}
		switch {
		case far != "":
			if w.seen[far] && far != w.root.Key && far != near {
				continue // reached earlier: each function is listed once
			}
			s, ok := w.syms[far]
			if !ok {
				s = graph.Symbol{Key: far, QualifiedName: far}
			}
			if !w.includeTests && s.TestOnly {
				continue
			}
			if w.testOnlyEdge(w.syms[near], s) {
				continue
			}
			row.QualifiedName, row.StableKey = s.QualifiedName, s.Key
			row.Path, row.Line = s.Path, s.StartLine
		case e.CalleeName != "":
			row.QualifiedName = e.CalleeName
			w.externals[e.CalleeName] = true
			if d < depth {
				w.deepExt = true
			}
		default:
			row.QualifiedName = "(dynamic call)"
		}
		gk := strings.Join([]string{row.StableKey, row.QualifiedName, near, row.Coverage, row.Via}, "\x00")
		g, ok := groups[gk]
		if !ok {
			g = &row
			groups[gk] = g
			order = append(order, gk)
		}
		if e.Path != "" { // a dispatch edge has no call site
			g.sites = append(g.sites, callSite{path: e.Path, line: e.Line, col: e.Col})
		}
	}
	level := make([]Row, 0, len(order))
	for _, k := range order {
		level = append(level, *groups[k])
	}
	// Graph functions, then names outside it, then unresolved calls.
	slices.SortStableFunc(level, func(a, b Row) int {
		return cmp.Or(cmp.Compare(Group(a), Group(b)), strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line),
			strings.Compare(a.QualifiedName, b.QualifiedName), strings.Compare(a.Parent, b.Parent))
	})
	return level
}

// spell sorts each row's call sites and spells them as path:line:column.
func (w *walker) spell(level []Row) {
	for i := range level {
		r := &level[i]
		sort.Slice(r.sites, func(x, y int) bool {
			a, b := r.sites[x], r.sites[y]
			if a.path != b.path {
				return a.path < b.path
			}
			if a.line != b.line {
				return a.line < b.line
			}
			return a.col < b.col
		})
		r.Sites = make([]string, 0, len(r.sites))
		for _, st := range r.sites {
			r.Sites = append(r.Sites, fmt.Sprintf("%s:%d:%d", st.path, st.line, st.col))
		}
	}
}

// testOnlyEdge reports whether the call between near and far exists only
// in a test binary, to be left out of an answer about the production
// program: a function of a non-test file calling one declared in a
// _test.go file, which only a test can have put in its way (assigning a
// test function to a package variable, say). Such edges are listed when
// the walk starts from test code or include_tests is true.
func (w *walker) testOnlyEdge(near, far graph.Symbol) bool {
	if w.testEdges || w.root.TestOnly {
		return false
	}
	caller, callee := near, far
	if w.callers {
		caller, callee = far, near
	}
	return !caller.TestOnly && callee.TestOnly && caller.Key != ""
}
