package overview

import (
	"context"
	"sort"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// importGraph is the in-repository import graph of one snapshot: for each
// package (by import path), the packages of the same repository its
// non-test files import. It is read from the index's import references to
// package symbols, so it is the compiler's, not a guess from paths.
type importGraph map[string][]string

// packageKey is the stable key of a package's symbol (its package clause).
func packageKey(repo, pkgPath string) string {
	return graph.StableKey(graph.Identity{Language: "go", Repository: repo, PackagePath: pkgPath,
		QualifiedName: pkgPath, Kind: graph.KindPackage})
}

// readImportGraph reads the import graph of repo's packages pkgs, whose
// files are files.
func readImportGraph(ctx context.Context, v *session.View, repo string, pkgs []graph.Package, files []graph.File) (importGraph, error) {
	byKey := map[string]string{}
	keys := make([]string, 0, len(pkgs))
	for _, p := range pkgs {
		k := packageKey(repo, p.Path)
		byKey[k] = p.Path
		keys = append(keys, k)
	}
	pkgOf := map[string]string{}
	for _, f := range files {
		pkgOf[f.Path] = f.Package
	}
	refs, _, err := v.Reader().Refs(ctx, graph.RefQuery{Targets: keys, Kinds: []graph.RefKind{graph.RefImport}})
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading imports")
	}
	g := importGraph{}
	seen := map[[2]string]bool{}
	for _, r := range refs {
		from, to := pkgOf[r.Path], byKey[r.Target]
		if r.Repository != repo || from == "" || to == "" || from == to || seen[[2]string{from, to}] {
			continue
		}
		seen[[2]string{from, to}] = true
		g[from] = append(g[from], to)
	}
	for _, deps := range g {
		sort.Strings(deps)
	}
	return g, nil
}

// layers assigns each package of pkgs a layer: 0 when it imports no
// package of the graph, else one more than the highest layer it imports.
// Packages on one layer never import each other, and every import points
// to a lower layer: the repository's architecture, bottom up. An import
// cycle (impossible in compiled Go, possible in a broken snapshot) is cut
// where it is found.
func (g importGraph) layers(pkgs []string) map[string]int {
	layer := map[string]int{}
	const visiting = -1
	var visit func(p string) int
	visit = func(p string) int {
		if l, ok := layer[p]; ok {
			return max(l, 0)
		}
		layer[p] = visiting
		l := 0
		for _, d := range g[p] {
			l = max(l, visit(d)+1)
		}
		layer[p] = l
		return l
	}
	for _, p := range pkgs {
		visit(p)
	}
	return layer
}
