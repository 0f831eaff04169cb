package index

import (
	"os"

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
	if os.Getenv(EffectsEnv) == "off" || x.amending {
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
	if os.Getenv(EffectsEnv) == "off" || x.amending {
		return nil
	}
	x.effectsVisit()
	return x.fx.col.KeepBody
}

// keepEffects takes what the collector found in the unit just built; when
// the build failed (built false) its edges are dropped, and so are its
// causes.
func (x *extractor) keepEffects(built bool) {
	if x.fx == nil {
		return
	}
	direct, visited := x.fx.col.Take()
	if !built {
		return
	}
	contents := map[string][]byte{}
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
		content, seen := contents[d.Site.Filename]
		if !seen {
			content, _ = os.ReadFile(d.Site.Filename)
			contents[d.Site.Filename] = content
		}
		x.fx.causes = append(x.fx.causes, pendingCause{
			fn: x.funcTarget(d.Caller), effect: d.Effect, path: x.xt.intern(rel),
			line: int32(d.Site.Line), col: int32(charColumnAt(content, d.Site.Line, d.Site.Col)),
			certain: d.Certain, callee: d.Callee, detail: d.Detail,
		})
	}
}

// effectRecords computes the snapshot's effect records from the resolved
// edges and the causes kept, and releases the causes.
func (x *extractor) effectRecords(edges []graph.CallEdge) []graph.EffectRecord {
	if x.fx == nil {
		return nil
	}
	t := &x.xt
	in := effects.Input{Edges: edges, Abstract: x.fx.col.AbstractMethods()}
	seen := map[string]bool{}
	for _, f := range x.fx.analysed {
		if k := t.resolve(f); k != "" && !seen[k] {
			seen[k] = true
			in.Functions = append(in.Functions, k)
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
	x.fx = nil
	return effects.Compute(in)
}
