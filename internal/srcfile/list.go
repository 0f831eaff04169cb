package srcfile

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// List opens the repository root of loc and lists the files at loc:
// loc itself when it is a file, else the entries of the directory that
// keep accepts, sorted (dir is then true). The caller closes root.
func List(loc session.Located, keep func(fs.DirEntry) bool) (root *os.Root, files []string, dir bool, err error) {
	root, err = os.OpenRoot(loc.Repo.Root)
	if err != nil {
		return nil, nil, false, graph.Wrap(graph.CodeReadError, err, "opening repository root")
	}
	fi, err := root.Stat(filepath.FromSlash(loc.Rel))
	if err != nil {
		root.Close()
		return nil, nil, false, session.FileError("path", loc.Rel, err)
	}
	if !fi.IsDir() {
		return root, []string{loc.Rel}, false, nil
	}
	entries, err := readDir(root, loc.Rel)
	if err != nil {
		root.Close()
		return nil, nil, false, session.FileError("path", loc.Rel, err)
	}
	for _, e := range entries {
		if keep(e) {
			files = append(files, path.Join(loc.Rel, e.Name()))
		}
	}
	sort.Strings(files)
	return root, files, true, nil
}

func readDir(root *os.Root, rel string) ([]os.DirEntry, error) {
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
