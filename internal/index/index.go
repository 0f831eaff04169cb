// Package index turns type-checked Go packages into graph records and
// writes them to a store as one snapshot.
//
// Extract is the pure part: packages loaded by internal/load in, one
// PackageRecords per package out (the package, its files with content
// hashes, its declared symbols with stable keys, signatures, docs and
// character-accurate ranges, and its diagnostics). Index is the whole job
// for one repository: discover its modules, load them, extract every
// package and publish the snapshot atomically, so a reader sees either the
// previous snapshot or the complete new one.
package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
)

// Options tune one Index run.
type Options struct {
	// Progress, when set, is called as indexing moves on, from the
	// goroutine that called Index. It must not block for long: indexing
	// waits for it.
	Progress func(Progress)
}

// The phases Progress reports, in the order they happen.
const (
	PhaseDiscover = "discover" // walking the root for modules
	PhaseLoad     = "load"     // go/packages: listing, parsing, type-checking (Done/Total count load units)
	PhaseExtract  = "extract"  // building and writing records (Done/Total count packages)
	PhasePublish  = "publish"  // making the snapshot current
)

// Progress is a report of how far indexing has got, for a progress bar or
// an MCP progress notification.
type Progress struct {
	Phase string
	Done  int
	Total int
	// Message says what is being worked on, e.g. the module being loaded
	// or the package being extracted; it may be empty.
	Message string
}

// Result describes a published snapshot.
type Result struct {
	Repository  graph.Repository
	Snapshot    graph.Snapshot
	Modules     int
	Packages    int
	Files       int
	Symbols     int
	Diagnostics int
	Duration    time.Duration
}

// Index indexes the Go code under root into store as a new snapshot of
// the repository at root, and publishes it.
//
// The repository is named after the module at root, or after the
// directory when root holds no module of its own (a go.work or a tree of
// nested modules). Packages that do not compile are indexed as far as
// they go, with their errors as diagnostics; a module that fails to load
// as a whole is a diagnostic too, as long as something else loads. Index
// fails with graph.CodeIndexingFailed when there is nothing to index. When
// ctx ends or a write fails, the snapshot is aborted and the previous one
// keeps serving.
func Index(ctx context.Context, store graph.Store, root string, opts Options) (Result, error) {
	started := time.Now()
	report := func(phase string, done, total int, msg string) {
		if opts.Progress != nil {
			opts.Progress(Progress{Phase: phase, Done: done, Total: total, Message: msg})
		}
	}

	abs, err := filepath.Abs(root)
	if err != nil {
		return Result{}, fmt.Errorf("resolving root: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	} else {
		return Result{}, graph.Wrap(graph.CodeIndexingFailed, err, fmt.Sprintf("cannot read %s", abs))
	}

	report(PhaseDiscover, 0, 0, abs)
	plan, err := load.Discover(abs)
	if err != nil {
		return Result{}, err
	}
	name := filepath.Base(abs)
	for _, m := range plan.Modules {
		if m.Dir == "." {
			name = m.Path
		}
	}

	// Load everything before the snapshot begins, so a store transaction
	// is never held open across the slow part.
	diags := append([]graph.Diagnostic(nil), plan.Diagnostics...)
	var pkgs []*packages.Package
	loaded := 0
	for i, u := range plan.Units {
		report(PhaseLoad, i, len(plan.Units), unitLabel(u))
		ps, err := load.Load(ctx, u)
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
		}
		if err != nil {
			diags = append(diags, graph.Diagnostic{Path: u.Manifest(abs), Kind: "list", Message: err.Error()})
			continue
		}
		loaded++
		pkgs = append(pkgs, ps...)
	}
	report(PhaseLoad, len(plan.Units), len(plan.Units), "")
	if loaded == 0 {
		return Result{}, graph.Errorf(graph.CodeIndexingFailed,
			"no module under %s could be loaded; see diagnostics", abs).WithData("diagnostics", diags)
	}

	repo, err := store.EnsureRepository(ctx, abs, name)
	if err != nil {
		return Result{}, fmt.Errorf("registering repository: %w", err)
	}
	w, err := store.BeginSnapshot(ctx, repo, vcsHead(abs))
	if err != nil {
		return Result{}, fmt.Errorf("beginning snapshot: %w", err)
	}
	published := false
	defer func() {
		if !published {
			_ = w.Abort() // the write already failed; the previous snapshot keeps serving
		}
	}()

	res := Result{Repository: repo, Modules: len(plan.Modules)}
	if err := w.AddModules(ctx, plan.Modules); err != nil {
		return Result{}, fmt.Errorf("writing modules: %w", err)
	}
	manifests := manifestFiles(abs, plan.Manifests)
	if err := w.AddFiles(ctx, manifests); err != nil {
		return Result{}, fmt.Errorf("writing manifest files: %w", err)
	}
	res.Files = len(manifests)

	x, err := newExtractor(repo.Name, abs, plan.Modules)
	if err != nil {
		return Result{}, err
	}
	groups := selectPackages(pkgs)
	pkgs = nil
	for i, g := range groups {
		report(PhaseExtract, i, len(groups), g.path)
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("indexing %s: %w", abs, err)
		}
		rec := x.extract(g)
		release(g)
		groups[i] = nil
		if err := w.AddPackage(ctx, rec.Package, rec.Files, rec.Symbols, rec.Diagnostics); err != nil {
			return Result{}, fmt.Errorf("writing package %s: %w", rec.Package.Path, err)
		}
		res.Packages++
		res.Files += len(rec.Files)
		res.Symbols += len(rec.Symbols)
		res.Diagnostics += len(rec.Diagnostics)
	}
	report(PhaseExtract, len(groups), len(groups), "")
	if len(diags) > 0 {
		if err := w.AddDiagnostics(ctx, diags); err != nil {
			return Result{}, fmt.Errorf("writing diagnostics: %w", err)
		}
		res.Diagnostics += len(diags)
	}

	report(PhasePublish, 0, 1, "")
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("indexing %s: %w", abs, err)
	}
	snap, err := w.Publish(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("publishing snapshot: %w", err)
	}
	published = true
	report(PhasePublish, 1, 1, "")
	res.Snapshot = snap
	res.Duration = time.Since(started)
	return res, nil
}

// release drops the syntax trees and type information of every variant in
// g once its records are built, so the garbage collector can reclaim them
// while the remaining packages are written.
func release(g *group) {
	for _, p := range g.variants {
		p.Syntax = nil
		p.TypesInfo = nil
		p.Types = nil
	}
}

// manifestFiles records the go.mod, go.sum and go.work files of the plan
// as files of no package: they decide what every package resolves to, so
// a freshness check that compares them with the disk knows when a change
// there calls for re-indexing.
func manifestFiles(root string, paths []string) []graph.File {
	files := make([]graph.File, 0, len(paths))
	for _, rel := range paths {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		content, err := os.ReadFile(abs)
		if err != nil {
			continue // gone since Discover; the next freshness check sees it
		}
		f := graph.File{Path: rel, Hash: hashBytes(content), Size: int64(len(content))}
		if info, err := os.Stat(abs); err == nil {
			f.ModTimeNS = info.ModTime().UnixNano()
		}
		files = append(files, f)
	}
	return files
}

// unitLabel names a load unit for progress messages: its modules' paths.
func unitLabel(u load.Unit) string {
	paths := make([]string, 0, len(u.Modules))
	for _, m := range u.Modules {
		paths = append(paths, m.Path)
	}
	return strings.Join(paths, ", ")
}
