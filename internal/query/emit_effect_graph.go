package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/effectrow"
	"github.com/sextant-dev/sextant/internal/graph"
)

// The bounds of emit_effect_graph.
const (
	defaultGraphDepth = 3
	maxGraphDepth     = 10
)

// EffectGraphInput is the input of emit_effect_graph.
type EffectGraphInput struct {
	SymbolSelector
	Depth    int    `json:"depth,omitempty" jsonschema:"call levels to follow, 1 to 10 (default 3)"`
	MaxNodes int    `json:"max_nodes,omitempty" jsonschema:"most functions, root included (default 100, max 1000)"`
	Format   string `json:"format,omitempty" jsonschema:"json (default) or mermaid"`
	Wait     Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// EffectNode is one function of the graph.
type EffectNode struct {
	ID            string   `json:"id" jsonschema:"node id used by edges (n0 is the root)"`
	QualifiedName string   `json:"qualified_name" jsonschema:"the function"`
	StableKey     string   `json:"stable_key" jsonschema:"its durable key"`
	Path          string   `json:"path" jsonschema:"repo-relative file"`
	Line          int      `json:"line" jsonschema:"1-based first line"`
	Depth         int      `json:"depth" jsonschema:"calls from the root"`
	Effects       []string `json:"effects" jsonschema:"its own (direct) effects; a trailing ? marks possible"`
	Spawns        []string `json:"spawns,omitempty" jsonschema:"ids of the nodes it starts as goroutines"`
	Open          bool     `json:"open,omitempty" jsonschema:"it makes a call with unknown callee"`
}

// EffectGraphEdge is a call between two nodes.
type EffectGraphEdge struct {
	From     string `json:"from" jsonschema:"caller node id"`
	To       string `json:"to" jsonschema:"callee node id"`
	Coverage string `json:"coverage" jsonschema:"exact, candidate or package_level"`
	Go       bool   `json:"go,omitempty" jsonschema:"called by a go statement"`
}

// EffectGraphOutput is the answer of emit_effect_graph.
type EffectGraphOutput struct {
	Envelope
	SchemaVersion int               `json:"schema_version" jsonschema:"1"`
	Format        string            `json:"format" jsonschema:"json or mermaid"`
	Root          *SymbolRef        `json:"root,omitempty" jsonschema:"the root function"`
	Nodes         []EffectNode      `json:"nodes" jsonschema:"functions reached, breadth-first"`
	Edges         []EffectGraphEdge `json:"edges" jsonschema:"calls between them"`
	Narrow        string            `json:"narrow,omitempty" jsonschema:"set when max_nodes cut the graph: how to narrow it"`
	Mermaid       string            `json:"mermaid,omitempty" jsonschema:"format mermaid: a flowchart"`
	Caveat        string            `json:"caveat,omitempty" jsonschema:"set when rows may be out of date: the repository was re-indexed in part after an edit"`
}

// EmitEffectGraph answers emit_effect_graph.
func EmitEffectGraph(ctx context.Context, s *Service, in EffectGraphInput, progress func(Progress)) (*EffectGraphOutput, error) {
	sel := in.selector()
	if err := sel.validate(); err != nil {
		return nil, err
	}
	depth := in.Depth
	switch {
	case depth == 0:
		depth = defaultGraphDepth
	case depth < 1 || depth > maxGraphDepth:
		return nil, invalid("depth", "must be from 1 to %d (got %d)", maxGraphDepth, depth)
	}
	maxNodes := in.MaxNodes
	switch {
	case maxNodes == 0:
		maxNodes = defaultMaxNodes
	case maxNodes < 1 || maxNodes > maxMaxNodes:
		return nil, invalid("max_nodes", "must be from 1 to %d (got %d)", maxMaxNodes, maxNodes)
	}
	format := in.Format
	switch format {
	case "":
		format = "json"
	case "json", "mermaid":
	default:
		return nil, invalid("format", "must be json or mermaid (got %q)", in.Format)
	}
	v, root, err := openSymbol(ctx, s, sel, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	if !root.Kind.IsFunction() || root.Kind == graph.KindInterfaceMethod {
		return nil, graph.Errorf(graph.CodeNotAFunction, "%s is %s %s, not a function or method with a body: emit_effect_graph starts from one",
			root.QualifiedName, article(string(root.Kind)), root.Kind).WithData("kind", string(root.Kind))
	}
	v.Use(root.Repository)

	ids := map[string]string{root.Key: "n0"}
	nodes := []EffectNode{{ID: "n0", QualifiedName: root.QualifiedName, StableKey: root.Key, Path: root.Path, Line: root.StartLine}}
	var edges []EffectGraphEdge
	seenEdge := map[EffectGraphEdge]bool{}
	cut := 0 // functions reached but left out
	frontier := []string{root.Key}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		es, err := v.Reader().CallEdges(ctx, graph.EdgeQuery{Callers: frontier})
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading call edges")
		}
		var want []string
		for _, e := range es {
			if e.Callee != "" && ids[e.Callee] == "" {
				want = append(want, e.Callee)
			}
		}
		byKey, err := symbolsByKey(ctx, v, dedupe(want), "functions")
		if err != nil {
			return nil, err
		}
		frontier = nil
		left := map[string]bool{}
		for _, e := range es {
			if e.Callee == "" || e.Coverage == graph.CoverageUnresolved {
				continue
			}
			if s, ok := byKey[e.Callee]; ok && s.TestOnly && !root.TestOnly {
				continue // only a test binary makes this call (see callwalk, walker.testOnlyEdge)
			}
			if ids[e.Callee] == "" {
				if len(nodes) >= maxNodes {
					left[e.Callee] = true
					continue
				}
				s, ok := byKey[e.Callee]
				if !ok {
					continue
				}
				id := fmt.Sprintf("n%d", len(nodes))
				ids[e.Callee] = id
				nodes = append(nodes, EffectNode{ID: id, QualifiedName: s.QualifiedName, StableKey: s.Key, Path: s.Path,
					Line: s.StartLine, Depth: d})
				frontier = append(frontier, e.Callee)
			}
			ge := EffectGraphEdge{From: ids[e.Caller], To: ids[e.Callee], Coverage: string(e.Coverage), Go: e.Go}
			if !seenEdge[ge] {
				seenEdge[ge] = true
				edges = append(edges, ge)
			}
		}
		cut += len(left)
	}
	// Own effects of every node.
	keys := make([]string, len(nodes))
	for i, n := range nodes {
		keys[i] = n.StableKey
	}
	recs, err := v.Reader().EffectRecords(ctx, keys)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading effects")
	}
	at := map[string]int{}
	for i, n := range nodes {
		at[n.StableKey] = i
		nodes[i].Effects = []string{}
	}
	for _, r := range recs {
		i, ok := at[r.Function]
		if !ok || !r.Direct {
			continue
		}
		switch r.Effect {
		case graph.EffectOpen:
			nodes[i].Open = true
			continue
		}
		e := string(r.Effect)
		if !r.Certain {
			e += "?"
		}
		nodes[i].Effects = append(nodes[i].Effects, e)
	}
	for _, e := range edges {
		if e.Go {
			i := at[nodeKey(nodes, e.From)]
			nodes[i].Spawns = append(nodes[i].Spawns, e.To)
		}
	}
	ref := symbolRef(root)
	out := &EffectGraphOutput{SchemaVersion: 1, Format: format, Root: &ref, Nodes: nodes, Edges: edges}
	if edges == nil {
		out.Edges = []EffectGraphEdge{}
	}
	if rp, err := v.Repo(root.Repository); err == nil && len(rp.Snapshot.Amended) > 0 {
		out.Caveat = effectrow.AmendedCaveat(rp)
	}
	out.Envelope = v.Envelope()
	out.Total, out.Returned = len(nodes)+cut, len(nodes)
	if cut > 0 {
		out.Truncated = true
		out.Narrow = fmt.Sprintf("max_nodes %d reached: %d more functions at the last level read were left out; lower depth (now %d), raise max_nodes (up to %d), or start from one of the nodes",
			maxNodes, cut, depth, maxMaxNodes)
	}
	if format == "mermaid" {
		out.Mermaid = mermaid(out)
	}
	return out, nil
}

func nodeKey(nodes []EffectNode, id string) string {
	i := slices.IndexFunc(nodes, func(n EffectNode) bool { return n.ID == id })
	return nodes[i].StableKey
}

// mermaid draws the graph as a flowchart: each node with its own
// effects, candidate calls dotted, goroutine starts labelled go.
func mermaid(o *EffectGraphOutput) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for _, n := range o.Nodes {
		label := n.QualifiedName
		effs := slices.Clone(n.Effects)
		if n.Open {
			effs = append(effs, "open")
		}
		if len(effs) > 0 {
			label += "<br/>" + strings.Join(effs, " ")
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", n.ID, strings.ReplaceAll(label, `"`, "#quot;"))
	}
	for _, e := range o.Edges {
		arrow := "-->"
		if e.Coverage == string(graph.CoverageCandidate) {
			arrow = "-.->"
		}
		if e.Go {
			fmt.Fprintf(&b, "  %s %s|go| %s\n", e.From, arrow, e.To)
		} else {
			fmt.Fprintf(&b, "  %s %s %s\n", e.From, arrow, e.To)
		}
	}
	return b.String()
}

// Text renders the graph: the Mermaid chart when asked for, else one line
// per node and its calls.
func (o *EffectGraphOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "effect graph of %s: %d functions, %d calls\n", o.Root.QualifiedName, len(o.Nodes), len(o.Edges))
	if o.Caveat != "" {
		b.WriteString("caveat: " + o.Caveat + "\n")
	}
	if o.Mermaid != "" {
		b.WriteString(o.Mermaid)
	} else {
		calls := map[string][]string{}
		for _, e := range o.Edges {
			to := e.To
			if e.Go {
				to = "go " + to
			}
			if e.Coverage == string(graph.CoverageCandidate) {
				to += "?"
			}
			calls[e.From] = append(calls[e.From], to)
		}
		for _, n := range o.Nodes {
			fmt.Fprintf(&b, "%s %s %s:%d", n.ID, n.QualifiedName, n.Path, n.Line)
			if len(n.Effects) > 0 {
				fmt.Fprintf(&b, " [%s]", strings.Join(n.Effects, " "))
			}
			if n.Open {
				b.WriteString(" open")
			}
			if c := calls[n.ID]; len(c) > 0 {
				fmt.Fprintf(&b, " → %s", strings.Join(c, ", "))
			}
			b.WriteByte('\n')
		}
	}
	if o.Narrow != "" {
		b.WriteString("TRUNCATED: " + o.Narrow + "\n")
	}
	writeFreshness(&b, o.Envelope)
	return b.String()
}
