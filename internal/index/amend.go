package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"go/types"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/load"
)

// Refresh brings the repository at root up to date with the disk, as
// cheaply as it can: when the store can amend (graph.Amender) and the
// edit since the current snapshot touched only the Go files of a few
// existing package directories without changing their types and methods,
// it re-derives just those packages (and, when their other declarations
// changed, the packages that import them) and amends the snapshot;
// otherwise, or when the snapshot holds records of another format than
// this build writes (graph.Snapshot.Format), it indexes the repository
// whole with Index.
//
// What an amend re-derives is exact for what the packages contain:
// their files, symbols, diagnostics, references, the call edges out of
// their functions, resolved as the compiler resolves them, and their
// effect rows, from their bodies and the stored rows of what they call.
// References and static calls into them from other packages are
// unchanged, because what they declare is unchanged (the API hash of
// graph.Package), or those packages are re-derived too. What depends on
// the whole program is carried over from the base: the call edges that go
// through interfaces and function values (VTA needs every body: a changed
// body can make a new type flow into a call elsewhere, and the amended
// packages' own are resolved against their dependencies only), and the
// effect rows of other packages' functions. The snapshot says so
// (Snapshot.Amended), and the next whole index restores them;
// Result.Amended tells the caller to schedule one.
func Refresh(ctx context.Context, store graph.Store, root string, opts Options) (Result, error) {
	am, ok := store.(graph.Amender)
	if !ok || opts.Shared {
		return Index(ctx, store, root, opts)
	}
	res, err := amend(ctx, store, am, root, opts)
	if errors.Is(err, graph.ErrBaseMoved) {
		// Another snapshot was published meanwhile (the whole index that
		// follows an amend, say): amend that one instead.
		res, err = amend(ctx, store, am, root, opts)
	}
	if errors.Is(err, errWhole) || errors.Is(err, graph.ErrBaseMoved) {
		why := err.Error()
		res, err = Index(ctx, store, root, opts)
		res.Whole = why
	}
	return res, err
}

// errWhole says the change cannot be amended; Refresh indexes whole.
var errWhole = errors.New("the change needs a whole index")

// maxAmendDirs is the most package directories an amend re-derives; a
// change that touches more is indexed whole, which costs little more.
const maxAmendDirs = 8

// amend is Refresh's incremental path. It returns errWhole (wrapped) when
// the change is not one it can amend.
func amend(ctx context.Context, store graph.Store, am graph.Amender, root string, opts Options) (Result, error) {
	started := time.Now()
	abs, err := canonicalRoot(root)
	if err != nil {
		return Result{}, err
	}
	base, err := readBase(ctx, store, abs)
	if err != nil {
		return Result{}, err
	}
	// Begun before anything is read, the snapshot's time is one no file
	// it records can be newer than unnoticed (see the freshness check).
	w, err := am.BeginAmend(ctx, base.repo.Repository, base.repo.Snapshot.ID, vcsHead(abs))
	if err != nil {
		return Result{}, err
	}
	published := false
	defer func() {
		if !published {
			_ = w.Abort()
		}
	}()
	plan, err := load.Discover(abs)
	noModule := load.NoModule(err)
	if noModule {
		plan = load.Plan{Root: abs} // other languages alone (scip.go)
	} else if err != nil {
		return Result{}, err
	}
	dirs, others, err := changedDirs(abs, base, plan)
	if err != nil {
		return Result{}, err
	}
	if len(others) > 0 {
		if len(dirs) > 0 {
			return Result{}, fmt.Errorf("%w: Go and other languages changed together", errWhole)
		}
		res, err := amendSCIP(ctx, w, base, abs, others, opts, func(ctx context.Context, keys []string) ([]graph.Symbol, error) {
			r, err := store.Read(ctx)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return r.SymbolsByKeys(ctx, keys)
		})
		if err == nil {
			published = true
			res.Duration = time.Since(started)
		}
		return res, err
	}
	if noModule {
		return Result{}, fmt.Errorf("%w: no Go module under %s", errWhole, abs)
	}
	if opts.Progress != nil {
		opts.Progress(Progress{Phase: PhaseLoad, Total: 1, Message: strings.Join(dirs, ", ")})
	}

	d, err := deriveDirs(ctx, abs, base, plan, dirs, opts.Cache)
	if err != nil {
		return Result{}, err
	}
	if len(d.grew) > 0 {
		// What they declare grew or shrank, but no type or method changed
		// (implementations depend on those): the packages that import
		// them may use or lose what changed, so they are derived again
		// too, and must themselves declare what they did.
		more, err := importerDirs(ctx, store, base, d.grew)
		if err != nil {
			return Result{}, err
		}
		all := slices.Clone(dirs)
		for _, m := range more {
			if !slices.Contains(all, m) {
				all = append(all, m)
			}
		}
		sort.Strings(all)
		if len(all) > maxAmendDirs {
			return Result{}, fmt.Errorf("%w: %d packages import what changed", errWhole, len(more))
		}
		if len(all) > len(dirs) {
			first := d.grew
			if d, err = deriveDirs(ctx, abs, base, plan, all, opts.Cache); err != nil {
				return Result{}, err
			}
			for _, p := range d.grew {
				if !slices.Contains(first, p) {
					return Result{}, fmt.Errorf("%w: package %s, which imports what changed, declares something else too", errWhole, p)
				}
			}
			dirs = all
		}
	}
	x, recs, indexed, rechecked := d.x, d.recs, d.indexed, d.rechecked
	if err := x.seedDecls(ctx, store, base, dirs); err != nil {
		return Result{}, err
	}

	if err := w.RemoveDirs(ctx, dirs); err != nil {
		return Result{}, err
	}
	res := Result{Repository: base.repo.Repository, Modules: len(plan.Modules)}
	for i := range recs {
		if err := writePackage(ctx, w, &recs[i], &res); err != nil {
			return Result{}, err
		}
	}
	if x.fx != nil {
		x.fx.summaries = func(keys []string) ([]graph.EffectRecord, error) {
			r, err := store.Read(ctx)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return r.EffectRecords(ctx, keys)
		}
	}
	xn, err := x.flushXRefs(ctx, Sink{
		Refs:      func(refs []graph.Ref) error { return w.AddRefs(ctx, refs) },
		CallEdges: func(edges []graph.CallEdge) error { return w.AddCallEdges(ctx, edges) },
		Effects:   func(recs []graph.EffectRecord) error { return w.AddEffects(ctx, recs) },
	})
	if err != nil {
		return Result{}, fmt.Errorf("writing cross-references: %w", err)
	}
	res.Refs, res.CallEdges = xn.refs, xn.edges
	snap, err := w.Publish(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("publishing amended snapshot: %w", err)
	}
	published = true
	if len(dirs) == 1 {
		opts.Cache.PutChecked(abs, dirs[0], base.hashes(), indexed)
	}
	res.Rechecked = rechecked
	res.Snapshot = snap
	res.Amended = snap.Amended
	res.Duration = time.Since(started)
	return res, nil
}

// derived is what deriveDirs built.
type derived struct {
	x         *extractor
	recs      []PackageRecords
	indexed   []*packages.Package // the variants extracted, for the cache
	rechecked bool
	grew      []string // import paths whose declarations changed, types and methods aside
}

// deriveDirs loads the packages of dirs (or checks them again in memory,
// see live.Cache.TakeChecked) and extracts their records, checking each against what
// the base says it declared. A package whose types or methods changed is
// errWhole; one whose other declarations changed is listed in grew.
func deriveDirs(ctx context.Context, abs string, base baseState, plan load.Plan, dirs []string, cache *live.Cache) (derived, error) {
	x, err := newExtractor(base.repo.Name, abs, plan.Modules)
	if err != nil {
		return derived{}, err
	}
	d := derived{x: x}
	for u, patterns := range unitPatterns(abs, plan, dirs) {
		var pkgs []*packages.Package
		if len(dirs) == 1 {
			if ps, err := cache.TakeChecked(abs, dirs[0], base.hashes()); err == nil {
				pkgs, d.rechecked = ps, true
			}
		}
		if pkgs == nil {
			pkgs, err = load.Load(ctx, load.Unit{Dir: u.Dir, Patterns: patterns, Workspace: u.Workspace, Vendor: u.Vendor, Modules: u.Modules})
			if err != nil {
				return derived{}, fmt.Errorf("%w: %v", errWhole, err)
			}
		}
		pending := x.startCallEdges(ctx, pkgs, nil)
		pending.Open() // nothing to pace: the unit is a few packages
		for _, g := range selectPackages(pkgs) {
			rec, xr := x.extract(ctx, g)
			if err := ctx.Err(); err != nil {
				return derived{}, err
			}
			if !slices.Contains(dirs, rec.Package.Dir) {
				continue // a package of another directory the pattern matched
			}
			old, had := base.pkgs[rec.Package.Path]
			if !had {
				return derived{}, fmt.Errorf("%w: package %s is new", errWhole, rec.Package.Path)
			}
			oldAll, oldTypes, ok1 := strings.Cut(old.API, "/")
			newAll, newTypes, ok2 := strings.Cut(rec.Package.API, "/")
			switch {
			case !ok1 || !ok2 || oldTypes != newTypes:
				return derived{}, fmt.Errorf("%w: package %s declares new or other types or methods", errWhole, rec.Package.Path)
			case oldAll != newAll:
				d.grew = append(d.grew, rec.Package.Path)
			}
			x.keep(xr)
			d.recs = append(d.recs, rec)
			d.indexed = append(d.indexed, g.main)
		}
		if msg, err := x.finishCallEdges(ctx, pending); err != nil {
			return derived{}, err
		} else if msg != "" {
			return derived{}, fmt.Errorf("%w: %s", errWhole, msg)
		}
	}
	// Every package the base had in the directories must come back.
	for _, p := range base.pkgs {
		if slices.Contains(dirs, p.Dir) && !slices.ContainsFunc(d.recs, func(r PackageRecords) bool { return r.Package.Path == p.Path }) {
			return derived{}, fmt.Errorf("%w: package %s is gone", errWhole, p.Path)
		}
	}
	return d, nil
}

// importerDirs returns the directories of the packages of the base that
// import any of paths, found by the import references to their package
// symbols.
func importerDirs(ctx context.Context, store graph.Store, base baseState, paths []string) ([]string, error) {
	r, err := store.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	keys := graph.PackageKeys(base.repo.Name, paths)
	refs, _, err := r.Refs(ctx, graph.RefQuery{Targets: keys, Kinds: []graph.RefKind{graph.RefImport}, IncludeTests: true})
	if err != nil {
		return nil, fmt.Errorf("finding importers: %w", err)
	}
	var dirs []string
	for _, ref := range refs {
		if d := path.Dir(ref.Path); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// base is what an amend starts from: the current snapshot of the
// repository, its files and its packages.
type baseState struct {
	repo  graph.RepositoryStatus
	files map[string]graph.File    // by path
	pkgs  map[string]graph.Package // by import path
}

// hashes returns the content hash of every file of the base, by path.
func (b baseState) hashes() map[string]string {
	out := make(map[string]string, len(b.files))
	for p, f := range b.files {
		out[p] = f.Hash
	}
	return out
}

func readBase(ctx context.Context, store graph.Store, abs string) (baseState, error) {
	r, err := store.Read(ctx)
	if err != nil {
		return baseState{}, err
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	if err != nil {
		return baseState{}, err
	}
	i := slices.IndexFunc(repos, func(rp graph.RepositoryStatus) bool { return rp.Root == abs })
	if i < 0 {
		return baseState{}, fmt.Errorf("%w: %s has no snapshot", errWhole, abs)
	}
	if other := repos[i].Snapshot.OtherFormat(); other != "" {
		// Amended, it would keep the records of the other format.
		return baseState{}, fmt.Errorf("%w: the snapshot holds %s", errWhole, other)
	}
	b := baseState{repo: repos[i], files: map[string]graph.File{}, pkgs: map[string]graph.Package{}}
	files, err := r.Files(ctx, b.repo.Name)
	if err != nil {
		return baseState{}, err
	}
	for _, f := range files {
		b.files[f.Path] = f
	}
	pkgs, err := r.Packages(ctx, b.repo.Name)
	if err != nil {
		return baseState{}, err
	}
	for _, p := range pkgs {
		b.pkgs[p.Path] = p
	}
	return b, nil
}

// changedDirs compares the base's files with the disk and returns the
// package directories whose Go files changed, were added or were removed,
// and the files of the other languages (see scipSource) changed, added or
// removed in directories the base has. A change elsewhere (a manifest, a
// new directory with Go files or others, a package directory gone)
// returns errWhole.
func changedDirs(abs string, base baseState, plan load.Plan) (_ []string, others []string, _ error) {
	pkgDirs := map[string]bool{}
	for _, p := range base.pkgs {
		pkgDirs[p.Dir] = true
	}
	manifests := map[string]bool{}
	for _, m := range plan.Manifests {
		manifests[m] = true
		if _, ok := base.files[m]; !ok {
			return nil, nil, fmt.Errorf("%w: %s is new", errWhole, m)
		}
	}
	if len(plan.Diagnostics) > 0 {
		return nil, nil, fmt.Errorf("%w: %s", errWhole, plan.Diagnostics[0].Message)
	}
	changed := map[string]bool{}
	dirs := map[string]bool{".": true}
	scipRoot := scipEnabled() // a file of another language is the SCIP indexers' (scip.go)
	published := base.repo.Snapshot.CreatedAt.UnixNano()
	for p, f := range base.files {
		for d := path.Dir(p); !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
		isManifest := f.Package == "" && isManifestName(path.Base(p))
		if isManifest && !manifests[p] {
			return nil, nil, fmt.Errorf("%w: %s is gone", errWhole, p)
		}
		fi, err := os.Lstat(filepath.Join(abs, filepath.FromSlash(p)))
		same := err == nil && fi.Mode().IsRegular() && fi.Size() == f.Size && fi.ModTime().UnixNano() == f.ModTimeNS
		if same {
			continue
		}
		if isManifest {
			// Even touched with the same content: the whole index
			// records its new time, which an amend does not rewrite.
			return nil, nil, fmt.Errorf("%w: %s changed", errWhole, p)
		}
		if scipSource(p) {
			others = append(others, p) // its indexer's (scip_amend.go)
			continue
		}
		d := path.Dir(p)
		if !pkgDirs[d] {
			return nil, nil, fmt.Errorf("%w: %s changed outside any package", errWhole, p)
		}
		changed[d] = true
	}
	// A directory changed after the snapshot may have new entries.
	for d := range dirs {
		full := filepath.Join(abs, filepath.FromSlash(d))
		fi, err := os.Lstat(full)
		if err != nil {
			if pkgDirs[d] {
				return nil, nil, fmt.Errorf("%w: %s is gone", errWhole, d)
			}
			continue
		}
		if fi.ModTime().UnixNano() <= published {
			continue
		}
		entries, err := os.ReadDir(full)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", errWhole, err)
		}
		for _, e := range entries {
			rel := path.Join(d, e.Name())
			switch {
			case e.IsDir():
				// A directory made after the snapshot has a later time;
				// one the loader skips cannot hold packages.
				if dirs[rel] || load.SkipDir(e.Name()) {
					continue
				}
				info, err := e.Info()
				if err == nil && info.ModTime().UnixNano() <= published {
					continue
				}
				if hasGoFiles(filepath.Join(full, e.Name())) || scipRoot && hasSCIPFiles(filepath.Join(full, e.Name())) {
					return nil, nil, fmt.Errorf("%w: %s is new", errWhole, rel)
				}
			case strings.HasSuffix(e.Name(), ".go"):
				if _, known := base.files[rel]; !known {
					if !pkgDirs[d] {
						return nil, nil, fmt.Errorf("%w: %s is new", errWhole, rel)
					}
					changed[d] = true
				}
			case scipRoot && scipSource(e.Name()):
				if _, known := base.files[rel]; !known {
					others = append(others, rel)
				}
			case isManifestName(e.Name()):
				if !manifests[rel] {
					return nil, nil, fmt.Errorf("%w: %s is new", errWhole, rel)
				}
			}
		}
	}
	if len(changed) > maxAmendDirs {
		return nil, nil, fmt.Errorf("%w: %d package directories changed", errWhole, len(changed))
	}
	out := make([]string, 0, len(changed))
	for d := range changed {
		out = append(out, d)
	}
	sort.Strings(out)
	sort.Strings(others)
	return out, others, nil
}

func isManifestName(name string) bool {
	return name == "go.mod" || name == "go.sum" || name == "go.work" || name == "go.work.sum"
}

// hasGoFiles reports whether the tree at dir holds a Go file or a go.mod
// in a directory the loader would walk.
func hasGoFiles(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		if d.IsDir() && p != dir && load.SkipDir(d.Name()) {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(d.Name(), ".go") || d.Name() == "go.mod") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// unitPatterns maps each directory to the load unit of the module that
// holds it, as a pattern relative to the unit's directory.
func unitPatterns(abs string, plan load.Plan, dirs []string) map[*load.Unit][]string {
	out := map[*load.Unit][]string{}
	for _, d := range dirs {
		best, bestLen := -1, -1
		for i := range plan.Units {
			for _, m := range plan.Units[i].Modules {
				if (m.Dir == "." || d == m.Dir || strings.HasPrefix(d, m.Dir+"/")) && len(m.Dir) > bestLen {
					best, bestLen = i, len(m.Dir)
				}
			}
		}
		if best < 0 {
			continue
		}
		u := &plan.Units[best]
		rel, err := filepath.Rel(u.Dir, filepath.Join(abs, filepath.FromSlash(d)))
		if err != nil {
			continue
		}
		out[u] = append(out[u], "./"+filepath.ToSlash(rel))
	}
	return out
}

// seedDecls registers, for the references and call edges of the amended
// packages to resolve against, the symbols of the base that they point
// at in other packages, read from the store: the declarations a whole
// index would have extracted from those packages.
func (x *extractor) seedDecls(ctx context.Context, store graph.Store, base baseState, dirs []string) error {
	t := &x.xt
	want := map[string]bool{} // repo-relative files pointed at
	note := func(to target) {
		if to.class == classPackage || to.file < 0 {
			return
		}
		if rel, ok := x.rel(t.strs[to.file]); ok && !slices.Contains(dirs, path.Dir(rel)) {
			want[rel] = true
		}
	}
	for _, r := range t.refs {
		note(r.to)
	}
	for _, e := range t.edges {
		note(e.callee)
	}
	r, err := store.Read(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	// A package is a target by its import path (imports): its symbol's
	// key is that of its identity, as symbols.go makes it, with the test
	// variant for a package of test files only; the store says which
	// exists.
	var others []string
	for _, p := range base.pkgs {
		if !slices.Contains(dirs, p.Dir) {
			others = append(others, p.Path)
		}
	}
	pkgKeys := graph.PackageKeys(base.repo.Name, others)
	pkgSyms, err := r.SymbolsByKeys(ctx, pkgKeys)
	if err != nil {
		return fmt.Errorf("reading the packages: %w", err)
	}
	for _, s := range pkgSyms {
		if s.Kind == graph.KindPackage {
			if _, mine := t.pkgKeys[s.PackagePath]; !mine {
				t.pkgKeys[s.PackagePath] = s.Key
			}
		}
	}
	files := make([]string, 0, len(want))
	for f := range want {
		files = append(files, f)
	}
	sort.Strings(files)
	var syms []graph.Symbol
	if fr, ok := r.Symbols.(fileSymbolReader); ok {
		if syms, err = fr.SymbolsInFiles(ctx, base.repo.Name, files); err != nil {
			return err
		}
	} else {
		for _, f := range files {
			in, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring, Repositories: []string{base.repo.Name}, PathPrefix: f})
			if err != nil {
				return fmt.Errorf("reading the symbols of %s: %w", f, err)
			}
			syms = append(syms, in...)
		}
	}
	for _, s := range syms {
		if f := s.Path; want[f] && s.Kind != graph.KindPackage {
			file := t.intern(filepath.Join(x.root, filepath.FromSlash(f)))
			owner := int32(-1)
			if s.Kind == graph.KindMethod || s.Kind == graph.KindInterfaceMethod {
				if i := strings.LastIndexByte(s.QualifiedName, '.'); i > 0 {
					owner = t.intern(s.QualifiedName[:i])
				}
			}
			// The declaring identifier is on the symbol's first line in
			// gofmt'd code; its column is unknown (-1), so a use matches
			// it by class and receiver, as uses through export data do.
			at := site{file: file, line: int32(s.StartLine), name: t.intern(s.Name)}
			t.decls[at] = append(t.decls[at], declEntry{col: -1, owner: owner, class: classOfKind(s.Kind), key: s.Key})
		}
	}
	return nil
}

// fileSymbolReader is a graph.Symbols that reads the symbols of given
// files without loading every symbol's name (internal/store/sqlite).
type fileSymbolReader interface {
	SymbolsInFiles(ctx context.Context, repo string, paths []string) ([]graph.Symbol, error)
}

// apiHash hashes what package pkg declares at package level, as other
// packages see it, in two parts "ALL/TYPES": ALL covers every object's
// kind, name and type, and TYPES only the named types, with their
// underlying types and methods; neither holds a position. An edit that
// leaves ALL unchanged (a function body, a comment, moved code) leaves
// every reference and static call from other packages as it was; one
// that changes ALL but not TYPES (a function added, removed or with
// another signature) can change only the packages that import pkg, and
// no implementation relation.
func apiHash(pkg *types.Package) string {
	if pkg == nil {
		return ""
	}
	all, typ := sha256.New(), sha256.New()
	qual := func(p *types.Package) string { return p.Path() }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		fmt.Fprintf(all, "%T %s %s\n", obj, name, types.TypeString(obj.Type(), qual))
		tn, ok := obj.(*types.TypeName)
		if !ok {
			continue
		}
		for _, h := range []io.Writer{all, typ} {
			fmt.Fprintf(h, "type %s = %s\n", name, types.TypeString(tn.Type().Underlying(), qual))
			if named, ok := tn.Type().(*types.Named); ok {
				for m := range named.Methods() {
					fmt.Fprintf(h, ". %s %s\n", m.Name(), types.TypeString(m.Type(), qual))
				}
			}
		}
	}
	return hex.EncodeToString(all.Sum(nil)) + "/" + hex.EncodeToString(typ.Sum(nil))
}
