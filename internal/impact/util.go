package impact

import (
	"maps"
	"slices"
)

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// dedupe returns list without its repeats, in the order first met.
func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// isExportedName reports whether a declaration's name starts with an
// upper-case ASCII letter, as the index judges exported names.
func isExportedName(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }
