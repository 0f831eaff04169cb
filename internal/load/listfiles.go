package load

import (
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// ListFiles lists the packages of u with their Go files and the files
// build constraints exclude, as `go list -test` does for u's patterns, but
// from the directory tree and go/build's file selection alone, without
// the go command: for a stage that needs only files and package names
// (the syntax stage of an index), within milliseconds instead of the
// seconds the go command takes to load the module graph. Each package
// with tests comes with its test variants ("p [p.test]", and
// "p_test [p.test]" for an external test package), like go list's.
//
// The build context is the environment's (GOOS, GOARCH, CGO_ENABLED,
// -tags in GOFLAGS); settings written with `go env -w` are not read, so
// the complete load, which asks the go command, may differ in which
// files it excludes.
func ListFiles(u Unit) []*packages.Package {
	var out []*packages.Package
	walkPackages(u, func(ctxt *build.Context, dir, importPath string, mod *packages.Module) {
		out = append(out, dirPackages(ctxt, dir, importPath, mod)...)
	})
	return out
}

// walkPackages calls fn with each directory of u's modules that may hold
// a package, and the import path it would have, as "./..." walks them:
// without the directories the go command skips and the nested modules.
// ctxt is the build context of u's environment, reading the files the go
// command is not let read as their stubs.
func walkPackages(u Unit, fn func(ctxt *build.Context, dir, importPath string, mod *packages.Module)) {
	ctxt := buildContext(Env(os.Environ(), u))
	// Files the go command is not let read (FIFOs, links out of the root)
	// are read as their stubs here too.
	ctxt.OpenFile = func(name string) (io.ReadCloser, error) {
		if data, ok := u.Overlay[name]; ok {
			return io.NopCloser(bytes.NewReader(data)), nil
		}
		return os.Open(name)
	}
	for _, m := range u.Modules {
		dir := u.Dir
		if u.Workspace {
			dir = filepath.Join(u.Dir, filepath.FromSlash(m.Dir))
		}
		mod := &packages.Module{Path: m.Path, Dir: dir, GoVersion: m.GoVersion, Main: true}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if p != dir {
				if SkipDir(d.Name()) {
					return filepath.SkipDir
				}
				if _, err := os.Lstat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // a module of its own
				}
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return nil
			}
			importPath := m.Path
			if rel != "." {
				importPath = path.Join(m.Path, filepath.ToSlash(rel))
			}
			fn(ctxt, p, importPath, mod)
			return nil
		})
	}
}

// dirPackages returns the packages of one directory: the package, its
// in-package test variant and its external test package, as go list names
// them; none when the directory has no Go file to build.
func dirPackages(ctxt *build.Context, dir, importPath string, mod *packages.Module) []*packages.Package {
	bp, err := ctxt.ImportDir(dir, build.ImportComment)
	var noGo *build.NoGoError
	if bp == nil || errors.As(err, &noGo) {
		return nil // as ./... matches no directory whose every file is excluded
	}
	abs := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			for _, f := range l {
				out = append(out, filepath.Join(dir, f))
			}
		}
		return out
	}
	ignored := abs(bp.IgnoredGoFiles, bp.InvalidGoFiles)
	p := &packages.Package{ID: importPath, PkgPath: importPath, Name: bp.Name, Module: mod, Dir: dir,
		GoFiles: abs(bp.GoFiles, bp.CgoFiles), IgnoredFiles: ignored}
	out := []*packages.Package{p}
	test := importPath + ".test"
	if len(bp.TestGoFiles) > 0 {
		out = append(out, &packages.Package{ID: importPath + " [" + test + "]", PkgPath: importPath, Name: bp.Name, Module: mod, Dir: dir,
			GoFiles: abs(bp.GoFiles, bp.CgoFiles, bp.TestGoFiles), IgnoredFiles: ignored})
	}
	if len(bp.XTestGoFiles) > 0 {
		name := bp.Name + "_test"
		out = append(out, &packages.Package{ID: importPath + "_test [" + test + "]", PkgPath: importPath + "_test", Name: name, Module: mod, Dir: dir,
			GoFiles: abs(bp.XTestGoFiles)})
	}
	return out
}

// buildContext is go/build's default context with the GOOS, GOARCH,
// CGO_ENABLED and build tags that env sets.
func buildContext(env []string) *build.Context {
	ctxt := build.Default
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GOOS":
			ctxt.GOOS = v
		case "GOARCH":
			ctxt.GOARCH = v
		case "CGO_ENABLED":
			ctxt.CgoEnabled = v == "1"
		case "GOFLAGS":
			for _, f := range strings.Fields(v) {
				if tags, ok := strings.CutPrefix(strings.TrimPrefix(f, "-"), "-tags="); ok {
					ctxt.BuildTags = strings.Split(tags, ",")
				} else if tags, ok := strings.CutPrefix(f, "-tags="); ok {
					ctxt.BuildTags = strings.Split(tags, ",")
				}
			}
		}
	}
	return &ctxt
}

// Build names the build configuration a load with env sees: GOOS, GOARCH
// and the build tags of GOFLAGS, as "GOOS=linux GOARCH=amd64 tags=none".
// The go command and the file lists read them from the environment
// (Env keeps GOOS, GOARCH and GOFLAGS' -tags), so setting them is how
// another configuration is indexed; the index summary and the overview
// say which one was.
func Build(env []string) string {
	ctxt := buildContext(env)
	tags := "none"
	if len(ctxt.BuildTags) > 0 {
		tags = strings.Join(ctxt.BuildTags, ",")
	}
	return fmt.Sprintf("GOOS=%s GOARCH=%s tags=%s", ctxt.GOOS, ctxt.GOARCH, tags)
}
