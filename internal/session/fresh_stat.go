package session

import (
	"io/fs"
	"os"

	"github.com/sextant-dev/sextant/internal/rootfs"
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
	if rootfs.Outside(err) {
		if rel, ok := rootfs.Inside(root, name); ok { // an absolute link back inside
			fi, err = root.Stat(rel)
		}
	}
	return fi, true, err
}
