package index

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
)

// Check indexes into store a part of the repository at root: the
// packages paths and the packages that depend on them (load.Dependents),
// type-checked in full with their tests, their other dependencies from
// source without function bodies, and publishes them as a snapshot of
// stage graph.StageTypes: their packages, files, symbols, references and
// implementations, and no call graph. name is the repository's name in
// the store whose snapshot this one stands in for: keys hash it. With
// ident set, the dependents none of whose files spells ident
// (load.Spells) are checked only as dependencies, without their bodies:
// no use of a declaration called ident lies in them.
//
// It is how a question about the uses of a declaration is answered
// before the whole repository is type-checked: every use of a
// declaration of paths is in those packages, and each is recorded as the
// whole index records it (the same records of the same variants), while
// the rest of the repository, however large, is not checked. References
// to declarations outside paths are partial in it and answer nothing.
// Result.Packages counts the packages written; Result.KeepTypes keeps
// the types of the dependencies checked, as after Index.
func Check(ctx context.Context, store graph.Store, root, name string, paths []string, ident string) (Result, error) {
	started := time.Now()
	abs, err := canonicalRoot(root)
	if err != nil {
		return Result{}, err
	}
	plan, err := load.Discover(abs)
	if err != nil {
		return Result{}, err
	}
	closure := load.Dependents(plan.Units, paths...)
	seeds := map[string]bool{}
	for _, p := range paths {
		seeds[p] = true
		seeds[strings.TrimSuffix(p, "_test")] = true
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
			_ = w.Abort()
		}
	}()
	if st, ok := w.(graph.Stager); ok {
		st.SetStage(graph.StageTypes)
	}
	x, err := newExtractor(repo.Name, abs, plan.Modules)
	if err != nil {
		return Result{}, err
	}
	res := Result{Repository: repo, Modules: len(plan.Modules), Build: load.Build(os.Environ())}
	setProvenance(w, &res)
	var recs []PackageRecords
	seen := map[string]bool{}
	var keeps []func() // see Result.KeepTypes
	for i, u := range plan.Units {
		u.Patterns = nil
		for _, d := range closure[i] {
			if ident == "" || seeds[d.Path] || load.Spells(d.Files, ident) {
				u.Patterns = append(u.Patterns, d.Path)
			}
		}
		if len(u.Patterns) == 0 {
			continue
		}
		pkgs, keep, err := load.LoadWhen(ctx, u, nil)
		if err != nil {
			return Result{}, fmt.Errorf("checking %s: %w", abs, err)
		}
		keeps = append(keeps, keep)
		for _, g := range selectPackages(pkgs) {
			if err := ctx.Err(); err != nil {
				return Result{}, fmt.Errorf("checking %s: %w", abs, err)
			}
			rec, xr := x.extract(ctx, g)
			release(g)
			if seen[rec.Package.Path] {
				continue // as Index keeps the first package of a path
			}
			seen[rec.Package.Path] = true
			x.keep(xr)
			recs = append(recs, rec)
		}
	}
	if len(recs) == 0 {
		return Result{}, graph.Errorf(graph.CodeIndexingFailed, "no package of %v under %s could be checked", paths, abs)
	}
	for i := range recs {
		if err := writePackage(ctx, w, &recs[i], &res); err != nil {
			return Result{}, err
		}
	}
	sink := Sink{
		Refs:       func(refs []graph.Ref) error { return w.AddRefs(ctx, refs) },
		Implements: func(impls []graph.Implements) error { return w.AddImplements(ctx, impls) },
	}
	kept := x.xt.resolver()
	if res.Refs, err = x.flushRefs(ctx, kept, sink); err == nil {
		res.Implementations, err = x.flushImpls(ctx, kept, sink)
	}
	if err != nil {
		return Result{}, fmt.Errorf("writing cross-references: %w", err)
	}
	if missing := x.missingModules(); len(missing) > 0 {
		if err := w.AddDiagnostics(ctx, missing); err != nil {
			return Result{}, fmt.Errorf("writing diagnostics: %w", err)
		}
		res.Unavailable = missing
	}
	snap, err := w.Publish(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("publishing snapshot: %w", err)
	}
	published = true
	res.Snapshot = snap
	res.Duration = time.Since(started)
	res.keepTypes = func() {
		for _, keep := range keeps {
			keep()
		}
	}
	return res, nil
}
