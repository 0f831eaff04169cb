package callgraph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestEmit requires Options.Emit to hand out exactly the edges Build
// returns, each call's edges in one batch, and Result.Edges nil. Batches
// of one edge at least make every file boundary a batch, so the order of
// reading is what is tested: every variant and instance of a call must be
// read before its edges go out.
func TestEmit(t *testing.T) {
	hermetic(t)
	defer func(n int) { emitBatch = n }(emitBatch)
	emitBatch = 1
	for _, fixture := range []struct {
		archive string
		files   bool // several files with calls: several batches
	}{{"testdata/calls.txtar", true}, {"testdata/wrappers.txtar", false}} {
		archive := fixture.archive
		t.Run(archive, func(t *testing.T) {
			dir := txtartest.Write(t, archive)
			for _, alg := range []struct {
				name string
				max  int
			}{{"vta", 0}, {"cha", -1}} {
				for ui, pkgs := range loadUnits(t, dir) {
					want, err := Build(context.Background(), pkgs, Options{InRepo: under(dir), MaxVTACalls: alg.max})
					if err != nil {
						t.Fatal(err)
					}
					for _, paced := range []bool{false, true} {
						label := fmt.Sprintf("%s unit %d paced %v", alg.name, ui, paced)
						batches, res := emitted(t, pkgs, Options{InRepo: under(dir), MaxVTACalls: alg.max, Paced: paced})
						if res.Edges != nil {
							t.Errorf("%s: Result.Edges has %d edges with Emit set", label, len(res.Edges))
						}
						if fixture.files && len(batches) < 2 {
							t.Errorf("%s: %d batches of %d edges; the fixture should make several", label, len(batches), len(want.Edges))
						}
						checkBatches(t, label, want.Edges, batches)
					}
				}
			}
		})
	}
}

// emitted runs Start as the indexer does, with Options.Emit collecting
// the batches.
func emitted(t testing.TB, pkgs []*packages.Package, opts Options) ([][]Edge, *Result) {
	t.Helper()
	var batches [][]Edge
	opts.Emit = func(es []Edge) {
		if len(es) == 0 {
			t.Error("Emit called with no edges")
		}
		batches = append(batches, es)
	}
	res, err := buildLike(pkgs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return batches, res
}

// checkBatches compares the emitted batches with Build's edges, as sets
// of edges, and checks that no call's edges span two batches.
func checkBatches(t testing.TB, label string, want []Edge, batches [][]Edge) {
	t.Helper()
	type call struct {
		caller         Func
		site           Pos
		goStmt, defer_ bool
	}
	batchOf := map[call]int{}
	var got []Edge
	for i, b := range batches {
		for _, e := range b {
			c := call{e.Caller, e.Site, e.Go, e.Defer}
			if j, ok := batchOf[c]; ok && j != i {
				t.Errorf("%s: edges of the call at %s in %s in batches %d and %d", label, e.Site, e.Caller.Name, j, i)
			}
			batchOf[c] = i
		}
		got = append(got, b...)
	}
	text := func(es []Edge) string {
		lines := make([]string, len(es))
		for i, e := range es {
			lines[i] = fmt.Sprintf("%+v", e)
		}
		slices.Sort(lines)
		return strings.Join(lines, "\n") + "\n"
	}
	if w, g := text(want), text(got); w != g {
		d := lineDiff(w, g)
		if len(d) > 4000 {
			d = d[:4000] + "..."
		}
		t.Errorf("%s: emitted edges differ from Build's:\n%s", label, d)
	}
}
