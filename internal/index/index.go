// Package index turns type-checked Go packages into graph records and
// writes them to a store as one snapshot.
//
// Extract is the pure part: packages loaded by internal/load in, one
// PackageRecords per package out (the package, its files with content
// hashes, its declared symbols with stable keys, signatures, docs and
// character-accurate ranges, and its diagnostics), then the
// cross-references of them all: references, call edges (from the
// callgraph sub-package) and implementations. Index is the whole job for
// one repository: discover its modules, load them, extract every package
// and publish the snapshot atomically, so a reader sees either the
// previous snapshot or the complete new one.
//
// References and implementations follow gopls v0.23.0 (`references` with
// includeDeclaration=false, `implementation`): see xref.go and
// implements.go for the rules and the few places where the records need
// the query layer to finish the job.
package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/par"
)

// Options tune one Index run.
type Options struct {
	// Progress, when set, is called as indexing moves on, from the
	// goroutine that called Index. It must not block for long: indexing
	// waits for it.
	Progress func(Progress)

	// Shared registers the repository under the root "shared:NAME"
	// instead of its directory, so that every checkout of it (CI runners
	// each cloning into their own directory) publishes into one
	// repository of a shared store. sextant publish sets it.
	Shared bool
	// VCSHead, when set, is recorded as the snapshot's commit instead of
	// the one read from the work tree.
	VCSHead string
	// Staged publishes, for a repository that has no snapshot yet, its
	// symbols from syntax alone before anything is type-checked (a
	// snapshot of stage graph.StageSyntax), then the complete snapshot.
	Staged bool
	// FirstMaxVTACalls is, for a first index that Staged applies to,
	// the unit size above which its call graph resolves dynamic calls
	// with CHA rather than VTA (callgraph.Options.MaxVTACalls; 0 means
	// callgraph.QuickMaxVTACalls, negative always CHA): the answers an
	// agent waits for come sooner, and Result.Coarse says when a whole
	// index would resolve them more sharply.
	FirstMaxVTACalls int
	// Cache, when set, lets Refresh check an edited package again in
	// memory when it amended the same package last time (see
	// live.Cache.TakeChecked). Index does not use it.
	Cache *live.Cache
}

// SharedRoot is the root under which Options.Shared registers the
// repository named name.
func SharedRoot(name string) string { return "shared:" + name }

// The phases Progress reports, in the order they happen; load and
// extract alternate, one load unit (a module or a workspace) at a time.
const (
	PhaseDiscover = "discover" // walking the root for modules
	PhaseLoad     = "load"     // go/packages: listing, parsing, type-checking (Done/Total count load units)
	PhaseExtract  = "extract"  // building records (Done/Total count the unit's packages)
	PhasePublish  = "publish"  // writing the snapshot and making it current (Done/Total count packages)
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

// Result describes a published snapshot: what was indexed, how much of
// it, and how long it took, for the CLI summary and list_repositories.
type Result struct {
	Repository  graph.Repository
	Snapshot    graph.Snapshot
	Modules     int // modules indexed
	Packages    int // packages written, external test packages included
	Files       int // files written: Go files, build-ignored Go files, go.mod/go.sum/go.work
	Symbols     int
	Diagnostics int // package diagnostics plus those of modules that failed to load
	// Unavailable are the diagnostics, among those counted, of modules a
	// go.mod requires that could not be loaded (not in the module cache
	// and not downloadable): one each, at its require line, its message
	// starting with INDEXING_FAILED. The rest is indexed.
	Unavailable []graph.Diagnostic
	// Skipped are the diagnostics, among those counted, of what the index
	// left out and went on without (graph.KindSkipped): modules a go.work
	// uses whose directory is missing, files indexed for their
	// declarations alone (load.LargeFileEnv).
	Skipped []graph.Diagnostic
	// Languages are the languages other than Go found under the root,
	// one per SCIP indexer, with what was indexed of them or why not.
	Languages []LanguageResult
	// Build is the build configuration loaded (load.Build): GOOS, GOARCH
	// and build tags, from the environment.
	Build string
	// Refs, CallEdges and Implementations count the cross-reference
	// records written: references and call edges whose target is in the
	// graph (and unresolved calls), and implementation pairs (of types and
	// of their methods).
	Refs            int
	CallEdges       int
	Implementations int
	Duration        time.Duration // from the call to the published snapshot
	// Amended lists the package directories Refresh re-derived into an
	// amended snapshot (see Refresh), empty after a whole index: when it
	// is set, a whole index restores what an amend carries over.
	Amended []string
	// Coarse is set when a first index (Options.FirstMaxVTACalls)
	// resolved a unit's dynamic calls with CHA that a whole index
	// resolves with VTA: indexing again lists fewer candidate callees.
	Coarse bool
	// keepTypes is KeepTypes' work (nil: none).
	keepTypes func()
	// Whole says why Refresh indexed the repository whole instead of
	// amending its snapshot ("" when it amended, or for Index).
	Whole string // Rechecked says the amend checked its package again in memory
	// (see Options.Cache) instead of loading it with the go command.
	Rechecked bool
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

	abs, err := canonicalRoot(root)
	if err != nil {
		return Result{}, err
	}

	report(PhaseDiscover, 0, 0, abs)
	plan, err := load.Discover(abs)
	scipProjects := discoverSCIP(abs) // TypeScript, JavaScript and Python (scip.go)
	if err != nil && (!load.NoModule(err) || len(scipProjects.projects) == 0) {
		return Result{}, err
	} else if err != nil {
		plan = load.Plan{Root: abs} // other languages alone
	}
	name := filepath.Base(abs)
	for _, m := range plan.Modules {
		if m.Dir == "." {
			name = m.Path
		}
	}

	storeRoot := abs
	if opts.Shared {
		storeRoot = SharedRoot(name)
	}
	repo, err := store.EnsureRepository(ctx, storeRoot, name)
	if err != nil {
		return Result{}, fmt.Errorf("registering repository: %w", err)
	}
	// Begun before anything is read, the snapshot's time is one no file
	// it records can be newer than unnoticed: a file added while the
	// index runs makes its directory newer than the snapshot. Stores take
	// no lock until the first write.
	head := opts.VCSHead
	if head == "" {
		head = vcsHead(abs)
	}
	w, err := store.BeginSnapshot(ctx, repo, head)
	if err != nil {
		return Result{}, fmt.Errorf("beginning snapshot: %w", err)
	}
	published := false
	defer func() {
		if !published {
			_ = w.Abort() // the write already failed; the previous snapshot keeps serving
		}
	}()
	// A repository indexed for the first time gets its symbols first
	// (see publishSyntax); one with a snapshot keeps serving that one,
	// which is complete, until this one replaces it. Once the stage has
	// parsed the files (on every core), the go command lists the first
	// unit's packages, in a process of its own, while the stage extracts
	// and writes them (on one); the type check waits for the stage, which
	// it would slow.
	var early *earlyLoad
	first := false // a first index, publishing its stages
	if opts.Staged && !opts.Shared && len(plan.Units) > 0 {
		if has, err := hasSnapshot(ctx, store, storeRoot); err == nil && !has {
			first = true
			report(PhaseSyntax, 0, 0, "symbols from syntax")
			begin := make(chan struct{})
			ready := make(chan *load.Parsed, 1) // the stage's parse, for the load to take
			early = startLoad(ctx, plan.Units[0], begin, ready)
			parsed, err := publishSyntax(ctx, store, repo, abs, head, plan, sync.OnceFunc(func() { close(begin) }))
			ready <- parsed
			close(ready)
			if err == nil {
				report(PhaseSyntax, 1, 1, "symbols published")
			} else if ctx.Err() != nil {
				early.wait()
				return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
			}
		}
	}
	// A first index publishes a types stage before its call graph ends
	// (see publishTypes); the writer knows it from the start, to hold
	// back what that stage does not need.
	sp, typesStage := w.(graph.StagePublisher)
	if st, ok := w.(graph.Stager); typesStage && ok && first {
		st.SetStage(graph.StageTypes)
	} else {
		typesStage = false
	}
	// Keys hash the name the store settled on.
	x, err := newExtractor(repo.Name, abs, plan.Modules)
	if err != nil {
		return Result{}, err
	}
	if first {
		x.maxVTACalls = opts.FirstMaxVTACalls
		if x.maxVTACalls == 0 {
			x.maxVTACalls = callgraph.QuickMaxVTACalls
		}
	}

	// Load and extract one unit at a time, releasing each package's
	// syntax and types once its records are built, so the peak is the
	// largest unit rather than all of them. The records are written only
	// after everything is loaded, so no store transaction stays open
	// across the slow part.
	diags := slices.Clone(plan.Diagnostics)
	var lastDiags []graph.Diagnostic // of the last unit's call graph, written once it is finished
	var keepTypes func()             // see Result.KeepTypes
	var recs []PackageRecords
	dirOf := map[string]string{} // import path → directory of the package indexed under it
	loaded := 0
	var finishLast func() error
	var lastBuilt func()   // waits for the last call graph's SSA
	var stream *edgeStream // the last unit's call edges
	var kept resolver      // the tables once every package is kept, taken before the last call graph ends
	for i, u := range plan.Units {
		report(PhaseLoad, i, len(plan.Units), unitLabel(u))
		var pkgs []*packages.Package
		var keep func()
		if i == 0 && early != nil {
			pkgs, keep, err = early.wait()
		} else {
			pkgs, keep, err = load.LoadWhen(ctx, u, nil)
		}
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
		}
		if err != nil {
			diags = append(diags, graph.Diagnostic{Path: u.Manifest(abs), Kind: "list", Message: err.Error()})
			continue
		}
		loaded++
		// The type cache is for the next load: the last unit's is written
		// once the snapshot is published (Result.KeepTypes), the others'
		// before the next unit loads, which may use it, once this unit's
		// syntax, types and call graph are released: encoding the types
		// takes memory of its own (on moby's root module, 135 MiB in
		// flight on two CPUs), which would otherwise add to the unit's
		// peak.
		if i == len(plan.Units)-1 {
			keepTypes = keep
		}
		if i == len(plan.Units)-1 {
			defer capHeap()()  // see memory.go
			defer loosenGC()() // likewise
		}
		report(PhaseExtract, 0, 0, "call graph")
		// The call graph needs the whole unit before anything is released;
		// it runs beside extraction, on the other core, and builds each
		// package's SSA as extraction reaches it (see callgraph.Options.Paced).
		// The last unit's edges are streamed to the writer (see below).
		if i == len(plan.Units)-1 {
			stream = newEdgeStream()
		}
		pending := x.startCallEdges(ctx, pkgs, stream)
		groups := selectPackages(pkgs)
		pkgs = nil
		var unreleased []*group
		for j, g := range groups {
			report(PhaseExtract, j, len(groups), g.path)
			par.Yield(ctx) // work ahead of this index's (see par.Gate)
			if err := ctx.Err(); err != nil {
				pending.Open()
				return Result{}, fmt.Errorf("indexing %s: %w", abs, err)
			}
			pending.Reached(g.path)
			rec, xr := x.extract(ctx, g)
			// The call graph reads the packages in the background at
			// first: release them once it has.
			unreleased = append(unreleased, g)
			if pending.Prepared() {
				for _, g := range unreleased {
					release(g)
				}
				unreleased = unreleased[:0]
			}
			groups[j] = nil
			if dir, dup := dirOf[rec.Package.Path]; dup {
				// Two modules with the same path (a copied example, say):
				// a snapshot holds one package per import path.
				diags = append(diags, graph.Diagnostic{Package: rec.Package.Path, Path: u.Manifest(abs), Kind: "list",
					Message: fmt.Sprintf("package %s in %s has the import path of the package in %s and is not indexed", rec.Package.Path, rec.Package.Dir, dir)})
				continue
			}
			dirOf[rec.Package.Path] = rec.Package.Dir
			x.keep(xr)
			recs = append(recs, rec)
		}
		pending.WaitPrepared()
		for _, g := range unreleased {
			release(g)
		}
		unreleased = nil
		// finished records how finishing the unit's call graph went, the
		// last unit's (on a goroutine of its own) in lastDiags.
		into := &diags
		if i == len(plan.Units)-1 {
			into = &lastDiags
		}
		finished := func(msg string, err error) error {
			if err != nil {
				return fmt.Errorf("indexing %s: %w", abs, err)
			} else if msg != "" {
				*into = append(*into, graph.Diagnostic{Path: u.Manifest(abs), Kind: "unknown", Message: msg})
			}
			return nil
		}
		if i == len(plan.Units)-1 {
			// The last unit's call graph finishes (single-threaded, after
			// extraction) on another goroutine while the package records
			// are written, and hands its edges, resolved, to the writer in
			// batches as it goes (see edgeStream): nothing else touches the
			// extractor until finishLast returns.
			kept = x.xt.resolver()
			done := make(chan error, 1)
			go func() { done <- finished(x.streamCallEdges(ctx, pending, stream)) }()
			finishLast = func() error { return <-done }
			lastBuilt = pending.WaitBuilt
			break
		}
		if err := finished(x.finishCallEdges(ctx, pending)); err != nil {
			return Result{}, err
		}
		keep()
		report(PhaseExtract, len(groups), len(groups), "")
	}
	if finishLast != nil {
		defer func() {
			if finishLast != nil {
				_ = finishLast() // the write failed first; let the build end
			}
		}()
	} else {
		kept = x.xt.resolver() // every call graph is finished
	}
	if loaded == 0 && len(scipProjects.projects) == 0 {
		return Result{}, graph.Errorf(graph.CodeIndexingFailed,
			"no module under %s could be loaded; see diagnostics", abs).WithData("diagnostics", diags)
	}

	res := Result{Repository: repo, Modules: len(plan.Modules), Build: load.Build(os.Environ())}
	setProvenance(w, &res) // for the stages published before the SCIP indexers ran
	for _, d := range diags {
		if d.Skipped() {
			res.Skipped = append(res.Skipped, d)
		}
	}
	if err := w.AddModules(ctx, plan.Modules); err != nil {
		return Result{}, fmt.Errorf("writing modules: %w", err)
	}
	manifests := manifestFiles(abs, plan.Manifests)
	if err := w.AddFiles(ctx, manifests); err != nil {
		return Result{}, fmt.Errorf("writing manifest files: %w", err)
	}
	res.Files = len(manifests)
	// The records are written once the last call graph's SSA is built,
	// which takes both cores: what is left of it is reading the calls, on
	// one, beside which the writing (another second of CPU on prometheus)
	// no longer leaves the other idle at the end.
	if lastBuilt != nil {
		lastBuilt()
	}
	for i := range recs {
		rec := &recs[i]
		report(PhasePublish, i, len(recs), rec.Package.Path)
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("indexing %s: %w", abs, err)
		}
		if err := writePackage(ctx, w, rec, &res); err != nil {
			return Result{}, err
		}
		*rec = PackageRecords{} // written; let it go
	}
	// References and implementations depend on the packages alone: they
	// are resolved (with kept, never the tables finishCallEdges is adding
	// to) and written while the last call graph may still be finishing on
	// the other core; a store that buffers them until Publish inserts them
	// now (graph.XRefFlusher), rather than after the edges. The snapshot's
	// records are the same either way.
	report(PhasePublish, len(recs), len(recs), "references")
	sink := Sink{
		Refs:       func(refs []graph.Ref) error { return w.AddRefs(ctx, refs) },
		CallEdges:  func(edges []graph.CallEdge) error { return w.AddCallEdges(ctx, edges) },
		Implements: func(impls []graph.Implements) error { return w.AddImplements(ctx, impls) },
		Effects:    func(recs []graph.EffectRecord) error { return w.AddEffects(ctx, recs) },
	}
	var xn xrefCounts
	xn.refs, err = x.flushRefs(ctx, kept, sink)
	if err == nil {
		xn.impls, err = x.flushImpls(ctx, kept, sink)
	}
	if f, ok := w.(graph.XRefFlusher); ok && err == nil {
		err = f.FlushXRefs(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
		}
		return Result{}, fmt.Errorf("writing cross-references: %w", err)
	}
	// A first index publishes what it has before the call graph ends: the
	// references, implementations and types answer from there (see
	// publishTypes).
	var written []graph.Diagnostic // the diagnostics the stage wrote
	if typesStage {
		res.Unavailable = x.missingModules()
		written = append(diags, res.Unavailable...)
		if err := publishTypes(ctx, w, sp, written); err != nil {
			if ctx.Err() != nil {
				return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
			}
			return Result{}, err
		}
		report(PhaseTypes, 1, 1, "references published")
		// The search rows the stage held back, while the last call
		// graph may still be finishing on the other core.
		if f, ok := w.(graph.XRefFlusher); ok {
			if err := f.FlushXRefs(ctx); err != nil {
				if ctx.Err() != nil {
					return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
				}
				return Result{}, fmt.Errorf("writing search rows: %w", err)
			}
		}
	}
	// The call edges, as the last call graph finds them: they are
	// inserted edgeRound at a time (graph.XRefFlusher) rather than all at
	// Publish.
	report(PhasePublish, len(recs), len(recs), "call edges")
	var streamed []graph.CallEdge
	streamedN, buffered := 0, 0
	keepStreamed := x.fx != nil // the effect records need every edge (set by startCallEdges)
	for stream != nil {
		batch, ok := stream.resolved.next()
		if !ok {
			break
		}
		streamedN += len(batch)
		if keepStreamed {
			streamed = append(streamed, batch...)
		}
		err := sink.CallEdges(batch)
		if buffered += len(batch); buffered >= edgeRound && err == nil {
			if f, ok := w.(graph.XRefFlusher); ok {
				err = f.FlushXRefs(ctx)
			}
			buffered = 0
		}
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
			}
			return Result{}, fmt.Errorf("writing cross-references: %w", err)
		}
	}
	if finishLast != nil {
		f := finishLast
		finishLast = nil
		if err := f(); err != nil {
			return Result{}, err
		}
	}
	n, err := x.flushCalls(ctx, sink, streamed)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
		}
		return Result{}, fmt.Errorf("writing cross-references: %w", err)
	}
	xn.edges = streamedN + n
	res.Refs, res.CallEdges, res.Implementations = xn.refs, xn.edges, xn.impls
	res.Coarse = x.coarse // every call graph has finished
	// The other languages after Go, into the same snapshot (scip.go).
	if len(scipProjects.projects) > 0 {
		report(PhaseExtract, 0, len(scipProjects.projects), "TypeScript, JavaScript and Python")
	}
	if err := indexSCIP(ctx, w, repo, abs, scipProjects, &res); err != nil {
		return Result{}, err
	}
	pending := lastDiags
	if !typesStage { // else the stage wrote them
		res.Unavailable = x.missingModules()
		pending = append(append(diags, res.Unavailable...), lastDiags...)
	}
	if len(pending) > 0 {
		if err := w.AddDiagnostics(ctx, pending); err != nil {
			return Result{}, fmt.Errorf("writing diagnostics: %w", err)
		}
	}
	res.Diagnostics += len(written) + len(pending)
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("indexing %s: %w", abs, err)
	}
	setProvenance(w, &res)
	snap, err := w.Publish(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("publishing snapshot: %w", err)
	}
	published = true
	report(PhasePublish, len(recs), len(recs), "")
	res.Snapshot = snap
	res.Duration = time.Since(started)
	res.keepTypes = keepTypes
	return res, nil
}

// KeepTypes puts the types of the dependencies the index checked from
// source in the type cache, for the next load (see load.LoadWhen). It is
// the caller's to run once the snapshot has answered: a server in the
// background, a command line before it exits. Not running it loses
// nothing but the next load's time; a second call does nothing.
func (r Result) KeepTypes() {
	if r.keepTypes != nil {
		r.keepTypes()
	}
}

// earlyLoad is a unit's load begun before the index reaches it.
type earlyLoad struct {
	done chan struct{}
	pkgs []*packages.Package
	keep func()
	err  error
}

// startLoad loads u on its own goroutine once begin is closed, its type
// check held until ready delivers or is closed (see load.LoadWhen).
func startLoad(ctx context.Context, u load.Unit, begin <-chan struct{}, ready <-chan *load.Parsed) *earlyLoad {
	l := &earlyLoad{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		<-begin
		l.pkgs, l.keep, l.err = load.LoadWhen(ctx, u, ready)
	}()
	return l
}

// wait returns the load's packages once it has ended.
func (l *earlyLoad) wait() ([]*packages.Package, func(), error) {
	<-l.done
	return l.pkgs, l.keep, l.err
}

// edgeRound is how many streamed call edges are inserted at once. Each
// insert adds to the store's indexes of edges all over their key range,
// so a few large rounds cost less than many small ones, while the last
// round, inserted after the call graph ends, stays short.
var edgeRound = 1 << 16

// writePackage writes the records of one package and counts them in res.
func writePackage(ctx context.Context, w graph.SnapshotWriter, rec *PackageRecords, res *Result) error {
	if err := w.AddPackage(ctx, rec.Package, rec.Files, rec.Symbols, rec.Diagnostics); err != nil {
		return fmt.Errorf("writing package %s: %w", rec.Package.Path, err)
	}
	res.Packages++
	res.Files += len(rec.Files)
	res.Symbols += len(rec.Symbols)
	res.Diagnostics += len(rec.Diagnostics)
	for _, d := range rec.Diagnostics {
		if d.Skipped() {
			res.Skipped = append(res.Skipped, d)
		}
	}
	return nil
}

// canonicalRoot returns root absolute with its symlinks resolved, as the
// store records repositories; a root that cannot be read is
// CodeIndexingFailed.
func canonicalRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("resolving root: %w", err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", graph.Wrap(graph.CodeIndexingFailed, err, fmt.Sprintf("cannot read %s", abs))
	}
	return resolved, nil
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
		content, mtime, err := readFile(abs)
		if err != nil {
			continue // gone since Discover; the next freshness check sees it
		}
		files = append(files, graph.File{Path: rel, Hash: graph.ContentHash(content), Size: int64(len(content)), ModTimeNS: mtime})
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

// setProvenance says what made the snapshot, to a store that keeps it
// (graph.Provenancer): the build configuration, and each language's
// indexer that imported a project, with its version.
func setProvenance(w graph.SnapshotWriter, res *Result) {
	p, ok := w.(graph.Provenancer)
	if !ok {
		return
	}
	var indexers []string
	if res.Modules > 0 {
		indexers = append(indexers, graph.LanguageGo+" go/types "+runtime.Version())
	}
	for _, l := range res.Languages {
		if l.Indexed > 0 {
			indexers = append(indexers, strings.TrimSpace(l.Language+" "+l.Indexer+" "+l.Version))
		}
	}
	p.SetProvenance(res.Build, indexers)
}
