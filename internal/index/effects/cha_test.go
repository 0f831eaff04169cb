package effects_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
	"github.com/sextant-dev/sextant/internal/index/effects"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestCHAKeepsBodies builds the fixture's call graph with CHA, as units
// above the VTA threshold are (golang.org/x/tools), where bodies without
// calls are dropped after building: the Collector's KeepBody must keep
// those with a direct cause, so that it still sees them, and count the
// others as analysed (pure).
func TestCHAKeepsBodies(t *testing.T) {
	dir := txtartest.Write(t, "testdata/fixture.txtar")
	plan, err := load.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	col := effects.NewCollector()
	for _, u := range plan.Units {
		pkgs, err := load.Load(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := callgraph.Build(context.Background(), pkgs, callgraph.Options{
			MaxVTACalls: -1, Visit: col.Visit, KeepBody: col.KeepBody}); err != nil {
			t.Fatal(err)
		}
	}
	direct, visited := col.Take()
	// Add has no call and no cause: its body goes, but it is analysed.
	if !slices.ContainsFunc(visited, func(f callgraph.Func) bool { return f.Name == "example.com/fx.Add" && f.Pos.IsValid() }) {
		t.Errorf("CHA build: Add (released, pure) is not among the analysed functions")
	}
	has := func(fn string, e graph.Effect) bool {
		return slices.ContainsFunc(direct, func(d effects.Direct) bool {
			return d.Caller.Name == "example.com/fx."+fn && d.Effect == e
		})
	}
	for _, c := range []struct {
		fn string
		e  graph.Effect
	}{
		{"Count", graph.EffectGlobal}, {"Register", graph.EffectGlobal}, {"Send", graph.EffectChan},
		{"Recv", graph.EffectChan}, {"Wait", graph.EffectChan}, {"Bits", graph.EffectUnsafe},
		{"Args", graph.EffectEnv}, {"Boom", graph.EffectPanic}, {"Spawn", graph.EffectSpawn},
	} {
		if !has(c.fn, c.e) {
			t.Errorf("CHA build: %s has no direct %s", c.fn, c.e)
		}
	}
}
