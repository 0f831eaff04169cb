package query

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/callwalk"
	"github.com/sextant-dev/sextant/internal/graph"
)

// The bounds of a call-graph walk.
const (
	maxDepth        = 5
	defaultMaxNodes = callwalk.DefaultMaxNodes
	maxMaxNodes     = callwalk.MaxMaxNodes
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

// CallRow is one edge of the walk (see package callwalk).
type CallRow = callwalk.Row

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
	cut       callwalk.Cut
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
	maxNodes, err := callwalk.MaxNodes(in.MaxNodes, limit)
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
	offset, reach, err := callwalk.DecodeCursor(in.Cursor, fp, vk, maxNodes)
	if err != nil {
		return nil, err
	}
	res, err := callwalk.Walk(ctx, v, root, depth, callwalk.Options{Callers: callers, Coverages: covs, MaxNodes: reach,
		IncludeTests: includeTests, TestEdges: in.IncludeTests != nil && *in.IncludeTests})
	if err != nil {
		return nil, err
	}
	rows := res.Rows
	total := len(rows)
	offset = min(offset, total)
	ref := symbolRef(root)
	out := &CallGraphOutput{Symbol: &ref, Nodes: res.Nodes, callers: callers, depth: depth, offset: offset,
		cut: callwalk.Cut{Stopped: res.Stopped, Reach: reach, Step: maxNodes}}
	out.Completeness, out.BlindSpots = res.Spots.Verdict()
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
	o.cut.Page(&o.Envelope, total, offset, len(rows), fp, vk)
	o.budgetCut = cut
}

// rowLabel is the heading rows are grouped under in the text: the file
// of a function of the graph, else what kind of callee it is.
func rowLabel(r CallRow) string {
	switch callwalk.Group(r) {
	case 0:
		return r.Path
	case 2:
		return "no callee found:"
	}
	return "outside the graph:"
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
		o.cut.WriteHeader(&b)
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
		r.WriteSites(&b, o.callers)
		b.WriteString("\n")
	}
	if o.Total == 0 {
		fmt.Fprintf(&b, "No %s found with these filters.\n", what)
	}
	blind.Write(&b, o.Completeness, o.BlindSpots)
	o.cut.WriteMore(&b, o.Envelope, o.offset, o.budgetCut)
	writeFreshness(&b, o.Envelope)
	return b.String()
}
