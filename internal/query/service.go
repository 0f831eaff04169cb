package query

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/live"
)

// Progress is reported while a root is indexed on first use.
type Progress struct {
	Root    string
	Phase   string // discover, load, extract, publish
	Done    int
	Total   int
	Message string
}

// IndexFunc indexes the repository at root and publishes a snapshot. The
// CLI wires it to internal/index; tests may wire anything that publishes.
type IndexFunc func(ctx context.Context, root string, progress func(Progress)) error

// Service answers every tool. It is safe for concurrent use.
type Service struct {
	store   graph.Store
	roots   []string // absolute, symlinks resolved, sorted
	index   IndexFunc
	now     func() time.Time
	refresh bool // re-index a stale root before answering (see SetRefresh)
	// noDirWatch turns off the directory watch that lets a freshness
	// check skip its stats (see SetDirWatch).
	noDirWatch bool
	live       *live.Cache // the position tools' packages, compiled from disk

	mu       sync.Mutex
	indexing map[string]*flight        // root → the indexing run in progress
	files    map[string]fileSet        // repository name → files of one snapshot, for freshness
	watches  map[string]*watchState    // repository name → directory watch of its snapshot
	watchGen uint64                    // the last watch generation handed out (see watchState.gen)
	facts    map[string]*repoFacts     // repository name → completeness facts of one snapshot
	failed   map[string]refreshFailure // root → the last refresh that failed

	lsp lspBridge // language servers started for the lsp tools; Close shuts them down

	lines lineCache // source lines quoted by answers, checked against the disk on each use
}

// refreshFailure is a refresh of a stale root that failed (a broken
// go.mod, say): the snapshot it started from keeps serving, marked stale
// with the error, and the refresh is tried again once a file changes.
type refreshFailure struct {
	snapshot int64     // the snapshot that kept serving
	at       time.Time // when the failed run started
	err      string
}

type flight struct {
	done chan struct{}
	err  error
}

type fileSet struct {
	snapshot int64
	files    []graph.File
	dirs     []string
}

// New returns a Service over store that may read files under roots and
// indexes a root on first use with index (nil: never index, answer
// INDEX_NOT_READY instead).
func New(store graph.Store, roots []string, index IndexFunc) (*Service, error) {
	s := &Service{store: store, index: index, now: time.Now, refresh: index != nil, live: live.New(0),
		indexing: map[string]*flight{}, files: map[string]fileSet{}, watches: map[string]*watchState{}, facts: map[string]*repoFacts{},
		failed: map[string]refreshFailure{}}
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

// SetRefresh turns refreshing on or off (on by default when the service
// can index). On, a call that finds a root's snapshot stale re-indexes the
// root before answering, so an answer never describes code older than the
// disk when the call began; concurrent calls share one run. Off, such
// answers say fresh: false and why.
func (s *Service) SetRefresh(on bool) { s.refresh = on && s.index != nil }

// SetDirWatch turns on or off (on by default, where inotify is
// available) the directory watch by which a freshness check that saw no
// change since the last one answers without statting every file. Off,
// every check stats; benchmarks compare the two. Set it before the first
// call.
func (s *Service) SetDirWatch(on bool) { s.noDirWatch = !on }

// Roots returns the directories the service may read, canonical.
func (s *Service) Roots() []string { return append([]string(nil), s.roots...) }

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

// view is one request's pinned reader plus what the request learned about
// the repositories it read.
type view struct {
	s     *Service
	r     graph.Reader
	repos []graph.RepositoryStatus
	used  map[string]bool     // repositories this answer read
	stale map[string][]string // staleness verdicts already computed, by repository
	done  []func()            // run by close, after the reader is closed
}

// onClose runs f when the view is closed.
func (v *view) onClose(f func()) { v.done = append(v.done, f) }

// staleness returns why repo's snapshot no longer matches the disk (nil when
// it does), computed once per request.
func (v *view) staleness(r graph.RepositoryStatus) []string {
	if reasons, ok := v.stale[r.Name]; ok {
		return reasons
	}
	reasons := v.s.staleness(context.Background(), v.r, r)
	v.stale[r.Name] = reasons
	return reasons
}

// open pins a reader, indexing first any root that has no snapshot yet and
// refreshing any root whose snapshot no longer matches the disk
// (concurrent calls wait for the same run). The caller must close the view.
func (s *Service) open(ctx context.Context, progress func(Progress)) (*view, error) {
	for attempt := 0; ; attempt++ {
		r, err := s.store.Read(ctx)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "opening the index")
		}
		repos, err := r.Repositories(ctx)
		if err != nil {
			r.Close()
			return nil, graph.Wrap(graph.CodeInternal, err, "listing repositories")
		}
		v := &view{s: s, r: r, repos: repos, used: map[string]bool{}, stale: map[string][]string{}}
		if attempt > 0 {
			// After one indexing round, answer with what is there: a root
			// that still has no snapshot failed, and said so; one that is
			// still stale says why.
			return v, nil
		}
		missing := s.unindexedRoots(repos)
		stale := s.staleRoots(v)
		if len(missing) == 0 && len(stale) == 0 {
			return v, nil
		}
		r.Close()
		for _, root := range missing {
			if err := s.indexOnce(ctx, root, progress); err != nil {
				return nil, err
			}
		}
		for _, rp := range stale {
			started := s.now()
			if err := s.indexOnce(ctx, rp.Root, progress); err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				s.mu.Lock()
				s.failed[rp.Root] = refreshFailure{snapshot: rp.Snapshot.ID, at: started, err: err.Error()}
				s.mu.Unlock()
				continue
			}
			s.mu.Lock()
			delete(s.failed, rp.Root)
			s.mu.Unlock()
		}
	}
}

// staleRoots returns the repositories of the roots whose snapshots no
// longer match the disk and are worth refreshing: not those whose last
// refresh failed, unless a file changed since.
func (s *Service) staleRoots(v *view) []graph.RepositoryStatus {
	if !s.refresh {
		return nil
	}
	var out []graph.RepositoryStatus
	for _, rp := range v.repos {
		if !s.isRoot(rp.Root) || len(v.staleness(rp)) == 0 {
			continue
		}
		s.mu.Lock()
		f, failed := s.failed[rp.Root]
		s.mu.Unlock()
		if failed && f.snapshot == rp.Snapshot.ID && !s.changedSince(context.Background(), v.r, rp, f.at) {
			continue
		}
		out = append(out, rp)
	}
	return out
}

func (v *view) close() {
	v.r.Close()
	for _, f := range v.done {
		f()
	}
}

// unindexedRoots returns the roots that have no published snapshot yet.
func (s *Service) unindexedRoots(repos []graph.RepositoryStatus) []string {
	var missing []string
	for _, root := range s.roots {
		found := false
		for _, rp := range repos {
			if rp.Root == root {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, root)
		}
	}
	return missing
}

func (s *Service) indexOnce(ctx context.Context, root string, progress func(Progress)) error {
	if s.index == nil {
		return graph.Errorf(graph.CodeIndexNotReady, "%s is not indexed yet; run `sextant index %s`", root, root)
	}
	s.mu.Lock()
	f, running := s.indexing[root]
	if !running {
		f = &flight{done: make(chan struct{})}
		s.indexing[root] = f
		go func() {
			// The run belongs to no single caller: it goes on if the caller
			// that started it gives up, so the next call finds it done.
			f.err = s.index(context.WithoutCancel(ctx), root, progress)
			s.mu.Lock()
			delete(s.indexing, root)
			s.mu.Unlock()
			close(f.done)
		}()
	}
	s.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return graph.Wrap(graph.CodeIndexNotReady, ctx.Err(), root+" is still being indexed; call again shortly")
	}
	if f.err != nil {
		var ge *graph.Error
		if errors.As(f.err, &ge) {
			return ge
		}
		return graph.Wrap(graph.CodeIndexingFailed, f.err, "indexing "+root+" failed")
	}
	return nil
}

// repo returns the repository called name; "" picks the only root's
// repository, or the only repository when there is one.
func (v *view) repo(name string) (graph.RepositoryStatus, error) {
	if name != "" {
		for _, r := range v.repos {
			if r.Name == name {
				return r, nil
			}
		}
		names := make([]string, len(v.repos))
		for i, r := range v.repos {
			names[i] = r.Name
		}
		return graph.RepositoryStatus{}, graph.Errorf(graph.CodeRepositoryNotFound,
			"no repository named %q; call list_repositories to see them", name).WithData("available", names)
	}
	var inRoots []graph.RepositoryStatus
	for _, r := range v.repos {
		if v.s.isRoot(r.Root) {
			inRoots = append(inRoots, r)
		}
	}
	if len(inRoots) == 1 {
		return inRoots[0], nil
	}
	if len(inRoots) == 0 && len(v.repos) == 1 {
		return v.repos[0], nil
	}
	names := make([]string, 0, len(v.repos))
	for _, r := range v.repos {
		names = append(names, r.Name)
	}
	if len(names) == 0 {
		return graph.RepositoryStatus{}, graph.Errorf(graph.CodeIndexNotReady, "nothing is indexed yet; run `sextant index DIR`")
	}
	return graph.RepositoryStatus{}, invalid("repository", "several repositories are indexed; name one of %s", strings.Join(names, ", ")).WithData("available", names)
}

func (s *Service) isRoot(dir string) bool {
	for _, r := range s.roots {
		if r == dir {
			return true
		}
	}
	return false
}

// use records that the answer read repository name.
func (v *view) use(names ...string) {
	for _, n := range names {
		v.used[n] = true
	}
}

// viewKey identifies the snapshots of the repositories named, for cursors.
func (v *view) viewKey(names []string) string {
	var parts []string
	for _, r := range v.repos {
		if len(names) == 0 || contains(names, r.Name) {
			parts = append(parts, fmt.Sprintf("%s@%d", r.Name, r.Snapshot.ID))
		}
	}
	return fingerprint(parts)
}

// envelope fills the snapshot fields of an answer from the repositories the
// answer read: the newest snapshot id, its age, and whether all are fresh.
func (v *view) envelope() Envelope {
	var env Envelope
	env.Fresh = true
	var newest time.Time
	for _, r := range v.repos {
		if !v.used[r.Name] {
			continue
		}
		if r.Snapshot.ID > env.SnapshotID {
			env.SnapshotID = r.Snapshot.ID
		}
		if r.Snapshot.CreatedAt.After(newest) {
			newest = r.Snapshot.CreatedAt
		}
		if reasons := v.staleness(r); len(reasons) > 0 {
			env.Fresh = false
			v.s.mu.Lock()
			f, failed := v.s.failed[r.Root]
			v.s.mu.Unlock()
			if failed && f.snapshot == r.Snapshot.ID {
				env.StaleReasons = append(env.StaleReasons, "refreshing failed, so this is the last good snapshot: "+f.err)
			}
			env.StaleReasons = append(env.StaleReasons, reasons...)
		}
	}
	if !newest.IsZero() {
		env.SnapshotAgeMS = v.s.now().Sub(newest).Milliseconds()
	}
	return env
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
