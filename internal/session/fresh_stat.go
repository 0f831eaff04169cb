package session

import (
	"io/fs"
	"os"
)

// statIndexed stats a file of a snapshot the way the indexer read it: a
// symlink by its target (the indexer opened the link and recorded what it
// read), followed through root, so a link out of the root is not; any
// other file by itself. linked reports a symlink, whose target may change
// in a directory the directory watch does not see.
func statIndexed(root *os.Root, name string) (fi fs.FileInfo, linked bool, err error) {
	fi, err = root.Lstat(name)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return fi, false, err
	}
	fi, err = root.Stat(name)
	return fi, true, err
}
