// Package session owns what outlives one request: the roots a server may
// read, the freshness of their snapshots (stat checks, directory
// watches), the indexing runs that refresh them and the refreshes that
// failed, and the caches of answers' inputs (completeness facts per
// snapshot, the line cache, the live package cache). Each request opens a
// View: a pinned reader of the index, fresh when it opens, with accessors
// for the snapshots it read and the files under the roots.
package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/live"
)

// Progress is reported while a root is indexed on first use.
type Progress struct {
	Root    string
	Phase   string // discover, syntax, load, extract, publish
	Done    int
	Total   int
	Message string
}

// IndexFunc indexes the repository at root and publishes a snapshot. The
// CLI wires it to internal/index; tests may wire anything that publishes.
type IndexFunc func(ctx context.Context, root string, progress func(Progress)) error

// Session is what every request reads through: the roots a server may
// read, the store, and what keeps answers fresh (indexing runs, directory
// watches, the failures of refreshes) and cheap (the completeness facts of
// each snapshot, the line cache, the live package cache). Each request
// opens a View of it. It is safe for concurrent use.
type Session struct {
	store  graph.Store
	roots  []string // absolute, symlinks resolved, sorted
	now    func() time.Time
	set    Settings
	live   *live.Cache // the position tools' packages, compiled from disk
	runs   *runs       // the indexing runs of the roots
	fresh  *freshness  // how the snapshots compare with the disk
	checks checks      // parts of repositories checked ahead of their index (see OpenChecked)

	mu     sync.Mutex
	facts  map[string]*Facts // repository name → completeness facts of one snapshot
	failed failures          // the last refresh of each root that failed

	lines   lineCache    // source lines quoted by answers, checked against the disk on each use
	imports importsCache // the import paths of files, checked against the disk on each use
}

// New returns a Session over store that may read files under roots and
// indexes a root on first use with index (nil: never index, answer
// INDEX_NOT_READY instead).
func New(store graph.Store, roots []string, index IndexFunc) (*Session, error) {
	s := &Session{store: store, now: time.Now, live: live.New(0),
		set:   Settings{canIndex: index != nil, refresh: index != nil},
		facts: map[string]*Facts{}}
	s.runs = &runs{index: index, now: s.now, set: &s.set, indexing: map[string]*flight{}, ended: map[string]time.Time{}}
	s.fresh = &freshness{set: &s.set, files: map[string]fileSet{}, watches: map[string]*watchState{}}
	for _, r := range roots {
		abs, err := CanonicalDir(r)
		if err != nil {
			return nil, err
		}
		s.roots = append(s.roots, abs)
	}
	sort.Strings(s.roots)
	return s, nil
}

// Now is the session's clock: snapshot ages are measured with it.
func (s *Session) Now() time.Time { return s.now() }

// Settings are the session's settings, for its maker to set before the
// first call.
func (s *Session) Settings() *Settings { return &s.set }

// Roots returns the directories the session may read, canonical.
func (s *Session) Roots() []string { return append([]string(nil), s.roots...) }

// CanonicalDir returns dir as an absolute path with symlinks resolved,
// checking that it is a directory.
func CanonicalDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", graph.Wrap(graph.CodeInvalidArgument, err, "bad directory "+dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", graph.Errorf(graph.CodeFileNotFound, "directory %s does not exist", dir)
		}
		return "", graph.Wrap(graph.CodeReadError, err, "resolving "+dir)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", graph.Wrap(graph.CodeReadError, err, "reading "+dir)
	}
	if !fi.IsDir() {
		return "", graph.Errorf(graph.CodeInvalidArgument, "%s is not a directory", dir)
	}
	return real, nil
}

// Open pins a reader, indexing first any root that has no snapshot yet and
// refreshing any root whose snapshot no longer matches the disk
// (concurrent calls wait for the same run). The caller must close the view.
func (s *Session) Open(ctx context.Context, progress func(Progress)) (*View, error) {
	for attempt := 0; ; attempt++ {
		readAt := s.now()
		r, err := s.store.Read(ctx)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "opening the index")
		}
		repos, err := r.Repositories(ctx)
		if err != nil {
			r.Close()
			return nil, graph.Wrap(graph.CodeInternal, err, "listing repositories")
		}
		v := &View{s: s, r: r, repos: s.scope(repos), used: map[string]bool{}, stale: map[string][]string{}}
		if attempt > 0 {
			// After one indexing round, answer with what is there: a root
			// that still has no snapshot failed, and said so; one that is
			// still stale says why.
			return v, nil
		}
		s.checks.reached(repos)
		missing := unindexedRoots(s.roots, repos, s.set.stageOf(ctx))
		if s.set.stageOf(ctx) != "" {
			s.completeStages(ctx, repos)
		}
		stale := s.staleRoots(v)
		if len(missing) == 0 && len(stale) == 0 {
			return v, nil
		}
		r.Close()
		for _, root := range missing {
			if err := s.runs.indexOnce(ctx, root, readAt, progress); err != nil {
				return nil, err
			}
		}
		for _, rp := range stale {
			started := s.now()
			if err := s.runs.indexOnce(ctx, rp.Root, time.Time{}, progress); err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				var bg *backgroundRun
				if errors.As(err, &bg) {
					// Other languages' indexers run on: answer from the
					// snapshot there, which says it is stale and why.
					s.failed.watch(bg.f, rp)
					continue
				}
				if graph.CodeOf(err) == graph.CodeIndexNotReady {
					// The call's patience ran out while the refresh goes
					// on: answer from the snapshot there, which says it
					// is stale; the refresh has not failed.
					continue
				}
				s.failed.record(rp, started, err)
				continue
			}
			s.failed.record(rp, started, nil)
		}
	}
}

// staleRoots returns the repositories of the roots whose snapshots no
// longer match the disk and are worth refreshing: not those whose last
// refresh failed, unless a file changed since.
func (s *Session) staleRoots(v *View) []graph.RepositoryStatus {
	if !s.set.refresh {
		return nil
	}
	var out []graph.RepositoryStatus
	for _, rp := range v.repos {
		if !s.IsRoot(rp.Root) || len(v.Staleness(rp)) == 0 {
			continue
		}
		f, failed := s.failed.of(rp.Root)
		if failed && f.snapshot == rp.Snapshot.ID && !s.fresh.changedSince(context.Background(), v.r.Catalog, rp, f.at) {
			continue
		}
		out = append(out, rp)
	}
	return out
}

// unindexedRoots returns the roots that have no published snapshot yet,
// or only one of a stage before need (see WithStage).
func unindexedRoots(roots []string, repos []graph.RepositoryStatus, need string) []string {
	var missing []string
	for _, root := range roots {
		found := false
		for _, rp := range repos {
			if rp.Root == root {
				found = graph.StageReached(rp.Snapshot.Stage, need)
				break
			}
		}
		if !found {
			missing = append(missing, root)
		}
	}
	return missing
}

// completeStages starts, in the background, the index of every root whose
// snapshot is only a syntax stage and that no run is indexing (the run
// that published it was killed): the call reads the syntax stage, and the
// complete snapshot follows without waiting for a call that needs it.
func (s *Session) completeStages(ctx context.Context, repos []graph.RepositoryStatus) {
	if s.runs.index == nil {
		return
	}
	for _, rp := range repos {
		if rp.Snapshot.Stage == "" || !s.IsRoot(rp.Root) {
			continue
		}
		if !s.runs.running(rp.Root) {
			// No patience: INDEX_NOT_READY at once, and the run goes on.
			go s.runs.indexOnce(WithPatience(context.WithoutCancel(ctx), 0), rp.Root, time.Time{}, nil)
		}
	}
}

// IsRoot reports whether dir is one of the roots.
func (s *Session) IsRoot(dir string) bool {
	for _, r := range s.roots {
		if r == dir {
			return true
		}
	}
	return false
}
