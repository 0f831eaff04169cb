package query

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// repoFacts is what get_repository_overview reads of one repository's
// snapshot, ranked by the reference graph: every package with its size,
// doc, layer and uses from outside it, the most used symbols, and where
// the tests live.
type repoFacts struct {
	status      graph.RepositoryStatus
	packages    []OverviewPackage // non-test packages, most used from outside first
	layers      []OverviewLayer
	api         []OverviewSymbol // exported symbols most used from outside their package
	called      []OverviewSymbol // functions most called
	used        []OverviewSymbol // symbols most referenced
	tests       []OverviewTests  // directories with tests, most test files first
	testDirs    int              // directories with test files
	unavailable []string         // INDEXING_FAILED diagnostics of required modules not loaded, as "go.mod:LINE: message"
}

// topSymbols bounds each list of symbols readRepoFacts ranks.
const topSymbols = 50

// readRepoFacts reads and ranks the facts of repo.
func readRepoFacts(ctx context.Context, v *session.View, repo graph.RepositoryStatus) (*repoFacts, error) {
	r := v.Reader()
	pkgs, err := r.Packages(ctx, repo.Name)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading packages")
	}
	files, err := r.Files(ctx, repo.Name)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading files")
	}
	uses, err := r.UseCounts(ctx, repo.Name)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "counting uses")
	}
	fx := &repoFacts{status: repo}
	if repo.Diagnostics > 0 {
		diags, err := r.Diagnostics(ctx, repo.Name, 0)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading diagnostics")
		}
		for _, d := range diags {
			if d.UnavailableModule() {
				fx.unavailable = append(fx.unavailable, fmt.Sprintf("%s:%d: %s", d.Path, d.Line, d.Message))
			}
		}
	}

	// Sizes and tests, per package and directory.
	type size struct{ files, bytes int }
	sizes := map[string]*size{}
	tests := map[string]*OverviewTests{}
	for _, f := range files {
		if f.Ignored || !strings.HasSuffix(f.Path, ".go") {
			continue
		}
		if f.Test {
			dir := path.Dir(f.Path)
			t := tests[dir]
			if t == nil {
				t = &OverviewTests{Dir: dir}
				tests[dir] = t
			}
			t.Files++
			if strings.HasSuffix(f.Package, "_test") {
				t.External = true
			}
			continue
		}
		s := sizes[f.Package]
		if s == nil {
			s = &size{}
			sizes[f.Package] = s
		}
		s.files++
		s.bytes += int(f.Size)
	}
	for _, t := range tests {
		fx.tests = append(fx.tests, *t)
	}
	fx.testDirs = len(fx.tests)
	slices.SortFunc(fx.tests, func(a, b OverviewTests) int { return cmp.Or(b.Files-a.Files, strings.Compare(a.Dir, b.Dir)) })

	// Uses from outside each package, and the most used symbols.
	external := map[string]int{}
	pkgKeys := map[string]bool{}
	var live []graph.Package
	for _, p := range pkgs {
		if !p.TestOnly {
			live = append(live, p)
			pkgKeys[packageKey(repo.Name, p.Path)] = true
		}
	}
	for _, u := range uses {
		external[u.Package] += u.External
	}
	byExternal := rankUses(uses, pkgKeys, func(u graph.UseCount) int { return u.External })
	byCalls := rankUses(uses, pkgKeys, func(u graph.UseCount) int { return u.Calls })
	byRefs := rankUses(uses, pkgKeys, func(u graph.UseCount) int { return u.Refs })
	var keys []string
	for k := range pkgKeys {
		keys = append(keys, k)
	}
	for _, list := range [][]graph.UseCount{byExternal, byCalls, byRefs} {
		for _, u := range list {
			keys = append(keys, u.Target)
		}
	}
	syms, err := r.SymbolsByKeys(ctx, dedupe(keys))
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading symbols")
	}
	symOf := map[string]graph.Symbol{}
	for _, s := range syms {
		if s.Repository == repo.Name {
			symOf[s.Key] = s
		}
	}
	fx.api = overviewSymbols(byExternal, symOf, func(s graph.Symbol) bool { return s.Exported },
		func(u graph.UseCount) int { return u.External })
	fx.called = overviewSymbols(byCalls, symOf, func(s graph.Symbol) bool { return s.Kind.IsFunction() },
		func(u graph.UseCount) int { return u.Calls })
	fx.used = overviewSymbols(byRefs, symOf, func(graph.Symbol) bool { return true },
		func(u graph.UseCount) int { return u.Refs })

	// Layers of the import graph.
	g, err := readImportGraph(ctx, v, repo.Name, live, files)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(live))
	for i, p := range live {
		paths[i] = p.Path
	}
	layer := g.layers(paths)

	for _, p := range live {
		op := OverviewPackage{Path: p.Path, Dir: p.Dir, Name: p.Name, Main: p.Name == "main",
			Layer: layer[p.Path], ExternalUses: external[p.Path], Imports: len(g[p.Path])}
		if s := sizes[p.Path]; s != nil {
			op.Files, op.Bytes = s.files, s.bytes
		}
		if t := tests[p.Dir]; t != nil {
			op.TestFiles = t.Files
		}
		if s, ok := symOf[packageKey(repo.Name, p.Path)]; ok {
			op.Doc = docSentence(s.Doc)
		}
		fx.packages = append(fx.packages, op)
	}
	slices.SortFunc(fx.packages, func(a, b OverviewPackage) int {
		return cmp.Or(b.ExternalUses-a.ExternalUses, strings.Compare(a.Dir, b.Dir))
	})
	top := 0
	for _, l := range layer {
		top = max(top, l)
	}
	if len(live) > 0 {
		fx.layers = make([]OverviewLayer, top+1)
		for i := range fx.layers {
			fx.layers[i].Layer = i
		}
		for _, p := range fx.packages { // most used first within a layer
			l := &fx.layers[p.Layer]
			l.Packages = append(l.Packages, p.Dir)
		}
	}
	return fx, nil
}

// rankUses returns the topSymbols uses with the largest score(u) > 0,
// package symbols left out (an import is not a use of an API).
func rankUses(uses []graph.UseCount, pkgKeys map[string]bool, score func(graph.UseCount) int) []graph.UseCount {
	var out []graph.UseCount
	for _, u := range uses {
		if score(u) > 0 && !pkgKeys[u.Target] {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b graph.UseCount) int { return cmp.Or(score(b)-score(a), strings.Compare(a.Target, b.Target)) })
	return out[:min(len(out), 4*topSymbols)] // room for those keep drops
}

// overviewSymbols names the ranked uses whose symbol keep accepts, at most
// topSymbols of them.
func overviewSymbols(ranked []graph.UseCount, symOf map[string]graph.Symbol, keep func(graph.Symbol) bool, score func(graph.UseCount) int) []OverviewSymbol {
	var out []OverviewSymbol
	for _, u := range ranked {
		s, ok := symOf[u.Target]
		if !ok || s.TestOnly || !keep(s) {
			continue
		}
		out = append(out, OverviewSymbol{Name: s.PackageName + "." + s.QualifiedName, Kind: string(s.Kind),
			Path: s.Path, Line: s.StartLine, StableKey: s.Key, Count: score(u)})
		if len(out) == topSymbols {
			break
		}
	}
	return out
}
