package webui

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/query"
)

// graphState is what a symbol page's URL says of its call graphs: the
// nodes expanded a level further, on each side, and how many nodes a
// layer shows.
type graphState struct {
	key      string
	up, down []string // keys expanded among the callers, the callees
	more     int      // 1, 2, 4...: the layer cap's multiple
}

// The caps of a call graph: nodes per layer at first (doubled by each
// "show more"), the most any layer shows, expansions per side, and the
// functions asked of one walk.
const (
	layerCap      = 12
	maxLayerCap   = 192
	maxExpansions = 16
	maxWalkNodes  = 200
)

func parseGraphState(q url.Values) graphState {
	st := graphState{key: q.Get("key"), more: 1}
	split := func(s string) []string {
		var out []string
		for _, k := range strings.Split(s, ",") {
			if k != "" && len(out) < maxExpansions && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
		return out
	}
	st.up, st.down = split(q.Get("up")), split(q.Get("down"))
	if m, err := strconv.Atoi(q.Get("more")); err == nil && m > 1 && m <= maxLayerCap/layerCap {
		st.more = m
	}
	return st
}

// href is the symbol page's address in state st.
func (st graphState) href() string {
	q := url.Values{"key": {st.key}}
	if len(st.up) > 0 {
		q.Set("up", strings.Join(st.up, ","))
	}
	if len(st.down) > 0 {
		q.Set("down", strings.Join(st.down, ","))
	}
	if st.more > 1 {
		q.Set("more", strconv.Itoa(st.more))
	}
	return "/symbol?" + q.Encode()
}

// expanded is st with key expanded on the callers' side (or callees').
func (st graphState) expanded(key string, callers bool) string {
	if callers {
		st.up = append(slices.Clone(st.up), key)
	} else {
		st.down = append(slices.Clone(st.down), key)
	}
	return st.href()
}

// callGraph draws the callers (or callees) of s: one level from the
// symbol, and one more from each node the state expands, each level from
// get_callers (get_callees) at depth 1. The graph reads in the direction
// of the calls: callers above the function, callees below.
func (p *pages) callGraph(ctx context.Context, s *query.SymbolDetail, st graphState, callers bool) (drawing, error) {
	tool, open := "get_callees", st.down
	if callers {
		tool, open = "get_callers", st.up
	}
	perLayer := layerCap * st.more
	layerOf := map[string]int{s.StableKey: 0}
	nodes := []gnode{{ID: s.StableKey, Label: s.QualifiedName, Title: s.QualifiedName, Href: symHref(s.StableKey), Class: "root"}}
	var edges []gedge
	done := map[string]bool{}
	beyond := false // a walk stopped at maxWalkNodes
	queue := []string{s.StableKey}
	for len(queue) > 0 && len(done) <= maxExpansions {
		k := queue[0]
		queue = queue[1:]
		if done[k] {
			continue
		}
		done[k] = true
		out, err := call[query.CallGraphOutput](ctx, p.svc, tool, map[string]any{"stable_key": k, "max_nodes": maxWalkNodes, "limit": 500, "budget": 100000})
		if err != nil {
			if k == s.StableKey {
				return drawing{}, err
			}
			continue
		}
		beyond = beyond || out.Truncated
		for _, row := range out.Results {
			if row.Depth != 1 {
				continue
			}
			id := row.StableKey
			if id == "" {
				id = "outside:" + row.QualifiedName
			}
			if _, seen := layerOf[id]; !seen {
				l := layerOf[k] + 1
				layerOf[id] = l
				n := gnode{ID: id, Label: row.QualifiedName, Title: row.QualifiedName + " (" + row.Coverage + ")", Href: symHref(row.StableKey), Layer: l}
				if callers {
					n.Layer = -l
				}
				if row.StableKey != "" && !slices.Contains(open, row.StableKey) {
					n.Expand = st.expanded(row.StableKey, callers)
				}
				nodes = append(nodes, n)
			}
			e := gedge{From: k, To: id, Coverage: row.Coverage}
			if callers {
				e.From, e.To = id, k
			}
			edges = append(edges, e)
		}
		for _, o := range open {
			if _, present := layerOf[o]; present && !done[o] {
				queue = append(queue, o)
			}
		}
	}
	more := st
	more.more = min(st.more*2, maxLayerCap/layerCap)
	d := layout(nodes, edges, perLayer, more.href())
	if beyond {
		d.Beyond = "Each level asks " + tool + " for at most " + itoa(maxWalkNodes) + " functions; there are more than that."
	}
	return d, nil
}

// reachGraph draws what a change reaches: the changed declarations on
// top, then each declaration and test by its steps from the change, an
// edge from the one it was reached from.
func reachGraph(o *query.GetImpactOutput, perLayer int) drawing {
	var nodes []gnode
	var edges []gedge
	seen := map[string]bool{}
	add := func(n gnode, reach []string, coverage string) {
		if seen[n.ID] {
			return
		}
		seen[n.ID] = true
		nodes = append(nodes, n)
		if len(reach) > 1 {
			edges = append(edges, gedge{From: reach[1], To: n.ID, Coverage: coverage})
		}
	}
	for _, c := range o.Changed {
		add(gnode{ID: c.QualifiedName, Label: c.QualifiedName, Title: c.QualifiedName + " (" + c.Change + ")", Href: symHref(c.StableKey), Class: "changed"}, nil, "")
	}
	for _, a := range o.Affected {
		add(gnode{ID: a.QualifiedName, Label: a.QualifiedName, Title: a.QualifiedName, Href: symHref(a.StableKey), Layer: a.Depth}, a.Reach, a.Coverage)
	}
	for _, t := range o.Results {
		add(gnode{ID: t.Name, Label: t.Name, Title: t.Package + "." + t.Name, Class: "test", Layer: max(t.Depth, 1)}, t.Reach, t.Coverage)
	}
	return layout(nodes, edges, perLayer, "")
}

// effectGraph draws the witness paths of a function's effects: from the
// function down each call of a witness to the cause, one leaf per effect,
// paths sharing their steps. A possible effect's steps are drawn as
// candidate edges.
func effectGraph(e *query.EffectsOutput, perLayer int) drawing {
	var nodes []gnode
	var edges []gedge
	layerOf := map[string]int{}
	add := func(n gnode) {
		if l, ok := layerOf[n.ID]; ok && l <= n.Layer {
			return
		}
		if _, ok := layerOf[n.ID]; !ok {
			nodes = append(nodes, n)
		}
		layerOf[n.ID] = n.Layer
	}
	for _, eff := range e.Results {
		coverage := "exact"
		if !eff.Certain {
			coverage = "candidate"
		}
		prev := ""
		for i, st := range eff.Witness {
			id := st.StableKey
			if id == "" {
				id = "fn:" + st.Function
			}
			n := gnode{ID: id, Label: st.Function, Title: st.Function + " " + st.Path + ":" + itoa(st.Line), Href: symHref(st.StableKey), Layer: i}
			if i == 0 {
				n.Class = "root"
			}
			add(n)
			if prev != "" && prev != id {
				edges = append(edges, gedge{From: prev, To: id, Coverage: coverage})
			}
			prev = id
		}
		cause := eff.Effect
		if len(eff.Witness) > 0 {
			last := eff.Witness[len(eff.Witness)-1]
			if last.Calls != "" {
				cause += ": " + last.Calls
			} else if last.Detail != "" {
				cause += ": " + last.Detail
			}
		}
		leaf := gnode{ID: "effect:" + cause, Label: cause, Title: eff.Explanation, Class: "effect", Layer: len(eff.Witness)}
		add(leaf)
		if prev != "" {
			edges = append(edges, gedge{From: prev, To: leaf.ID, Coverage: coverage})
		}
	}
	for i := range nodes {
		nodes[i].Layer = layerOf[nodes[i].ID]
	}
	return layout(nodes, edges, perLayer, "")
}
