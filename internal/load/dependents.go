package load

import (
	"errors"
	"go/build"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Dependents returns the packages of units in which a declaration of one
// of the packages paths may be used: those packages, every package that
// imports one of them directly or through others, and every package whose
// tests import one of those (a package is loaded with its tests). Nothing
// outside that set can name the declaration, so loading it answers the
// uses of a declaration exactly, as a load of the whole workspace would,
// in a fraction of the packages. An external test package's path
// ("p_test") stands for its package p. The import lists are read from the
// files with go/build, as ListFiles reads the files, without the go
// command; like ListFiles it ignores settings written with `go env -w`.
//
// The paths are listed per unit, in the order of units, sorted, for each
// unit's load to take as its patterns; a path no unit has is left out.
func Dependents(units []Unit, paths ...string) [][]string {
	type node struct {
		unit        int
		imports     []string // of the package's own files
		testImports []string // of its test files, in-package and external
	}
	nodes := map[string]*node{}
	for i, u := range units {
		walkPackages(u, func(ctxt *build.Context, dir, importPath string, _ *packages.Module) {
			bp, err := ctxt.ImportDir(dir, build.ImportComment)
			var noGo *build.NoGoError
			if bp == nil || errors.As(err, &noGo) {
				return
			}
			if _, dup := nodes[importPath]; dup {
				return // the first unit to list a path loads it, as the index keeps the first
			}
			nodes[importPath] = &node{unit: i, imports: bp.Imports,
				testImports: append(slices.Clone(bp.TestImports), bp.XTestImports...)}
		})
	}
	importers := map[string][]string{}
	for path, n := range nodes {
		for _, imp := range n.imports {
			importers[imp] = append(importers[imp], path)
		}
	}
	in := map[string]bool{}
	var queue []string
	for _, p := range paths {
		if _, ok := nodes[p]; !ok {
			p = strings.TrimSuffix(p, "_test")
		}
		if _, ok := nodes[p]; ok && !in[p] {
			in[p] = true
			queue = append(queue, p)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range importers[p] {
			if !in[q] {
				in[q] = true
				queue = append(queue, q)
			}
		}
	}
	tested := map[string]bool{}
	for path, n := range nodes {
		if in[path] {
			continue
		}
		for _, imp := range n.testImports {
			if in[imp] {
				tested[path] = true
				break
			}
		}
	}
	out := make([][]string, len(units))
	for _, set := range []map[string]bool{in, tested} {
		for path := range set {
			u := nodes[path].unit
			out[u] = append(out[u], path)
		}
	}
	for _, l := range out {
		slices.Sort(l)
	}
	return out
}
