package effects

import (
	"cmp"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Cause is a direct cause resolved to the graph: the function's key and
// the position in repository terms. The indexer turns each Direct into
// one; an empty Effect marks a covered dynamic call (see Direct).
type Cause struct {
	Function  string
	Effect    graph.Effect
	Path      string
	Line, Col int
	Certain   bool
	Callee    string
	Detail    string
}

// Input is what Compute needs of one snapshot.
type Input struct {
	// Functions are the keys of the functions analysed (visited by the
	// Collector): each gets a record, pure when nothing else.
	Functions []string
	// Edges are the snapshot's call edges, as written to the store.
	Edges []graph.CallEdge
	// Causes are the direct causes the Collector found.
	Causes []Cause
	// Abstract names the interface methods called in the snapshot's code
	// (Collector.AbstractMethods).
	Abstract map[string]bool
	// Test holds the keys of the functions declared in _test.go files.
	// A call from another function into one of them exists only in a
	// test binary (a test put the function in a variable production code
	// calls): it is left out, so that the records of production code,
	// effects and witnesses, describe the production program. A record
	// holds one witness per function and effect, so a test function
	// calling production code gets that code's production effects.
	Test map[string]bool
}

// level is the strength of a record: certain beats possible, and at the
// same certainty direct beats transitive.
type rec struct {
	set            bool
	direct         bool
	certain        bool
	dist           int32
	path           string
	line, col      int
	next           int32 // node id of the next function, -1 on a direct record
	callee, detail string
}

// Compute returns the effect records of a snapshot: for each analysed
// function (and each other caller that reaches an effect), one record per
// effect with the first step of a shortest witness; open when it reaches
// an unresolved call; pure when it has neither. See graph.EffectRecord.
//
// Direct causes are the Collector's and the table's: an edge to a callee
// outside the graph (CalleeName set) is looked up in Table; its effects
// are certain when the edge is exact (or package-level) and the line says
// so, possible otherwise. An edge to an interface method the table does
// not list, and an unresolved edge, make the caller open. Then, for each
// effect, a breadth-first search backwards over the edges between
// functions of the graph: first over exact and package-level edges from
// the certain causes (certain records), then over every edge from every
// cause and certain record (possible records). Records are deterministic:
// ties go to the earliest call site.
func Compute(in Input) []graph.EffectRecord {
	if len(in.Test) > 0 {
		prod := make([]graph.CallEdge, 0, len(in.Edges))
		for _, e := range in.Edges {
			if e.Callee == "" || !in.Test[e.Callee] || in.Test[e.Caller] {
				prod = append(prod, e)
			}
		}
		in.Edges = prod
	}
	return compute(in)
}

// compute is Compute over every edge of in.
func compute(in Input) []graph.EffectRecord {
	ids := map[string]int32{}
	var keys []string
	id := func(k string) int32 {
		if i, ok := ids[k]; ok {
			return i
		}
		i := int32(len(keys))
		ids[k] = i
		keys = append(keys, k)
		return i
	}
	for _, f := range in.Functions {
		id(f)
	}
	analysed := len(keys)

	effs := append(slices.Clone(graph.AllEffects), graph.EffectOpen)
	eix := map[graph.Effect]int{}
	for i, e := range effs {
		eix[e] = i
	}
	type dcause struct {
		fn int32
		e  int
		Cause
	}
	type siteKey struct {
		fn        string
		path      string
		line, col int
	}
	covered := map[siteKey]bool{}
	var causes []dcause
	for _, c := range in.Causes {
		if c.Effect == "" {
			covered[siteKey{c.Function, c.Path, c.Line, c.Col}] = true
			continue
		}
		if _, ok := eix[c.Effect]; ok && c.Function != "" {
			causes = append(causes, dcause{id(c.Function), eix[c.Effect], c})
		}
	}

	// Edges between functions of the graph, backwards; table causes from
	// the others.
	type redge struct {
		caller  int32
		certain bool
		path    string
		line    int
		col     int
	}
	in2 := map[int32][]redge{}
	for _, e := range in.Edges {
		if e.Caller == "" {
			continue
		}
		exact := e.Coverage == graph.CoverageExact || e.Coverage == graph.CoveragePackageLevel
		caller := id(e.Caller)
		switch {
		case e.Coverage == graph.CoverageUnresolved && covered[siteKey{e.Caller, e.Path, e.Line, e.Col}]:
			// an interface method the table vouches for
		case e.Coverage == graph.CoverageUnresolved:
			causes = append(causes, dcause{caller, eix[graph.EffectOpen], Cause{Function: e.Caller, Effect: graph.EffectOpen,
				Path: e.Path, Line: e.Line, Col: e.Col, Certain: true, Detail: "dynamic call with no known callee"}})
		case e.Callee != "":
			callee := id(e.Callee)
			in2[callee] = append(in2[callee], redge{caller, exact, e.Path, e.Line, e.Col})
		case e.CalleeName != "":
			ent := lookup(e.CalleeName)
			if ent == nil {
				if in.Abstract[e.CalleeName] {
					causes = append(causes, dcause{caller, eix[graph.EffectOpen], Cause{Function: e.Caller, Effect: graph.EffectOpen,
						Path: e.Path, Line: e.Line, Col: e.Col, Certain: exact, Callee: e.CalleeName,
						Detail: "calls " + e.CalleeName + " on a value whose implementations are outside the repository"}})
				}
				continue
			}
			if (ent.arg || ent.recv) && exact {
				continue // decided at the call site by the Collector
			}
			for _, te := range ent.effects {
				causes = append(causes, dcause{caller, eix[te.effect], Cause{Function: e.Caller, Effect: te.effect,
					Path: e.Path, Line: e.Line, Col: e.Col, Certain: exact && !te.possible && !(ent.arg || ent.recv),
					Callee: e.CalleeName, Detail: "calls " + e.CalleeName}})
			}
		}
	}
	n := len(keys)
	for k := range in2 {
		slices.SortFunc(in2[k], func(a, b redge) int {
			return cmp.Or(cmp.Compare(a.caller, b.caller), strings.Compare(a.path, b.path), a.line-b.line, a.col-b.col)
		})
	}
	better := func(a, b dcause) bool { // a earlier than b
		return cmp.Or(strings.Compare(a.Path, b.Path), a.Line-b.Line, a.Col-b.Col) < 0
	}

	var out []graph.EffectRecord
	has := make([]bool, n)
	rows := make([][]graph.EffectRecord, n)
	for ei, eff := range effs {
		recs := make([]rec, n)
		// Direct records: certain before possible, then the earliest.
		for _, c := range causes {
			if c.e != ei {
				continue
			}
			r := &recs[c.fn]
			cand := rec{set: true, direct: true, certain: c.Certain, next: -1, path: c.Path, line: c.Line, col: c.Col,
				callee: c.Callee, detail: c.Detail}
			if !r.set || (c.Certain && !r.certain) || (c.Certain == r.certain && better(c, dcause{Cause: Cause{Path: r.path, Line: r.line, Col: r.col}})) {
				*r = cand
			}
		}
		// Certain transitive records, over exact edges.
		var queue []int32
		for i := range recs {
			if recs[i].set && recs[i].certain {
				queue = append(queue, int32(i))
			}
		}
		bfs := func(queue []int32, certain bool) {
			for len(queue) > 0 {
				g := queue[0]
				queue = queue[1:]
				for _, e := range in2[g] {
					if certain && !e.certain {
						continue
					}
					r := &recs[e.caller]
					if r.set && (r.certain || !certain) {
						continue
					}
					if r.set && r.direct && !certain {
						continue
					}
					*r = rec{set: true, certain: certain, dist: recs[g].dist + 1, next: g, path: e.path, line: e.line, col: e.col}
					queue = append(queue, e.caller)
				}
			}
		}
		bfs(queue, true)
		// Possible records, over every edge, from every record so far.
		queue = queue[:0]
		for i := range recs {
			if recs[i].set {
				queue = append(queue, int32(i))
			}
		}
		slices.SortStableFunc(queue, func(a, b int32) int { return cmp.Compare(recs[a].dist, recs[b].dist) })
		bfs(queue, false)
		for i := range recs {
			r := recs[i]
			if !r.set {
				continue
			}
			has[i] = true
			er := graph.EffectRecord{Function: keys[i], Effect: eff, Direct: r.direct, Certain: r.certain,
				Path: r.path, Line: r.line, Col: r.col, Callee: r.callee, Detail: r.detail}
			if r.next >= 0 {
				er.Next = keys[r.next]
			}
			rows[i] = append(rows[i], er)
		}
	}
	for i := range n {
		if !has[i] && i < analysed {
			rows[i] = append(rows[i], graph.EffectRecord{Function: keys[i], Effect: graph.EffectPure, Certain: true})
		}
		out = append(out, rows[i]...)
	}
	return out
}
