package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/par"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/postgres"
)

// indexFunc adapts internal/index to the query layer's IndexFunc: a
// stale root is refreshed with index.Refresh, which amends the snapshot
// when the edit allows it (checking a package it amended before again in
// memory, with a live.Cache). An amend carries the whole-program records
// (interface call edges of other packages, effects) over from its base,
// so once the root has been quiet for wholeAfter a whole index runs in
// the background to restore them; one also follows a first index whose
// call graph was resolved coarsely to answer sooner (index.Result.Coarse).
// published, when set, is called with the root after each snapshot of it
// is published.
func indexFunc(st graph.Store, published func(root string)) query.IndexFunc {
	passes := &wholePasses{store: st, after: wholeAfter, timers: map[string]*time.Timer{}, published: published}
	cache := live.New(0)
	return func(ctx context.Context, root string, progress func(query.Progress)) error {
		defer indexingGC()()
		res, err := index.Refresh(ctx, st, root, index.Options{Progress: adaptProgress(root, progress), Cache: cache, Staged: true,
			FirstMaxVTACalls: firstMaxVTACalls})
		if err == nil && published != nil {
			published(root)
		}
		if err == nil && len(res.Amended) > 0 {
			passes.schedule(root)
		}
		// After the waiting calls have their answer; the sharper call
		// graph after that, loading from the types just kept.
		go func() {
			res.KeepTypes()
			if err == nil && res.Coarse {
				passes.whole(root, nil)
			}
		}()
		return err
	}
}

// firstMaxVTACalls is index.Options.FirstMaxVTACalls for a server's
// first index of a root (0: callgraph.QuickMaxVTACalls); tests lower it.
var firstMaxVTACalls = 0

// wholeAfter is how long a root stays quiet after an amend before the
// whole index that restores its whole-program records starts.
const wholeAfter = 3 * time.Second

// wholePasses schedules the whole index that follows amends, one timer
// per root, reset by every amend so a burst of edits costs one pass.
type wholePasses struct {
	store     graph.Store
	after     time.Duration
	published func(root string) // see indexFunc
	mu        sync.Mutex
	timers    map[string]*time.Timer
	run       sync.Mutex // one whole pass at a time
}

func (p *wholePasses) schedule(root string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.timers[root]; t != nil {
		t.Reset(p.after)
		return
	}
	p.timers[root] = time.AfterFunc(p.after, func() {
		// A failure leaves the amended snapshot serving, as it says; the
		// next amend schedules another pass.
		p.whole(root, func() bool {
			return p.amended(root) // else a whole index published since the amend: nothing to restore
		})
	})
}

// whole indexes root whole, one pass at a time, unless needed, asked
// once the pass before has ended, says it is no longer wanted (nil: it
// always is). After an amend it restores the whole-program records; after
// a first index whose call graph was coarse (index.Result.Coarse) it
// sharpens a snapshot that is already complete and sound.
func (p *wholePasses) whole(root string, needed func() bool) {
	p.run.Lock()
	defer p.run.Unlock()
	if needed != nil && !needed() {
		return
	}
	defer indexingGC()()
	res, err := index.Index(context.Background(), p.store, root, index.Options{})
	if err == nil && p.published != nil {
		p.published(root)
	}
	res.KeepTypes()
}

// amended reports whether the current snapshot of the repository at root
// is an amended one (or cannot be read, which a whole index settles).
func (p *wholePasses) amended(root string) bool {
	ctx := context.Background()
	repos, err := graph.Repositories(ctx, p.store)
	if err != nil {
		return true
	}
	abs, err := query.CanonicalDir(root)
	if err != nil {
		return true
	}
	for _, rp := range repos {
		if rp.Root == abs {
			return len(rp.Snapshot.Amended) > 0
		}
	}
	return true
}

func adaptProgress(root string, progress func(query.Progress)) func(index.Progress) {
	if progress == nil {
		return nil
	}
	return func(p index.Progress) {
		progress(query.Progress{Root: root, Phase: p.Phase, Done: p.Done, Total: p.Total, Message: p.Message})
	}
}

func newService(st graph.Store, roots []string, e env) (*query.Service, error) {
	return query.New(st, roots, indexFunc(st, nil))
}

// newServingService is newService for a server: the name tables of its
// roots' snapshots are loaded in the background as they are published,
// and at once for those already indexed (see sqlite.Store.WarmNames), so
// that a search after an edit does not wait for one.
func newServingService(st graph.Store, roots []string) (*query.Service, error) {
	w, ok := st.(interface{ WarmNames(roots []string) })
	first := &par.Gate{} // see checkFunc
	if !ok {
		svc, err := query.New(st, roots, yielding(first, slowIndex(checkedIndex(st, indexFunc(st, nil)))))
		if err == nil {
			svc.SetCheck(checkFunc(first))
		}
		return svc, err
	}
	warm := func(dirs ...string) {
		var abs []string
		for _, d := range dirs {
			if a, err := query.CanonicalDir(d); err == nil {
				abs = append(abs, a)
			}
		}
		w.WarmNames(abs)
	}
	svc, err := query.New(st, roots, yielding(first, slowIndex(checkedIndex(st, indexFunc(st, func(root string) { warm(root) })))))
	if err == nil {
		svc.SetCheck(checkFunc(first))
		warm(roots...)
	}
	return svc, err
}

// runIndex indexes each directory and prints a summary per repository.
func runIndex(ctx context.Context, e env, argv []string) error {
	fs := newFlagSet("index", e)
	dbPath := dbFlag(fs)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	watch := fs.Bool("watch", false, "after indexing, keep watching the directories and re-index each as its files change, until interrupted")
	staged := fs.Bool("staged", false, "for a repository indexed for the first time, publish its declarations from syntax first, for a server reading the same database meanwhile (some 30% more CPU)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: sextant index [--db PATH] [--json] [--watch] [--staged] [DIR...]\n\nIndex the Go modules under each DIR (default: the working directory), and its TypeScript, JavaScript and Python projects with scip-typescript and scip-python when they are on PATH (SEXTANT_SCIP=off: Go alone), and publish a new snapshot of each.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		return usageErr(err)
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	stop, err := startCPUProfile(e) // a CPU profile of the run
	if err != nil {
		return err
	}
	defer stop()
	st, err := openIndexStore(ctx, e, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	var failed error
	var summaries []map[string]any
	for _, dir := range dirs {
		root, err := query.CanonicalDir(dir)
		if err != nil {
			return err
		}
		show := progressPrinter(e)
		// Into a shared graph, a repository is registered by name, as
		// publish does: its directory means nothing on other machines.
		shared := postgres.IsURL(dbName(e, *dbPath))
		// A command line waits for the complete snapshot: the syntax
		// stage serves only a server reading the database meanwhile, as
		// serve's first index does, and costs a second parse and write.
		res, err := index.Index(ctx, st, root, index.Options{Progress: adaptProgress(root, show), Shared: shared, Staged: *staged && !shared,
			// The stages are for a server reading meanwhile; the call
			// graph is the one a whole index computes, as without them.
			FirstMaxVTACalls: callgraph.DefaultMaxVTACalls})
		show(query.Progress{Root: root, Phase: "done"})
		if c, ok := st.(interface{ Classify(error) error }); ok && err != nil {
			err = c.Classify(err) // damage found while writing
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "sextant: indexing %s: %v\n", dir, err)
			if ge, ok := err.(*graph.Error); ok {
				if ds, ok := ge.Data["diagnostics"].([]graph.Diagnostic); ok {
					for _, d := range ds {
						fmt.Fprintf(e.stderr, "  %s %s:%d:%d %s\n", d.Package, d.Path, d.Line, d.Col, d.Message)
					}
				}
			}
			failed = reportedError{err}
			continue
		}
		warnUnavailable(e, res)
		if *asJSON {
			defer res.KeepTypes()
			summaries = append(summaries, map[string]any{
				"repository": res.Repository.Name, "root": res.Repository.Root, "snapshot_id": res.Snapshot.ID,
				"packages": res.Packages, "files": res.Files, "symbols": res.Symbols,
				"diagnostics": res.Diagnostics, "duration_ms": res.Duration.Milliseconds(),
				"skipped": skippedLines(res), "build": res.Build, "languages": languages(res),
			})
			continue
		}
		fmt.Fprintf(e.stdout, "%s: snapshot %d: %d packages, %d files, %d symbols, %d diagnostics in %s; build %s\n",
			res.Repository.Name, res.Snapshot.ID, res.Packages, res.Files, res.Symbols, res.Diagnostics, res.Duration.Round(1e6), res.Build)
		for _, l := range res.Languages {
			fmt.Fprintf(e.stdout, "%s: %s\n", res.Repository.Name, languageLine(l))
		}
		if lines := skippedLines(res); len(lines) > 0 {
			fmt.Fprintf(e.stdout, "%s: skipped %d:\n", res.Repository.Name, len(lines))
			for _, l := range lines {
				fmt.Fprintf(e.stdout, "  %s\n", l)
			}
		}
		res.KeepTypes()
	}
	if *asJSON {
		b, _ := json.MarshalIndent(summaries, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	}
	if *watch {
		return watchRoots(ctx, e, st, dirs)
	}
	return failed
}

// watchInterval is how often a watch looks for changes. With inotify a
// look costs nothing while no file changes.
const watchInterval = 200 * time.Millisecond

// watchRoots re-indexes each directory as its files change, printing each
// new snapshot, until ctx ends (an interrupt).
func watchRoots(ctx context.Context, e env, st graph.Store, dirs []string) error {
	svc, err := newService(st, dirs, e)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "sextant: watching %s for changes; interrupt to stop\n", strings.Join(svc.Roots(), ", "))
	svc.Watch(ctx, watchInterval, func(snaps map[string]int64) {
		for name, id := range snaps {
			fmt.Fprintf(e.stdout, "%s: snapshot %d (files changed)\n", name, id)
		}
	})
	return nil
}

func newFlagSet(name string, e env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// warnUnavailable says on stderr which required modules could not be
// loaded (index.Result.Unavailable): the index succeeded without their
// types, and the answers that need them are missing until they are
// downloaded and the repository indexed again.
func warnUnavailable(e env, res index.Result) {
	for _, d := range res.Unavailable {
		fmt.Fprintf(e.stderr, "sextant: %s: %s:%d: %s\n", res.Repository.Name, d.Path, d.Line, d.Message)
	}
}

// skippedLines renders what the index left out (index.Result.Skipped),
// one "path:line: message" each, for the summary: a workspace module
// whose directory is missing or a file indexed for its declarations alone
// is part of the result, not a failure buried among the diagnostics.
// Never nil, so the JSON summary has an empty list rather than null.
func skippedLines(res index.Result) []string {
	lines := []string{}
	for _, d := range res.Skipped {
		if d.Line > 0 {
			lines = append(lines, fmt.Sprintf("%s:%d: %s", d.Path, d.Line, d.Message))
		} else {
			lines = append(lines, fmt.Sprintf("%s: %s", d.Path, d.Message))
		}
	}
	return lines
}

// languages is the languages other than Go that the index found
// (index.Result.Languages), never nil, so the JSON summary has an empty
// list rather than null.
func languages(res index.Result) []index.LanguageResult {
	if res.Languages == nil {
		return []index.LanguageResult{}
	}
	return res.Languages
}

// projects counts projects in words: "1 project", "2 projects".
func projects(n int) string {
	if n == 1 {
		return "1 project"
	}
	return fmt.Sprintf("%d projects", n)
}

// languageLine says what the index did with one language found besides
// Go: what its indexer wrote, or why it indexed nothing.
func languageLine(l index.LanguageResult) string {
	if l.NotIndexed != "" {
		return fmt.Sprintf("%s: not indexed (%s): %s", l.Language, projects(len(l.Projects)), l.NotIndexed)
	}
	line := fmt.Sprintf("%s: %d of %s, %d files, %d symbols (%s %s)", l.Language, l.Indexed, projects(len(l.Projects)), l.Files, l.Symbols, l.Indexer, l.Version)
	if len(l.Failed) > 0 {
		line += fmt.Sprintf("; %d failed: %s", len(l.Failed), strings.Join(l.Failed, "; "))
	}
	if len(l.Empty) > 0 {
		line += fmt.Sprintf("; %s with no input files: %s", projects(len(l.Empty)), strings.Join(l.Empty, ", "))
	}
	return line
}
