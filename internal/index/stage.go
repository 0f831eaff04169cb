package index

import (
	"context"
	"crypto/sha256"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/par"
)

// PhaseSyntax is reported once the syntax stage of a staged index (see
// Options.Staged) is published: its symbols can be answered from while
// the types are checked.
const PhaseSyntax = "syntax"

// PhaseTypes is reported, Done = Total = 1, once the types stage of a
// staged index is published: references, implementations and types can be
// answered from while the call graph is computed.
const PhaseTypes = "types"

// publishTypes publishes the types stage of a first index: everything w
// has been given (packages, symbols, references, implementations) and
// diags, the diagnostics known before the call graph ends, as the current
// snapshot of stage graph.StageTypes, while w goes on to the call edges
// and effects.
func publishTypes(ctx context.Context, w graph.SnapshotWriter, sp graph.StagePublisher, diags []graph.Diagnostic) error {
	if len(diags) > 0 {
		if err := w.AddDiagnostics(ctx, diags); err != nil {
			return fmt.Errorf("writing diagnostics: %w", err)
		}
	}
	if _, err := sp.PublishStage(ctx, graph.StageTypes); err != nil {
		return fmt.Errorf("publishing the types stage: %w", err)
	}
	return nil
}

// parseAll parses the Go files of pkgs on every CPU, each file once, and
// gives each package its syntax, as the extractor would parse it on its
// own one file at a time (comments kept, no object resolution), and as
// the load parses a file of an initial package (load.ParseMode), which
// takes the parse from the returned files. Files that must not be read
// (load.NotReadable: a FIFO, a link out of root) are left to the
// extractor, which records them unread.
func parseAll(root string, pkgs []*packages.Package) *load.Parsed {
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
	parsed := make([]load.ParsedFile, len(names))
	par.Each(len(names), func(i int) {
		if load.NotReadable(root, names[i]) != "" {
			return
		}
		src, err := os.ReadFile(names[i])
		if err != nil {
			return // the extractor reads it again and reports it
		}
		f, err := parser.ParseFile(fset, names[i], src, load.ParseMode)
		parsed[i] = load.ParsedFile{File: f, Err: err, Sum: sha256.Sum256(src)}
	})
	ahead := &load.Parsed{Fset: fset, Files: make(map[string]load.ParsedFile, len(names))}
	for i, name := range names {
		files[name] = parsed[i].File
		if parsed[i].File != nil {
			ahead.Files[name] = parsed[i]
		}
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
	return ahead
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
// complete snapshot follows either way. It returns the first unit's
// files as it parsed them, for its load to take (nil for a store that
// cannot mark a stage), and calls parsed once it has parsed them (or
// failed to).
func publishSyntax(ctx context.Context, store graph.Store, repo graph.Repository, abs, head string, plan load.Plan, parsed func()) (ahead *load.Parsed, _ error) {
	defer parsed()
	w, err := store.BeginSnapshot(ctx, repo, head)
	if err != nil {
		return nil, err
	}
	st, ok := w.(graph.Stager)
	if !ok {
		return nil, w.Abort()
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
		return ahead, err
	}
	seen := map[string]bool{}
	for i, u := range plan.Units {
		pkgs := load.ListFiles(u)
		if files := parseAll(abs, pkgs); i == 0 {
			ahead = files
			parsed()
		}
		for _, g := range selectPackages(pkgs) {
			if err := ctx.Err(); err != nil {
				return ahead, err
			}
			rec, _ := x.extract(ctx, g)
			if seen[rec.Package.Path] {
				continue
			}
			seen[rec.Package.Path] = true
			if err := w.AddPackage(ctx, rec.Package, rec.Files, rec.Symbols, rec.Diagnostics); err != nil {
				return ahead, fmt.Errorf("writing package %s: %w", rec.Package.Path, err)
			}
		}
	}
	if err := w.AddModules(ctx, plan.Modules); err != nil {
		return ahead, err
	}
	if err := w.AddFiles(ctx, manifestFiles(abs, plan.Manifests)); err != nil {
		return ahead, err
	}
	setProvenance(w, &Result{Build: load.Build(os.Environ())})
	if _, err := w.Publish(ctx); err != nil {
		return ahead, err
	}
	published = true
	return ahead, nil
}
