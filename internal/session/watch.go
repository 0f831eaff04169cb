package session

import (
	"context"
	"time"

	"github.com/sextant-dev/sextant/internal/fswatch"
	"github.com/sextant-dev/sextant/internal/graph"
)

// Watch keeps the roots' snapshots fresh in the background until ctx ends,
// so that most calls find them fresh already: every interval it does what
// a call does before answering (index a root with no snapshot, refresh a
// stale one). With the directory watch the check costs nothing while no
// file changes. refreshed, when set, is told of each check that published
// a new snapshot; errors are for the next call to report.
func (s *Session) Watch(ctx context.Context, interval time.Duration, refreshed func(snapshots map[string]int64)) {
	// The snapshots as they are before the first look, so that a refresh
	// the first look makes is reported too.
	last := map[string]int64{}
	if repos, err := graph.Repositories(ctx, s.store); err == nil {
		for _, rp := range repos {
			if s.IsRoot(rp.Root) {
				last[rp.Root] = rp.Snapshot.ID
			}
		}
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if v, err := s.Open(ctx, nil); err == nil {
			changed := map[string]int64{}
			for _, r := range v.repos {
				if s.IsRoot(r.Root) && last[r.Root] != r.Snapshot.ID {
					if _, seen := last[r.Root]; seen {
						changed[r.Name] = r.Snapshot.ID
					}
					last[r.Root] = r.Snapshot.ID
				}
			}
			v.Close()
			if len(changed) > 0 && refreshed != nil {
				refreshed(changed)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// dirWatch is the directory watch of one snapshot (internal/fswatch): a
// call that finds it clean knows no file changed since it last looked.
type dirWatch struct{ w *fswatch.Watcher }

// newDirWatch watches root/dir for each dir; nil when the platform cannot
// (too many files, no change notification, a directory replaced by a
// symlink): the caller then stats through os.Root.
func newDirWatch(root string, dirs []string) *dirWatch {
	w, err := fswatch.New(root, dirs)
	if err != nil {
		return nil
	}
	return &dirWatch{w}
}

// changed reports whether anything changed since the last call; a watch
// that failed counts as a change, so the caller stats.
func (d *dirWatch) changed() bool { return d.w.Changed() }

func (d *dirWatch) close() { d.w.Close() }

// Close ends the session's directory watches and closes the stores of
// its checks (see OpenChecked). The session keeps answering afterwards,
// statting files as it would without a watch.
func (s *Session) Close() {
	s.fresh.close()
	s.checks.close()
}
