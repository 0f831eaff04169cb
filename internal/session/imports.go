package session

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
type importsCache struct {
	mu    sync.Mutex
	files map[string]importsEntry
}

type importsEntry struct {
	size, mtime int64
	paths       []string
}

// maxImportsFiles bounds the files the imports cache holds; past it the
// cache starts over.
const maxImportsFiles = 50000

// FileImports returns the import paths of the Go file rel under root,
// read through os.Root with the parser's imports-only mode and kept in
// the session while the file's size and modification time stay the same;
// nil when it cannot be read.
func (v *View) FileImports(root, rel string) []string {
	c := &v.s.imports
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
	c.mu.Lock()
	e, ok := c.files[abs]
	c.mu.Unlock()
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
	c.mu.Lock()
	if c.files == nil || len(c.files) > maxImportsFiles {
		c.files = map[string]importsEntry{}
	}
	c.files[abs] = importsEntry{size: fi.Size(), mtime: fi.ModTime().UnixNano(), paths: paths}
	c.mu.Unlock()
	return paths
}
