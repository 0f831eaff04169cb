package session

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/par"
)

// fileSet is the files and directories of one snapshot, whose stats a
// freshness check compares with the disk.
type fileSet struct {
	snapshot int64
	files    []graph.File
	dirs     []string
}

// freshness compares the snapshots of a session's repositories with the
// disk: the files of each snapshot, cached, and the directory watch of
// each, by which a check that saw no change since the last answers
// without statting.
type freshness struct {
	set *Settings

	mu      sync.Mutex
	files   map[string]fileSet     // repository name → files of one snapshot
	watches map[string]*watchState // repository name → directory watch of its snapshot
	gen     uint64                 // the last watch generation handed out (see watchState.gen)
}

// maxStaleReasons bounds how many changed paths an answer names.
const maxStaleReasons = 5

// staleness answers whether repo's pinned snapshot still matches the disk.
// With a directory watch whose queue has stayed empty since a full check
// found the snapshot fresh, it answers at once; otherwise it stats. A
// snapshot of records another build would write (graph.Snapshot.Format)
// is stale whatever the disk holds.
func (s *freshness) staleness(ctx context.Context, r graph.Catalog, repo graph.RepositoryStatus) []string {
	if other := repo.Snapshot.OtherFormat(); other != "" {
		return []string{"indexed by another version of sextant (" + other + "): it needs a whole index"}
	}
	if !filepath.IsAbs(repo.Root) {
		// A repository of a shared graph published by CI (root
		// shared:NAME) has no directory here: it is as fresh as its
		// last publish, which its snapshot age says.
		return nil
	}
	fs, err := s.fileSet(ctx, r, repo)
	if err != nil {
		return []string{"could not compare with disk: " + err.Error()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.watches[repo.Name]
	if w != nil && w.snapshot != repo.Snapshot.ID {
		w.watch.close()
		delete(s.watches, repo.Name)
		w = nil
	}
	if w == nil && !s.set.noDirWatch {
		// Watch first, then stat: a change after the watch starts is
		// queued, one before it is seen by the stat.
		if dw := newDirWatch(repo.Root, fs.dirs); dw != nil {
			s.gen++
			w = &watchState{snapshot: repo.Snapshot.ID, watch: dw, dirty: true, gen: s.gen}
			s.watches[repo.Name] = w
		}
	}
	if w != nil && w.watch.changed() {
		w.dirty = true
		s.gen++
		w.gen = s.gen
	}
	if w != nil && !w.dirty {
		return nil
	}
	reasons, linked := statCheck(repo, fs)
	if w != nil && len(reasons) == 0 {
		// A file read through a symlink can change where no watch
		// sees it: such a repository is statted at every check.
		w.dirty = linked
	}
	return reasons
}

// watchState is the directory watch of one repository's snapshot. dirty
// means the last full check found changes, or events came since.
type watchState struct {
	snapshot int64
	watch    *dirWatch
	dirty    bool
	gen      uint64 // renewed (from freshness.gen) at every event and with every new watch
}

// cleanGen returns the generation of repo's directory watch when no event
// came since a full check found the snapshot matching the disk, else 0:
// files read since in that generation are unchanged (see
// lineCache.cached). The caller has found repo fresh by this watch.
func (s *freshness) cleanGen(repo graph.RepositoryStatus) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.watches[repo.Name]
	if w == nil || w.dirty || w.snapshot != repo.Snapshot.ID {
		return 0
	}
	return w.gen
}

// close ends every directory watch; a later check starts its
// repository's again.
func (s *freshness) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, w := range s.watches {
		w.watch.close()
		delete(s.watches, name)
	}
}

// statCheck compares the files of repo's pinned snapshot with the disk:
// a file whose size or modification time differs, a file that is gone, or a
// directory changed after the snapshot (a file added, removed or renamed)
// makes the answer stale. It stats, never reads, so it stays cheap.
// linked reports a file of the snapshot that is a symlink.
func statCheck(repo graph.RepositoryStatus, fs fileSet) (reasons []string, linked bool) {
	// Stats go through os.Root like reads: a directory of the snapshot
	// swapped for a symlink out of the root is not followed.
	root, err := os.OpenRoot(repo.Root)
	if err != nil {
		return []string{"repository root " + repo.Root + " is gone"}, false
	}
	defer root.Close()
	published := repo.Snapshot.CreatedAt.UnixNano()
	var (
		mu    sync.Mutex
		links atomic.Bool
	)
	add := func(msg string) {
		mu.Lock()
		reasons = append(reasons, msg)
		mu.Unlock()
	}
	check := func(i int) {
		if i < len(fs.files) {
			f := fs.files[i]
			fi, link, err := statIndexed(root, filepath.FromSlash(f.Path))
			if link {
				links.Store(true)
			}
			switch {
			case err != nil:
				add("deleted: " + f.Path)
			case fi.Size() != f.Size || fi.ModTime().UnixNano() != f.ModTimeNS:
				add("changed: " + f.Path)
			}
			return
		}
		d := fs.dirs[i-len(fs.files)]
		fi, err := root.Lstat(filepath.FromSlash(d))
		switch {
		case err != nil:
			add("deleted: " + d + "/")
		case fi.ModTime().UnixNano() > published:
			add("files added or removed in " + d + "/")
		}
	}
	n := len(fs.files) + len(fs.dirs)
	par.EachOn(min(runtime.GOMAXPROCS(0), 1+n/512), n, check)
	if len(reasons) == 0 {
		return nil, links.Load()
	}
	sort.Strings(reasons)
	if len(reasons) > maxStaleReasons {
		more := len(reasons) - maxStaleReasons
		reasons = append(reasons[:maxStaleReasons], fmt.Sprintf("and %d more changes", more))
	}
	return append(reasons, "run `sextant index "+repo.Root+"` to refresh"), links.Load()
}

// changedSince reports whether a file or directory of repo's snapshot
// changed on disk after t (or went away): whether a refresh that failed at
// t is worth trying again.
func (s *freshness) changedSince(ctx context.Context, r graph.Catalog, repo graph.RepositoryStatus, t time.Time) bool {
	fs, err := s.fileSet(ctx, r, repo)
	if err != nil {
		return true
	}
	since := t.UnixNano()
	root, err := os.OpenRoot(repo.Root) // stats stay inside the root, as in statCheck
	if err != nil {
		return true
	}
	defer root.Close()
	// A file removed since is seen by its directory's time; one that was
	// already gone at t is no news.
	for _, f := range fs.files {
		fi, _, err := statIndexed(root, filepath.FromSlash(f.Path))
		if err == nil && fi.ModTime().UnixNano() >= since {
			return true
		}
	}
	for _, d := range fs.dirs {
		fi, err := root.Lstat(filepath.FromSlash(d))
		if err != nil || fi.ModTime().UnixNano() >= since {
			return true
		}
	}
	return false
}

// fileSet returns the files and directories of repo's snapshot, cached per
// snapshot id.
func (s *freshness) fileSet(ctx context.Context, r graph.Catalog, repo graph.RepositoryStatus) (fileSet, error) {
	s.mu.Lock()
	fs, ok := s.files[repo.Name]
	s.mu.Unlock()
	if ok && fs.snapshot == repo.Snapshot.ID {
		return fs, nil
	}
	files, err := r.Files(ctx, repo.Name)
	if err != nil {
		return fileSet{}, err
	}
	dirs := map[string]bool{".": true}
	for _, m := range repo.Modules {
		dirs[m.Dir] = true
	}
	for _, f := range files {
		for d := path.Dir(f.Path); !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	fs = fileSet{snapshot: repo.Snapshot.ID, files: files}
	for d := range dirs {
		fs.dirs = append(fs.dirs, d)
	}
	sort.Strings(fs.dirs)
	s.mu.Lock()
	s.files[repo.Name] = fs
	s.mu.Unlock()
	return fs, nil
}
