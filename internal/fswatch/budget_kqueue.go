//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package fswatch

import (
	"os"
	"path/filepath"
)

// maxWatched bounds the files and directories watched: kqueue holds a
// file descriptor open for each, and a process has some ten thousand.
var maxWatched = 4096

// checkBudget counts the entries of every directory, since kqueue watches
// each.
func checkBudget(root string, dirs []string) error {
	n := len(dirs)
	for _, d := range dirs {
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(d)))
		if err != nil {
			return err
		}
		if n += len(ents); n > maxWatched {
			return ErrTooMany
		}
	}
	return nil
}
