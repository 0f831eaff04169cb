package load

import (
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/mod/modfile"
)

// OutsideReplace reports whether r, a replace directive of the go.mod or
// go.work in directory dir, points at a directory outside root. The go
// command would read the Go files there; Sextant reads nothing outside
// its roots, so ReplaceOverlay drops such directives, and the module is
// then unavailable.
func OutsideReplace(root, dir string, r *modfile.Replace) bool {
	if r == nil || r.New.Version != "" || !modfile.IsDirectoryPath(r.New.Path) {
		return false // a module version, fetched (or not) as any other
	}
	p := filepath.FromSlash(r.New.Path)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	rel, err := filepath.Rel(root, p)
	return err != nil || rel != "." && !filepath.IsLocal(rel)
}

// ReplaceOverlay returns the go/packages overlay that gives the go
// command, in place of u's go.mod (and with a workspace, its go.work and
// the go.mod of every module it uses), the same file without the replace
// directives that point outside root (see OutsideReplace), and a go.work
// without the uses of directories that hold no go.mod (see MissingUse). A file that
// has none, or cannot be read or parsed, is left to the go command. The
// files are read through os.Root, so none is read from outside root.
func ReplaceOverlay(root string, u Unit) map[string][]byte {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	read := func(name string) ([]byte, bool) {
		rel, err := filepath.Rel(root, name)
		if err != nil || !filepath.IsLocal(rel) {
			return nil, false
		}
		data, err := r.ReadFile(rel)
		return data, err == nil
	}
	overlay := map[string][]byte{}
	modFile := func(dir string) {
		name := filepath.Join(dir, "go.mod")
		data, ok := read(name)
		if !ok {
			return
		}
		f, err := modfile.Parse(name, data, nil)
		if err != nil {
			return
		}
		dropped := false
		for _, rep := range f.Replace {
			if OutsideReplace(root, dir, rep) {
				_ = f.DropReplace(rep.Old.Path, rep.Old.Version)
				dropped = true
			}
		}
		if dropped {
			f.Cleanup()
			if out, err := f.Format(); err == nil {
				overlay[name] = out
			}
		}
	}
	if !u.Workspace {
		modFile(u.Dir)
		return overlay
	}
	name := filepath.Join(u.Dir, "go.work")
	data, ok := read(name)
	if !ok {
		return overlay
	}
	wf, err := modfile.ParseWork(name, data, nil)
	if err != nil {
		return overlay
	}
	dropped := false
	for _, rep := range wf.Replace {
		if OutsideReplace(root, u.Dir, rep) {
			_ = wf.DropReplace(rep.Old.Path, rep.Old.Version)
			dropped = true
		}
	}
	for _, use := range slices.Clone(wf.Use) {
		if MissingUse(u.Dir, use) {
			_ = wf.DropUse(use.Path)
			dropped = true
		}
	}
	if dropped {
		wf.Cleanup()
		overlay[name] = modfile.Format(wf.Syntax)
	}
	for _, use := range wf.Use {
		dir := filepath.FromSlash(use.Path)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(u.Dir, dir)
		}
		modFile(dir)
	}
	return overlay
}
