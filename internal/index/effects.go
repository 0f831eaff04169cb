package index

import (
	"os"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
	"github.com/sextant-dev/sextant/internal/index/effects"
)

// Effect rows come from internal/index/effects: its Collector reads each
// function body the call graph builds (callgraph Options.Visit), and
// effects.Compute turns the direct causes and the resolved call edges into
// records once every unit is done, so that a snapshot's rows follow from
// its own edges. Here, as for edges, positions are kept and resolved to
// keys at the end.

// effectState is what the extractor keeps for effects.
type effectState struct {
	col      *effects.Collector
	causes   []pendingCause
	analysed []target
	// summaries, set by an amend, returns the stored records of
	// functions outside the packages analysed that their edges call:
	// what their rows say those callees do, in place of their bodies.
	summaries func(keys []string) ([]graph.EffectRecord, error)
}

// pendingCause is a direct cause waiting for its function to be resolved.
type pendingCause struct {
	fn        target
	effect    graph.Effect
	path      int32
	line, col int32
	certain   bool
	callee    string
	detail    string
}

// EffectsEnv is the environment variable that turns effect inference off
// when set to "off", so that bench/cmd/effects-bench can time indexing
// with and without it in one run. A snapshot indexed without effects has
// no rows: every function reads as not analysed.
const EffectsEnv = "SEXTANT_EFFECTS"

// effectsVisit returns the hook the call graph calls with each function
// body it builds.
func (x *extractor) effectsVisit() func(*ssa.Function, callgraph.Func) {
	if os.Getenv(EffectsEnv) == "off" {
		return nil
	}
	if x.fx == nil {
		x.fx = &effectState{col: effects.NewCollector()}
	}
	return x.fx.col.Visit
}

// effectsKeep returns the call graph's KeepBody: bodies with direct
// causes stay for the collector to read.
func (x *extractor) effectsKeep() func(*ssa.Function) bool {
	if os.Getenv(EffectsEnv) == "off" {
		return nil
	}
	x.effectsVisit()
	return x.fx.col.KeepBody
}

// keepEffects takes what the collector found in the unit just built; when
// the build failed (built false) its edges are dropped, and so are its
// causes. lines converts the causes' columns.
func (x *extractor) keepEffects(built bool, lines siteFiles) {
	if x.fx == nil {
		return
	}
	direct, visited := x.fx.col.Take()
	if !built {
		return
	}
	for _, f := range visited {
		if f.Pos.IsValid() {
			x.fx.analysed = append(x.fx.analysed, x.funcTarget(f))
		}
	}
	for _, d := range direct {
		rel, ok := x.rel(d.Site.Filename)
		if !ok || !d.Caller.Pos.IsValid() {
			continue
		}
		x.fx.causes = append(x.fx.causes, pendingCause{
			fn: x.funcTarget(d.Caller), effect: d.Effect, path: x.xt.intern(rel),
			line: int32(d.Site.Line), col: int32(lines.charColumnAt(d.Site.Filename, d.Site.Line, d.Site.Col)),
			certain: d.Certain, callee: d.Callee, detail: d.Detail,
		})
	}
}

// effectRecords computes the snapshot's effect records from the resolved
// edges and the causes kept, and releases the causes.
//
// In an amend (summaries set), the callees outside the packages analysed
// enter as causes of their own, one per record the store has for them, and
// only the analysed functions' records are returned: the callees' stay as
// stored. A witness then continues in the callee's stored row, which may
// make it longer than the shortest; the effects and their certainty are
// what a whole index finds from the same rows.
func (x *extractor) effectRecords(edges []graph.CallEdge) ([]graph.EffectRecord, error) {
	if x.fx == nil {
		return nil, nil
	}
	t := &x.xt
	in := effects.Input{Edges: edges, Abstract: x.fx.col.AbstractMethods(), Test: map[string]bool{}}
	seen := map[string]bool{}
	for _, f := range x.fx.analysed {
		if k := t.resolve(f); k != "" && !seen[k] {
			seen[k] = true
			in.Functions = append(in.Functions, k)
			if strings.HasSuffix(t.strs[f.file], "_test.go") {
				in.Test[k] = true
			}
		}
	}
	for _, c := range x.fx.causes {
		k := t.resolve(c.fn)
		if k == "" {
			continue
		}
		in.Causes = append(in.Causes, effects.Cause{Function: k, Effect: c.effect, Path: t.strs[c.path],
			Line: int(c.line), Col: int(c.col), Certain: c.certain, Callee: c.callee, Detail: c.detail})
	}
	summaries := x.fx.summaries
	x.fx = nil
	if summaries == nil {
		return effects.Compute(in), nil
	}
	var outside []string
	for _, e := range edges {
		if e.Callee != "" && !seen[e.Callee] && !slices.Contains(outside, e.Callee) {
			outside = append(outside, e.Callee)
		}
	}
	stored, err := summaries(outside)
	if err != nil {
		return nil, err
	}
	for _, r := range stored {
		if r.Effect == graph.EffectPure || seen[r.Function] {
			continue
		}
		in.Causes = append(in.Causes, effects.Cause{Function: r.Function, Effect: r.Effect, Path: r.Path, Line: r.Line,
			Col: r.Col, Certain: r.Certain, Callee: r.Callee, Detail: r.Detail})
	}
	var out []graph.EffectRecord
	for _, r := range effects.Compute(in) {
		if seen[r.Function] {
			out = append(out, r)
		}
	}
	return out, nil
}
