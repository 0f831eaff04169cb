// Package callwalk walks the call graph breadth-first from a function,
// towards its callers (get_callers) or its callees (get_callees): each
// function once, to a depth and at most a number of functions, with each
// edge's coverage and call sites, and the blind spots that may hide more
// edges (dynamic calls, reflection, code outside the graph, the runtime,
// packages that did not type-check). A walk max_nodes cuts goes on by
// cursor, further each page (Cut).
package callwalk

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// Options say how a walk goes.
type Options struct {
	Callers      bool             // towards the callers; false: the callees
	Coverages    []graph.Coverage // the coverages of edges followed; none: all
	MaxNodes     int              // the most functions reached
	IncludeTests bool             // functions of test files are reached too
	TestEdges    bool             // edges only a test binary has are listed too
}

// Result is a walk's rows and what it could not see.
type Result struct {
	Rows    []Row       // edges by depth, then file and line
	Nodes   int         // functions reached, the root excluded
	Stopped bool        // MaxNodes cut the walk short
	Spots   blind.Spots // why more edges may exist
}

// Walk walks from root to depth levels.
func Walk(ctx context.Context, v *session.View, root graph.Symbol, depth int, o Options) (*Result, error) {
	w := walker{v: v, root: root, callers: o.Callers, covs: o.Coverages, maxNodes: o.MaxNodes, includeTests: o.IncludeTests,
		testEdges: o.TestEdges}
	if err := w.walk(ctx, depth); err != nil {
		return nil, err
	}
	c, err := w.completeness(ctx)
	if err != nil {
		return nil, err
	}
	return &Result{Rows: w.rows, Nodes: len(w.seen) - 1, Stopped: w.stopped, Spots: c}, nil
}

// Row is one edge of the walk: a function found at some depth, the
// function one level closer to the root that it calls (get_callers) or is
// called by (get_callees), how, and where.
type Row struct {
	Depth         int      `json:"depth" jsonschema:"1 for direct callers or callees, 2 for theirs, and so on"`
	QualifiedName string   `json:"qualified_name" jsonschema:"the caller or callee; for callees outside the graph, its package-qualified name"`
	StableKey     string   `json:"stable_key,omitempty" jsonschema:"its durable key, when it is in the graph"`
	Path          string   `json:"path,omitempty" jsonschema:"repo-relative file of its declaration"`
	Line          int      `json:"line,omitempty" jsonschema:"1-based first line of its declaration"`
	Parent        string   `json:"parent" jsonschema:"qualified name of the function one level closer to the root"`
	Coverage      string   `json:"coverage" jsonschema:"exact, candidate, unresolved or package_level"`
	Via           string   `json:"via" jsonschema:"static, interface, func_value, go or defer"`
	Sites         []string `json:"sites" jsonschema:"the call sites, as path:line:column"`

	parentPath string     // file of the parent's declaration, where a callee's sites are
	sites      []callSite // Sites, before they are spelled
}

// callSite is where one call is made.
type callSite struct {
	path      string
	line, col int
}

// walker is one breadth-first walk of the call graph from a root.
type walker struct {
	v            *session.View
	root         graph.Symbol
	callers      bool
	covs         []graph.Coverage
	maxNodes     int
	includeTests bool
	testEdges    bool // include_tests given as true: edges only a test binary has are listed too

	seen     map[string]bool         // stable keys of the functions reached, root included
	syms     map[string]graph.Symbol // every function reached, by key
	expanded []graph.Symbol          // the functions whose edges were read
	rows     []Row
	stopped  bool // max_nodes cut the walk short

	unresolved int             // unresolved call sites out of expanded functions
	reflecting map[string]bool // expanded functions that call through reflection (get_callees)
	externals  map[string]bool // callees outside the graph, by name (get_callees)
	deepExt    bool            // an external callee was reached above the last level
}

// walk follows the edges level by level, each function once.
func (w *walker) walk(ctx context.Context, depth int) error {
	w.seen = map[string]bool{w.root.Key: true}
	w.syms = map[string]graph.Symbol{w.root.Key: w.root}
	w.externals = map[string]bool{}
	w.reflecting = map[string]bool{}
	frontier := []graph.Symbol{w.root}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		w.expanded = append(w.expanded, frontier...)
		keys := make([]string, len(frontier))
		for i, f := range frontier {
			keys[i] = f.Key
		}
		q := graph.EdgeQuery{Coverage: w.covs}
		if w.callers {
			q.Callees = keys
		} else {
			q.Callers = keys
		}
		edges, err := w.v.Reader().CallEdges(ctx, q)
		if err != nil {
			return graph.Wrap(graph.CodeInternal, err, "reading call edges")
		}
		if d == 1 && w.root.Kind == graph.KindInterfaceMethod {
			var extra []graph.CallEdge
			var err error
			if w.callers {
				extra, err = w.interfaceCalls(ctx, edges)
			} else {
				extra, err = w.dispatch(ctx)
			}
			if err != nil {
				return err
			}
			edges = append(edges, extra...)
		}
		// Load the functions at the far end of the edges.
		var want []string
		for _, e := range edges {
			if k := w.far(e); k != "" && !w.seen[k] {
				if _, ok := w.syms[k]; !ok {
					want = append(want, k)
				}
			}
		}
		if len(want) > 0 {
			syms, err := w.v.Reader().SymbolsByKeys(ctx, graph.Dedupe(want))
			if err != nil {
				return graph.Wrap(graph.CodeInternal, err, "reading functions")
			}
			for _, s := range syms {
				w.syms[s.Key] = s
			}
		}
		level := w.level(d, depth, edges)
		// Admit the functions in the order of the rows, so that a walk
		// max_nodes cuts lists a prefix of the rows of the whole walk and
		// a larger max_nodes (the cursor's) resumes it where it stopped.
		var next []graph.Symbol
		for i, r := range level {
			if r.StableKey == "" || w.seen[r.StableKey] {
				continue
			}
			if len(w.seen)-1 >= w.maxNodes {
				w.stopped = true
				level = level[:i]
				break
			}
			w.seen[r.StableKey] = true
			next = append(next, w.syms[r.StableKey])
		}
		w.spell(level)
		w.rows = append(w.rows, level...)
		if w.stopped {
			break
		}
		frontier = next
	}
	return nil
}

// far returns the stable key at the far end of an edge: the caller when
// walking to callers, the callee when walking to callees ("" for a callee
// outside the graph).
func (w *walker) far(e graph.CallEdge) string {
	if w.callers {
		return e.Caller
	}
	return e.Callee
}

// interfaceCalls adds, for an interface method, the calls made through
// the interface itself: the call graph resolves such a call to the
// concrete methods it may reach, and a reference of kind call to the
// interface method is where it is made. Calls already present as edges are
// not repeated.
func (w *walker) interfaceCalls(ctx context.Context, have []graph.CallEdge) ([]graph.CallEdge, error) {
	if len(w.covs) > 0 && !containsCov(w.covs, graph.CoverageExact) {
		return nil, nil
	}
	refs, _, err := w.v.Reader().Refs(ctx, graph.RefQuery{Targets: []string{w.root.Key}, Kinds: []graph.RefKind{graph.RefCall}, IncludeTests: true})
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading calls of "+w.root.QualifiedName)
	}
	at := map[string]bool{}
	for _, e := range have {
		at[fmt.Sprintf("%s:%d", e.Path, e.Line)] = true
	}
	var out []graph.CallEdge
	for _, r := range refs {
		if r.Enclosing == "" || at[fmt.Sprintf("%s:%d", r.Path, r.Line)] {
			continue
		}
		out = append(out, graph.CallEdge{Caller: r.Enclosing, Callee: w.root.Key, Path: r.Path, Line: r.Line, Col: r.Col,
			Coverage: graph.CoverageExact, Via: graph.ViaInterface})
	}
	return out, nil
}

// dispatch stands for the body an interface method lacks: a call of it
// runs one of the methods that implement it, so those are its callees,
// as candidate edges with no call site.
func (w *walker) dispatch(ctx context.Context) ([]graph.CallEdge, error) {
	if len(w.covs) > 0 && !containsCov(w.covs, graph.CoverageCandidate) {
		return nil, nil
	}
	keys, err := MethodPairs(ctx, w.v, w.root.Key, true)
	if err != nil {
		return nil, err
	}
	out := make([]graph.CallEdge, 0, len(keys))
	for _, k := range keys {
		out = append(out, graph.CallEdge{Caller: w.root.Key, Callee: k, Coverage: graph.CoverageCandidate, Via: graph.ViaInterface})
	}
	return out, nil
}

// completeness names what the walk cannot see. Only the functions whose
// edges were read matter: the root and every level above the last.
func (w *walker) completeness(ctx context.Context) (blind.Spots, error) {
	var c blind.Spots
	facts, err := w.v.Facts(ctx, w.root.Repository)
	if err != nil {
		return c, err
	}
	if rp, err := w.v.Repo(w.root.Repository); err == nil {
		c.AddAmended(rp)
	}
	if w.stopped {
		c.Add(blind.MaxNodes, "the walk stopped at max_nodes=%d functions; next_cursor walks on, or raise max_nodes", w.maxNodes)
	}
	if w.callers {
		return c, w.callerSpots(ctx, &c, facts)
	}
	w.calleeSpots(&c, facts)
	return c, nil
}

// names returns the qualified names of the reached functions with these
// keys, or the keys themselves when they were not reached.
func (w *walker) names(ctx context.Context, keys []string) []string {
	var missing []string
	for _, k := range keys {
		if _, ok := w.syms[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		if syms, err := w.v.Reader().SymbolsByKeys(ctx, missing); err == nil {
			for _, s := range syms {
				w.syms[s.Key] = s
			}
		}
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k
		if s, ok := w.syms[k]; ok {
			out[i] = s.QualifiedName
		}
	}
	return out
}

// viaOf is how an edge's call is made: go and defer statements first,
// else how the callee was resolved.
func viaOf(e graph.CallEdge) string {
	switch {
	case e.Go:
		return string(graph.ViaGo)
	case e.Defer:
		return string(graph.ViaDefer)
	case e.Via == "":
		return string(graph.ViaStatic)
	}
	return string(e.Via)
}

func containsCov(list []graph.Coverage, c graph.Coverage) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}

func isExportedName(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

// Group orders the rows of one level: functions of the graph (0),
// callees outside it (1), dynamic calls with no callee (2).
func Group(r Row) int {
	switch {
	case r.Path != "":
		return 0
	case r.StableKey == "" && r.Coverage == string(graph.CoverageUnresolved):
		return 2
	}
	return 1
}

// WriteSites spells the row's call sites for a text rendering: " at" and
// up to five of them, or " by dispatch" for none. A caller's call sites
// are in its own file, a callee's in its caller's: the path is spelled
// only where it differs.
func (r Row) WriteSites(b *strings.Builder, callers bool) {
	if len(r.sites) == 0 {
		b.WriteString(" by dispatch")
	} else {
		b.WriteString(" at")
	}
	for i, st := range r.sites {
		if i == 4 && len(r.sites) > 5 {
			fmt.Fprintf(b, " +%d more", len(r.sites)-4)
			break
		}
		sep := " "
		if i > 0 {
			sep = ", "
		}
		if (callers && st.path == r.Path) || (!callers && st.path == r.parentPath) {
			fmt.Fprintf(b, "%s%d:%d", sep, st.line, st.col)
		} else {
			fmt.Fprintf(b, "%s%s:%d:%d", sep, st.path, st.line, st.col)
		}
	}
}
