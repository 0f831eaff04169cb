package impact

import (
	"maps"
	"slices"
)

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// isExportedName reports whether a declaration's name starts with an
// upper-case ASCII letter, as the index judges exported names.
func isExportedName(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }
