package rootfs

import (
	"os"
	"path/filepath"
)

// Inside returns the name, relative to root and free of symlinks, that
// name resolves to when it resolves inside root, and false otherwise.
// os.Root refuses every absolute symlink, even one that points back inside
// the root (generated trees, links written with the checkout's full path,
// or spelled through a symlink to the root): the callers try Inside after
// such a refusal and open the name it returns through root, so a swap in
// between still cannot leave the root.
func Inside(root *os.Root, name string) (string, bool) {
	dir, err := filepath.EvalSymlinks(root.Name())
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(dir, real)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", false
	}
	return rel, true
}
