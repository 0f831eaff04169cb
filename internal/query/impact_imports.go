package query

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// importsCache keeps the import paths of files by absolute path, valid
// while the file's size and modification time stay the same.
var importsCache struct {
	sync.Mutex
	files map[string]importsEntry
}

type importsEntry struct {
	size, mtime int64
	paths       []string
}

// fileImports returns the import paths of the Go file rel under root,
// read through os.Root with the parser's imports-only mode; nil when it
// cannot be read.
func fileImports(root, rel string) []string {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	name := filepath.FromSlash(rel)
	fi, err := r.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	abs := filepath.Join(root, name)
	importsCache.Lock()
	e, ok := importsCache.files[abs]
	importsCache.Unlock()
	if ok && e.size == fi.Size() && e.mtime == fi.ModTime().UnixNano() {
		return e.paths
	}
	content, err := r.ReadFile(name)
	if err != nil {
		return nil
	}
	f, _ := parser.ParseFile(token.NewFileSet(), rel, content, parser.ImportsOnly)
	var paths []string
	if f != nil {
		for _, im := range f.Imports {
			if p, err := strconv.Unquote(im.Path.Value); err == nil {
				paths = append(paths, p)
			}
		}
	}
	importsCache.Lock()
	if importsCache.files == nil || len(importsCache.files) > 50000 {
		importsCache.files = map[string]importsEntry{}
	}
	importsCache.files[abs] = importsEntry{size: fi.Size(), mtime: fi.ModTime().UnixNano(), paths: paths}
	importsCache.Unlock()
	return paths
}
