package callgraph

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestDeterministic builds the same unit many times, with and without
// pacing and parallelism, and requires the same edges every time: an
// index is a function of the code. The wrappers fixture has chains and
// cycles of promoted methods of embedded interfaces, whose order comes
// from map iteration in go/ssa and here.
func TestDeterministic(t *testing.T) {
	hermetic(t)
	for _, archive := range []string{"testdata/wrappers.txtar", "testdata/calls.txtar"} {
		t.Run(archive, func(t *testing.T) {
			dir := txtartest.Write(t, archive)
			units := loadUnits(t, dir)
			for _, alg := range []struct {
				name string
				max  int
			}{{"vta", 0}, {"cha", -1}} {
				for ui, pkgs := range units {
					var first []Edge
					for i := range 24 {
						procs := 1 + i%2
						prev := runtime.GOMAXPROCS(procs)
						opts := Options{InRepo: under(dir), MaxVTACalls: alg.max, Paced: i%3 == 0}
						res, err := buildLike(pkgs, opts)
						runtime.GOMAXPROCS(prev)
						if err != nil {
							t.Fatal(err)
						}
						if i == 0 {
							first = res.Edges
							continue
						}
						if d := edgeDiff(first, res.Edges); d != "" {
							t.Fatalf("%s unit %d: build %d (GOMAXPROCS %d, paced %v) differs from build 0:\n%s",
								alg.name, ui, i, procs, opts.Paced, d)
						}
					}
				}
			}
		})
	}
}

// buildLike runs Start as the indexer does: with Options.Paced, the
// import paths are reached one by one in sorted order, letting the
// build go on between them, and the gate is opened at the end.
func buildLike(pkgs []*packages.Package, opts Options) (*Result, error) {
	p := Start(context.Background(), pkgs, opts)
	if opts.Paced {
		for _, path := range unitPaths(pkgs) {
			p.Reached(path)
			runtime.Gosched()
		}
		p.Open()
	}
	return p.Wait()
}

// unitPaths returns the import paths of pkgs in the order the indexer
// extracts them (sorted), for Pending.Reached.
func unitPaths(pkgs []*packages.Package) []string {
	seen := map[string]bool{}
	var paths []string
	for _, p := range pkgs {
		if path := pathOf(p); !seen[path] {
			seen[path] = true
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	return paths
}

// edgeDiff shows the edges only in want (-) and only in got (+), every
// field of them.
func edgeDiff(want, got []Edge) string {
	text := func(es []Edge) string {
		var b strings.Builder
		for _, e := range es {
			fmt.Fprintf(&b, "%+v\n", e)
		}
		return b.String()
	}
	w, g := text(want), text(got)
	if w == g {
		return ""
	}
	return lineDiff(w, g)
}
