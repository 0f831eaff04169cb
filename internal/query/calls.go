package query

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// The bounds of a call-graph walk.
const (
	maxDepth        = 5
	defaultMaxNodes = 100
	maxMaxNodes     = 1000
)

// Depth is the depth parameter of get_callers and get_callees: 1 to 5
// when given, 1 when omitted. An explicit 0 is refused while decoding, so
// a caller who sends it learns it is out of range instead of getting the
// default.
type Depth int

// UnmarshalJSON implements json.Unmarshaler, rejecting values outside 1-5.
// null is the depth omitted.
func (d *Depth) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return invalid("depth", "must be an integer from 1 to %d (got %s)", maxDepth, b)
	}
	if n < 1 || n > maxDepth {
		return invalid("depth", "must be from 1 to %d (got %d); deeper walks grow too fast to read, so call again from a node of the answer", maxDepth, n)
	}
	*d = Depth(n)
	return nil
}

// CallGraphInput is the input of get_callers and get_callees. The
// function is selected as get_symbol selects a symbol.
type CallGraphInput struct {
	SymbolSelector
	Depth        Depth  `json:"depth,omitempty" jsonschema:"levels to walk, 1-5 (default 1)"`
	Coverage     string `json:"coverage,omitempty" jsonschema:"any of exact,candidate,unresolved,package_level"`
	MaxNodes     int    `json:"max_nodes,omitempty" jsonschema:"most functions per page (default 100, max 1000)"`
	IncludeTests *bool  `json:"include_tests,omitempty" jsonschema:"follow _test.go functions (default true)"`
	Limit        int    `json:"limit,omitempty" jsonschema:"page size 1-500 (default 50)"`
	Cursor       string `json:"cursor,omitempty" jsonschema:"next_cursor of the last page"`
	Budget       int    `json:"budget,omitempty" jsonschema:"max tokens of text, 150+"`
	Wait         Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// CallRow is one edge of the walk: a function found at some depth, the
// function one level closer to the root that it calls (get_callers) or is
// called by (get_callees), how, and where.
type CallRow struct {
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

// CallGraphOutput is the answer of get_callers and get_callees.
type CallGraphOutput struct {
	Envelope
	Completeness string     `json:"completeness" jsonschema:"complete, or lower_bound when blind_spots may hide edges"`
	BlindSpots   []string   `json:"blind_spots,omitempty" jsonschema:"why more edges may exist, each as kind: detail"`
	Symbol       *SymbolRef `json:"symbol,omitempty" jsonschema:"the function the walk starts from"`
	Nodes        int        `json:"nodes" jsonschema:"functions reached, the root excluded"`
	Results      []CallRow  `json:"results" jsonschema:"edges by depth, then file and line"`

	callers   bool
	depth     int
	offset    int
	budgetCut bool
	cut       walkCut
}

func callGraph(ctx context.Context, s *Service, in CallGraphInput, progress func(Progress), callers bool) (*CallGraphOutput, error) {
	tool := "get_callees"
	if callers {
		tool = "get_callers"
	}
	sel := in.selector()
	if err := sel.validate(); err != nil {
		return nil, err
	}
	if err := checkSelector("coverage", in.Coverage); err != nil {
		return nil, err
	}
	covs, err := parseCoverages(in.Coverage)
	if err != nil {
		return nil, err
	}
	depth := int(in.Depth)
	if depth == 0 {
		depth = 1
	}
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	maxNodes, err := walkMaxNodes(in.MaxNodes, limit)
	if err != nil {
		return nil, err
	}
	if err := checkBudget(in.Budget); err != nil {
		return nil, err
	}
	includeTests := in.IncludeTests == nil || *in.IncludeTests
	v, root, err := openSymbol(ctx, s, sel, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	if !root.Kind.IsFunction() {
		return nil, graph.Errorf(graph.CodeNotAFunction, "%s is %s %s, not a function or method: %s walks call edges; use find_references for its uses",
			root.QualifiedName, article(string(root.Kind)), root.Kind, tool).WithData("kind", string(root.Kind))
	}
	fp := fingerprint(tool, root.Key, depth, covs, maxNodes, includeTests)
	vk := v.Key([]string{root.Repository})
	offset, reach, err := decodeWalkCursor(in.Cursor, fp, vk, maxNodes)
	if err != nil {
		return nil, err
	}
	w := walker{v: v, root: root, callers: callers, covs: covs, maxNodes: reach, includeTests: includeTests,
		testEdges: in.IncludeTests != nil && *in.IncludeTests}
	if err := w.walk(ctx, depth); err != nil {
		return nil, err
	}
	c, err := w.completeness(ctx)
	if err != nil {
		return nil, err
	}
	rows := w.rows
	total := len(rows)
	offset = min(offset, total)
	ref := symbolRef(root)
	out := &CallGraphOutput{Symbol: &ref, Nodes: len(w.seen) - 1, callers: callers, depth: depth, offset: offset,
		cut: walkCut{stopped: w.stopped, reach: reach, step: maxNodes}}
	out.Completeness, out.BlindSpots = c.Verdict()
	page := rows[offset:min(total, offset+limit)]
	env := v.Envelope()
	fitRows(len(page), in.Budget, func(n int) {
		out.Envelope = env
		out.setRows(page[:n], total, offset, fp, vk, n < len(page))
	}, out.Text)
	return out, nil
}

func (o *CallGraphOutput) setRows(rows []CallRow, total, offset int, fp, vk string, cut bool) {
	o.Results = append([]CallRow{}, rows...)
	o.Truncated, o.NextCursor = false, nil
	pageWalk(&o.Envelope, total, offset, len(rows), fp, vk, o.cut)
	o.budgetCut = cut
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
	rows     []CallRow
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
			syms, err := w.v.Reader().SymbolsByKeys(ctx, dedupe(want))
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
	keys, err := methodPairs(ctx, w.v, w.root.Key, true)
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

// rowGroup orders the rows of one level: functions of the graph (0),
// callees outside it (1), dynamic calls with no callee (2).
func rowGroup(r CallRow) int {
	switch {
	case r.Path != "":
		return 0
	case r.StableKey == "" && r.Coverage == string(graph.CoverageUnresolved):
		return 2
	}
	return 1
}

// rowLabel is the heading rows are grouped under in the text: the file
// of a function of the graph, else what kind of callee it is.
func rowLabel(r CallRow) string {
	switch rowGroup(r) {
	case 0:
		return r.Path
	case 2:
		return "no callee found:"
	}
	return "outside the graph:"
}

func isExportedName(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

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

// parseCoverages parses a comma-separated list of coverage classes.
func parseCoverages(s string) ([]graph.Coverage, error) {
	if s == "" {
		return nil, nil
	}
	var out []graph.Coverage
	for _, part := range strings.Split(s, ",") {
		switch c := graph.Coverage(strings.TrimSpace(part)); c {
		case graph.CoverageExact, graph.CoverageCandidate, graph.CoverageUnresolved, graph.CoveragePackageLevel:
			out = append(out, c)
		default:
			return nil, invalid("coverage", "unknown coverage %q; use exact, candidate, unresolved or package_level, comma-separated", part)
		}
	}
	return out, nil
}

// Text renders the walk level by level, rows grouped by file.
func (o *CallGraphOutput) Text() string {
	var b strings.Builder
	what := "callees"
	if o.callers {
		what = "callers"
	}
	if o.Symbol != nil {
		fmt.Fprintf(&b, "%s of %s %s, depth %d: %d edges, %d functions",
			what, o.Symbol.Kind, o.Symbol.QualifiedName, o.depth, o.Total, o.Nodes)
		if o.Returned < o.Total && o.Returned > 0 {
			fmt.Fprintf(&b, "; showing %d-%d", o.offset+1, o.offset+o.Returned)
		}
		o.cut.writeHeader(&b)
		b.WriteString("\n")
	}
	depth, file := 0, "\x00"
	for _, r := range o.Results {
		if r.Depth != depth {
			depth, file = r.Depth, "\x00"
			if o.depth > 1 {
				fmt.Fprintf(&b, "depth %d:\n", depth)
			}
		}
		if label := rowLabel(r); label != file {
			file = label
			fmt.Fprintf(&b, "%s\n", label)
		}
		b.WriteString("  ")
		if r.Line > 0 {
			fmt.Fprintf(&b, "%d ", r.Line)
		}
		fmt.Fprintf(&b, "%s", r.QualifiedName)
		if o.depth > 1 && depth > 1 {
			if o.callers {
				fmt.Fprintf(&b, " → %s", r.Parent)
			} else {
				fmt.Fprintf(&b, " ← %s", r.Parent)
			}
		}
		fmt.Fprintf(&b, " [%s %s]", r.Coverage, r.Via)
		if len(r.sites) == 0 {
			b.WriteString(" by dispatch")
		} else {
			b.WriteString(" at")
		}
		for i, st := range r.sites {
			if i == 4 && len(r.sites) > 5 {
				fmt.Fprintf(&b, " +%d more", len(r.sites)-4)
				break
			}
			sep := " "
			if i > 0 {
				sep = ", "
			}
			// A caller's call sites are in its own file; a callee's in
			// its caller's. Spell the path only when it differs.
			if (o.callers && st.path == r.Path) || (!o.callers && st.path == r.parentPath) {
				fmt.Fprintf(&b, "%s%d:%d", sep, st.line, st.col)
			} else {
				fmt.Fprintf(&b, "%s%s:%d:%d", sep, st.path, st.line, st.col)
			}
		}
		b.WriteString("\n")
	}
	if o.Total == 0 {
		fmt.Fprintf(&b, "No %s found with these filters.\n", what)
	}
	blind.Write(&b, o.Completeness, o.BlindSpots)
	o.cut.writeMore(&b, o.Envelope, o.offset, o.budgetCut)
	writeFreshness(&b, o.Envelope)
	return b.String()
}
