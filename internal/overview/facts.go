// Package overview reads what get_repository_overview says of a
// repository: its packages with their size, doc, import layer and uses
// from outside, the symbols most used, called and referenced, where the
// tests live, and the files recent commits changed most (read through
// internal/git). The tool pages and renders it.
package overview

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// Facts is what get_repository_overview reads of one repository's
// snapshot, ranked by the reference graph: every package with its size,
// doc, layer and uses from outside it, the most used symbols, and where
// the tests live.
type Facts struct {
	Status      graph.RepositoryStatus
	Packages    []Package // non-test packages, most used from outside first
	Layers      []Layer
	SetAside    int      // dependencies in import cycles the layers leave out (see importGraph.acyclic)
	API         []Symbol // exported symbols most used from outside their package
	Called      []Symbol // functions most called
	Used        []Symbol // symbols most referenced
	Tests       []Tests  // directories with tests, most test files first
	TestDirs    int      // directories with test files
	Unavailable []string // INDEXING_FAILED diagnostics of required modules not loaded, as "go.mod:LINE: message"
	Skipped     []string // what the index left out (graph.KindSkipped), as "PATH:LINE: message" ("PATH: message" without a line)
}

// TopSymbols bounds each list of symbols Read ranks.
const TopSymbols = 50

// Read reads and ranks the facts of repo.
func Read(ctx context.Context, v *session.View, repo graph.RepositoryStatus) (*Facts, error) {
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
	fx := &Facts{Status: repo}
	if repo.Diagnostics > 0 {
		diags, err := r.Diagnostics(ctx, repo.Name, 0)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading diagnostics")
		}
		for _, d := range diags {
			switch {
			case d.UnavailableModule():
				fx.Unavailable = append(fx.Unavailable, fmt.Sprintf("%s:%d: %s", d.Path, d.Line, d.Message))
			case d.Skipped() && d.Line > 0:
				fx.Skipped = append(fx.Skipped, fmt.Sprintf("%s:%d: %s", d.Path, d.Line, d.Message))
			case d.Skipped():
				fx.Skipped = append(fx.Skipped, fmt.Sprintf("%s: %s", d.Path, d.Message))
			}
		}
	}

	// Sizes and tests, per package and directory.
	type size struct{ files, bytes int }
	sizes := map[string]*size{}
	tests := map[string]*Tests{}
	for _, f := range files {
		if f.Ignored {
			continue
		}
		lang := graph.LanguageOf(f.Path)
		if f.Test || lang != graph.LanguageGo && graph.TestFile(f.Path) {
			dir := path.Dir(f.Path)
			t := tests[dir]
			if t == nil {
				t = &Tests{Dir: dir}
				tests[dir] = t
			}
			t.Files++
			if strings.HasSuffix(f.Package, "_test") {
				t.External = true
			}
			continue
		}
		if lang == "" {
			continue // not source of a language of the graph
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
		fx.Tests = append(fx.Tests, *t)
	}
	fx.TestDirs = len(fx.Tests)
	slices.SortFunc(fx.Tests, func(a, b Tests) int { return cmp.Or(b.Files-a.Files, strings.Compare(a.Dir, b.Dir)) })

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
	syms, err := r.SymbolsByKeys(ctx, graph.Dedupe(keys))
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading symbols")
	}
	symOf := map[string]graph.Symbol{}
	for _, s := range syms {
		if s.Repository == repo.Name {
			symOf[s.Key] = s
		}
	}
	fx.API = overviewSymbols(byExternal, symOf, func(s graph.Symbol) bool { return s.Exported },
		func(u graph.UseCount) int { return u.External })
	fx.Called = overviewSymbols(byCalls, symOf, func(s graph.Symbol) bool { return s.Kind.IsFunction() },
		func(u graph.UseCount) int { return u.Calls })
	fx.Used = overviewSymbols(byRefs, symOf, func(graph.Symbol) bool { return true },
		func(u graph.UseCount) int { return u.Refs })

	// Layers of the import graph.
	g, weight, err := readImportGraph(ctx, v, repo.Name, live, files, uses)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(live))
	for i, p := range live {
		paths[i] = p.Path
	}
	fx.SetAside = g.acyclic(paths, weight)
	layer := g.layers(paths)

	for _, p := range live {
		op := Package{Path: p.Path, Dir: p.Dir, Name: p.Name, Main: p.Name == "main",
			Layer: layer[p.Path], ExternalUses: external[p.Path], Imports: len(g[p.Path])}
		if s := sizes[p.Path]; s != nil {
			op.Files, op.Bytes = s.files, s.bytes
		}
		if t := tests[p.Dir]; t != nil {
			op.TestFiles = t.Files
		}
		if s, ok := symOf[packageKey(repo.Name, p.Path)]; ok {
			op.Doc = answer.DocSentence(s.Doc)
		}
		fx.Packages = append(fx.Packages, op)
	}
	slices.SortFunc(fx.Packages, func(a, b Package) int {
		return cmp.Or(b.ExternalUses-a.ExternalUses, strings.Compare(a.Dir, b.Dir))
	})
	top := 0
	for _, l := range layer {
		top = max(top, l)
	}
	if len(live) > 0 {
		fx.Layers = make([]Layer, top+1)
		for i := range fx.Layers {
			fx.Layers[i].Layer = i
		}
		for _, p := range fx.Packages { // most used first within a layer
			l := &fx.Layers[p.Layer]
			l.Packages = append(l.Packages, p.Dir)
		}
	}
	return fx, nil
}

// rankUses returns the TopSymbols uses with the largest score(u) > 0,
// package symbols left out (an import is not a use of an API).
func rankUses(uses []graph.UseCount, pkgKeys map[string]bool, score func(graph.UseCount) int) []graph.UseCount {
	var out []graph.UseCount
	for _, u := range uses {
		if score(u) > 0 && !pkgKeys[u.Target] {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b graph.UseCount) int { return cmp.Or(score(b)-score(a), strings.Compare(a.Target, b.Target)) })
	return out[:min(len(out), 4*TopSymbols)] // room for those keep drops
}

// overviewSymbols names the ranked uses whose symbol keep accepts, at most
// TopSymbols of them.
func overviewSymbols(ranked []graph.UseCount, symOf map[string]graph.Symbol, keep func(graph.Symbol) bool, score func(graph.UseCount) int) []Symbol {
	var out []Symbol
	for _, u := range ranked {
		s, ok := symOf[u.Target]
		if !ok || s.TestOnly || !keep(s) {
			continue
		}
		out = append(out, Symbol{Name: s.PackageName + "." + s.QualifiedName, Kind: string(s.Kind),
			Path: s.Path, Line: s.StartLine, StableKey: s.Key, Count: score(u)})
		if len(out) == TopSymbols {
			break
		}
	}
	return out
}
