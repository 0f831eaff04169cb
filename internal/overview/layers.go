package overview

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// importGraph is the in-repository import graph of one snapshot: for each
// package (by import path), the packages of the same repository its
// non-test files import. A Go package's is read from the index's import
// references to package symbols, so it is the compiler's, not a guess
// from paths. A package of another language (TypeScript, JavaScript,
// Python) imports the packages whose declarations its non-test files
// use: its imports name the declarations imported, not a package, and an
// import statement over several lines is not read as one.
type importGraph map[string][]string

// dependency is one edge of an importGraph: from imports to.
type dependency struct{ from, to string }

// packageKey is the stable key of a package's symbol (its package clause).
func packageKey(repo, pkgPath string) string {
	return graph.StableKey(graph.Identity{Language: "go", Repository: repo, PackagePath: pkgPath,
		QualifiedName: pkgPath, Kind: graph.KindPackage})
}

// readImportGraph reads the import graph of repo's packages pkgs, whose
// files are files and whose declarations' uses are uses, with the number
// of references behind each dependency.
func readImportGraph(ctx context.Context, v *session.View, repo string, pkgs []graph.Package, files []graph.File, uses []graph.UseCount) (importGraph, map[dependency]int, error) {
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
		return nil, nil, graph.Wrap(graph.CodeInternal, err, "reading imports")
	}
	g := importGraph{}
	weight := map[dependency]int{}
	add := func(r graph.Ref, from, to string) {
		if r.Repository != repo || from == "" || to == "" || from == to {
			return
		}
		d := dependency{from, to}
		if weight[d] == 0 {
			g[from] = append(g[from], to)
		}
		weight[d]++
	}
	for _, r := range refs {
		add(r, pkgOf[r.Path], byKey[r.Target])
	}
	// The other languages' packages: the uses from outside a package of
	// its declarations, by the package of the file using them.
	live := map[string]bool{}
	for _, p := range pkgs {
		live[p.Path] = true
	}
	other := map[string]bool{}
	for _, f := range files {
		if lang := graph.LanguageOf(f.Path); lang != "" && lang != graph.LanguageGo && live[f.Package] {
			other[f.Package] = true
		}
	}
	declared := map[string]string{}
	var used []string
	for _, u := range uses {
		if u.External > 0 && other[u.Package] {
			declared[u.Target] = u.Package
			used = append(used, u.Target)
		}
	}
	if len(used) > 0 {
		refs, _, err := v.Reader().Refs(ctx, graph.RefQuery{Targets: used})
		if err != nil {
			return nil, nil, graph.Wrap(graph.CodeInternal, err, "reading uses across packages")
		}
		for _, r := range refs {
			if from := pkgOf[r.Path]; other[from] {
				add(r, from, declared[r.Target])
			}
		}
	}
	for _, deps := range g {
		sort.Strings(deps)
	}
	return g, weight, nil
}

// acyclic removes from g, while it has an import cycle, the dependency of
// each cycle with the fewest references behind it (by weight; the first
// by name of the tied), and returns how many it removed. What is left is
// the architecture a few stray uses hid: in a TypeScript monorepo whose
// packages use each other, a handful of uses of a higher package's type
// from a lower one.
func (g importGraph) acyclic(pkgs []string, weight map[dependency]int) int {
	removed := 0
	for {
		cut := false
		for _, comp := range g.components(pkgs) {
			if len(comp) < 2 {
				continue
			}
			in := map[string]bool{}
			for _, p := range comp {
				in[p] = true
			}
			var lightest dependency
			lighter := func(e dependency) bool {
				return lightest.from == "" || cmp.Or(cmp.Compare(weight[e], weight[lightest]),
					strings.Compare(e.from, lightest.from), strings.Compare(e.to, lightest.to)) < 0
			}
			for _, p := range comp {
				for _, d := range g[p] {
					if e := (dependency{p, d}); in[d] && lighter(e) {
						lightest = e
					}
				}
			}
			g[lightest.from] = slices.DeleteFunc(g[lightest.from], func(d string) bool { return d == lightest.to })
			removed++
			cut = true
		}
		if !cut {
			return removed
		}
	}
}

// layers assigns each package of pkgs a layer: 0 when it imports no
// package of the graph, else one more than the highest layer it imports.
// Packages on one layer never import each other, and every import points
// to a lower layer: the repository's architecture, bottom up. The
// packages of an import cycle (impossible in compiled Go, possible in a
// broken snapshot and between the modules of other languages; see
// acyclic) share a layer, above every package one of them imports.
func (g importGraph) layers(pkgs []string) map[string]int {
	layer := map[string]int{}
	for _, comp := range g.components(pkgs) {
		in := map[string]bool{}
		for _, p := range comp {
			in[p] = true
		}
		l := 0
		for _, p := range comp {
			for _, d := range g[p] {
				if !in[d] {
					l = max(l, layer[d]+1)
				}
			}
		}
		for _, p := range comp {
			layer[p] = l
		}
	}
	return layer
}

// components returns the strongly connected components of the graph
// reached from pkgs (Tarjan's), each after every component it imports.
func (g importGraph) components(pkgs []string) [][]string {
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(p string)
	visit = func(p string) {
		index[p] = len(index)
		low[p] = index[p]
		stack = append(stack, p)
		onStack[p] = true
		for _, d := range g[p] {
			if _, seen := index[d]; !seen {
				visit(d)
				low[p] = min(low[p], low[d])
			} else if onStack[d] {
				low[p] = min(low[p], index[d])
			}
		}
		if low[p] != index[p] {
			return
		}
		i := len(stack) - 1
		for stack[i] != p {
			i--
		}
		comp := slices.Clone(stack[i:])
		stack = stack[:i]
		for _, q := range comp {
			onStack[q] = false
		}
		out = append(out, comp)
	}
	for _, p := range pkgs {
		if _, seen := index[p]; !seen {
			visit(p)
		}
	}
	return out
}
