package index

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
)

// PhaseSyntax is reported once the syntax stage of a staged index (see
// Options.Staged) is published: its symbols can be answered from while
// the types are checked.
const PhaseSyntax = "syntax"

// parseAll parses the Go files of pkgs on every CPU, each file once, and
// gives each package its syntax, as the extractor would parse it on its
// own one file at a time (comments kept, no object resolution). Files
// that must not be read (load.NotReadable: a FIFO, a link out of root)
// are left to the extractor, which records them unread.
func parseAll(root string, pkgs []*packages.Package) {
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	var names []string
	for _, p := range pkgs {
		for _, name := range p.GoFiles {
			if _, ok := files[name]; !ok {
				files[name] = nil
				names = append(names, name)
			}
		}
	}
	parsed := make([]*ast.File, len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) {
					return
				}
				if load.NotReadable(root, names[i]) != "" {
					continue
				}
				src, err := os.ReadFile(names[i])
				if err != nil {
					continue // the extractor reads it again and reports it
				}
				f, _ := parser.ParseFile(fset, names[i], src, parser.ParseComments|parser.SkipObjectResolution)
				parsed[i] = f
			}
		}()
	}
	wg.Wait()
	for i, name := range names {
		files[name] = parsed[i]
	}
	for _, p := range pkgs {
		p.Fset = fset
		p.Syntax = p.Syntax[:0]
		for _, name := range p.GoFiles {
			if f := files[name]; f != nil {
				p.Syntax = append(p.Syntax, f)
			}
		}
	}
}

// hasSnapshot reports whether the repository at root has a published
// snapshot in store.
func hasSnapshot(ctx context.Context, store graph.Store, root string) (bool, error) {
	repos, err := graph.Repositories(ctx, store)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(repos, func(rp graph.RepositoryStatus) bool { return rp.Root == root }), nil
}

// publishSyntax publishes the syntax stage of a first index: every
// package the go command lists (no dependency, no type), its files and
// the symbols read from their syntax, as a snapshot of stage
// graph.StageSyntax, so that the questions syntax answers exactly (where
// a symbol is declared, a file's outline, its source) are answered
// within seconds while the types are checked. It does nothing for a
// store that cannot mark a stage. A failure is not the index's: the
// complete snapshot follows either way.
func publishSyntax(ctx context.Context, store graph.Store, repo graph.Repository, abs, head string, plan load.Plan) error {
	w, err := store.BeginSnapshot(ctx, repo, head)
	if err != nil {
		return err
	}
	st, ok := w.(graph.Stager)
	if !ok {
		return w.Abort()
	}
	published := false
	defer func() {
		if !published {
			_ = w.Abort()
		}
	}()
	st.SetStage(graph.StageSyntax)
	x, err := newExtractor(repo.Name, abs, plan.Modules)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, u := range plan.Units {
		pkgs := load.ListFiles(u)
		parseAll(abs, pkgs)
		for _, g := range selectPackages(pkgs) {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec, _ := x.extract(g)
			if seen[rec.Package.Path] {
				continue
			}
			seen[rec.Package.Path] = true
			if err := w.AddPackage(ctx, rec.Package, rec.Files, rec.Symbols, rec.Diagnostics); err != nil {
				return fmt.Errorf("writing package %s: %w", rec.Package.Path, err)
			}
		}
	}
	if err := w.AddModules(ctx, plan.Modules); err != nil {
		return err
	}
	if err := w.AddFiles(ctx, manifestFiles(abs, plan.Manifests)); err != nil {
		return err
	}
	if _, err := w.Publish(ctx); err != nil {
		return err
	}
	published = true
	return nil
}
