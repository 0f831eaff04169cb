package live

import "path/filepath"

// RelPath renders an absolute filename of a load relative to its root;
// ok is false for files outside it (the standard library, the module
// cache), whose paths an answer does not give.
func RelPath(root, filename string) (string, bool) {
	if filename == "" {
		return "", false
	}
	r, err := filepath.Rel(root, filename)
	if err != nil || !filepath.IsLocal(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}
