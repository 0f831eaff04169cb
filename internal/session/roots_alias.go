package session

import (
	"path/filepath"
	"strings"
)

// maxAliasDepth bounds how many leading components of an absolute path
// are resolved in search of a symlink to a root.
const maxAliasDepth = 64

// throughAlias respells an absolute path that reaches a root through a
// symlink (the root given as /home/me/src/repo where /home/me is a link,
// macOS's /tmp for /private/tmp) the way the roots are kept, symlinks
// resolved: its shortest leading part whose real path is inside a root is
// replaced by that real path, the rest kept as given. It reports false
// when no leading part resolves into a root. Reading then goes through
// os.Root of that root, as for any path under it.
func throughAlias(roots []string, p string) (string, bool) {
	parts := strings.Split(strings.TrimPrefix(filepath.Clean(p), string(filepath.Separator)), string(filepath.Separator))
	resolved := string(filepath.Separator)
	for i, part := range parts[:min(len(parts), maxAliasDepth)] {
		next, err := filepath.EvalSymlinks(filepath.Join(resolved, part))
		if err != nil {
			return "", false
		}
		resolved = next
		for _, root := range roots {
			if Within(root, resolved) {
				return filepath.Join(append([]string{resolved}, parts[i+1:]...)...), true
			}
		}
	}
	return "", false
}
