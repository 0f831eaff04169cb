package overview

import (
	"maps"
	"slices"
	"testing"
)

// TestLayers: a package sits one layer above the highest it imports; the
// packages of a cycle share a layer above all their imports, and those
// importing any of them sit above it.
func TestLayers(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    importGraph
		pkgs []string
		want map[string]int
	}{
		{"alone", importGraph{}, []string{"a", "b"}, map[string]int{"a": 0, "b": 0}},
		{"chain", importGraph{"a": {"b"}, "b": {"c"}}, []string{"a", "b", "c"}, map[string]int{"a": 2, "b": 1, "c": 0}},
		{"diamond", importGraph{"top": {"l", "r"}, "l": {"base"}, "r": {"mid"}, "mid": {"base"}},
			[]string{"top", "l", "r", "mid", "base"}, map[string]int{"top": 3, "l": 1, "r": 2, "mid": 1, "base": 0}},
		{"cycle between layers", importGraph{"app": {"x"}, "x": {"y", "util"}, "y": {"z"}, "z": {"x"}},
			[]string{"app", "x", "y", "z", "util"}, map[string]int{"app": 2, "x": 1, "y": 1, "z": 1, "util": 0}},
		{"cycle found from its middle", importGraph{"y": {"z"}, "z": {"x"}, "x": {"y", "util"}, "app": {"x"}},
			[]string{"y", "util", "app", "x", "z"}, map[string]int{"app": 2, "x": 1, "y": 1, "z": 1, "util": 0}},
		{"two cycles, one above the other", importGraph{"a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"c"}},
			[]string{"a", "b", "c", "d"}, map[string]int{"a": 1, "b": 1, "c": 0, "d": 0}},
		{"a package importing itself", importGraph{"a": {"a", "b"}}, []string{"a", "b"}, map[string]int{"a": 1, "b": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.g.layers(tc.pkgs); !maps.Equal(got, tc.want) {
				t.Errorf("layers = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAcyclic: of each import cycle, the dependency with the fewest
// references goes, the first by name among the tied, until no cycle is
// left; a graph without one keeps every import.
func TestAcyclic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		g       importGraph
		weight  map[dependency]int
		removed int
		want    importGraph
		layers  map[string]int
	}{
		{"no cycle", importGraph{"a": {"b"}, "b": {"c"}}, map[dependency]int{{"a", "b"}: 1, {"b", "c"}: 1},
			0, importGraph{"a": {"b"}, "b": {"c"}}, map[string]int{"a": 2, "b": 1, "c": 0}},
		{"a stray use back", importGraph{"ui": {"core"}, "core": {"ui", "math"}}, map[dependency]int{{"ui", "core"}: 40, {"core", "ui"}: 2, {"core", "math"}: 9},
			1, importGraph{"ui": {"core"}, "core": {"math"}}, map[string]int{"ui": 2, "core": 1, "math": 0}},
		{"a tie goes by name", importGraph{"x": {"y"}, "y": {"x"}}, map[dependency]int{{"x", "y"}: 3, {"y", "x"}: 3},
			1, importGraph{"x": {}, "y": {"x"}}, map[string]int{"x": 0, "y": 1}},
		{"a cycle of three, then one left inside it", importGraph{"a": {"b", "c"}, "b": {"c"}, "c": {"a"}},
			map[dependency]int{{"a", "b"}: 5, {"a", "c"}: 1, {"b", "c"}: 5, {"c", "a"}: 5},
			2, importGraph{"a": {}, "b": {"c"}, "c": {"a"}}, map[string]int{"a": 0, "b": 2, "c": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkgs := slices.Sorted(maps.Keys(tc.layers))
			if n := tc.g.acyclic(pkgs, tc.weight); n != tc.removed {
				t.Errorf("removed %d, want %d", n, tc.removed)
			}
			for p, deps := range tc.g {
				if !slices.Equal(deps, tc.want[p]) && len(deps)+len(tc.want[p]) > 0 {
					t.Errorf("%s imports %v, want %v", p, deps, tc.want[p])
				}
			}
			if got := tc.g.layers(pkgs); !maps.Equal(got, tc.layers) {
				t.Errorf("layers = %v, want %v", got, tc.layers)
			}
		})
	}
}
