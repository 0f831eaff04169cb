package fswatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fsnotify/fsnotify"
)

// barrierTimeout bounds the wait for a barrier's event; a watcher whose
// barrier does not come in time is broken.
var barrierTimeout = 3 * time.Second

// barrierQueue is a fsnotify watcher whose every look sends a barrier
// event through the private directory and collects events until it comes
// (see the package comment).
type barrierQueue struct {
	fsw     *fsnotify.Watcher
	private string // the barrier's directory
	seen    string // the barrier's directory as events name it
	cur     string // the barrier file's current path
	seq     uint64
}

func newBarrier(root string, dirs []string) (queue, error) {
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, fmt.Errorf("starting a watcher: %w", err)
	}
	q := &barrierQueue{fsw: fsw}
	if q.private, err = os.MkdirTemp("", "sextant-watch-"); err != nil {
		fsw.Close()
		return nil, err
	}
	q.cur = filepath.Join(q.private, barrierName(0))
	if err := os.WriteFile(q.cur, nil, 0o600); err != nil {
		q.close()
		return nil, err
	}
	if err := fsw.Add(q.private); err != nil {
		q.close()
		return nil, fmt.Errorf("watching: %w", err)
	}
	for _, d := range dirs {
		p, err := watchedDir(root, d)
		if err == nil {
			// The smallest buffer Windows takes: an overflow is an error
			// event, which counts as a change.
			if err = fsw.AddWith(p, fsnotify.WithBufferSize(4096)); err != nil {
				err = fmt.Errorf("watching %s: %w", d, err)
			}
		}
		if err != nil {
			q.close()
			return nil, err
		}
	}
	// The first barrier learns how events name the private directory
	// and proves the watch delivers at all.
	if _, ok := q.changed(); !ok {
		q.close()
		return nil, errors.New("the watch delivers no events")
	}
	return q, nil
}

func barrierName(seq uint64) string { return ".barrier-" + strconv.FormatUint(seq, 10) }

// changed renames the barrier file and collects events until its own
// comes: changed is whether any other came first; ok is false when the
// watch failed.
func (q *barrierQueue) changed() (changed, ok bool) {
	q.seq++
	name := barrierName(q.seq)
	next := filepath.Join(q.private, name)
	if err := os.Rename(q.cur, next); err != nil {
		return true, false
	}
	q.cur = next
	timer := time.NewTimer(barrierTimeout)
	defer timer.Stop()
	for {
		select {
		case ev, open := <-q.fsw.Events:
			if !open {
				return true, false
			}
			dir := filepath.Dir(ev.Name)
			if q.seen == "" && filepath.Base(ev.Name) == name {
				q.seen = dir
			}
			if dir != q.seen {
				changed = true
			} else if filepath.Base(ev.Name) == name && ev.Has(fsnotify.Create) {
				return changed, true
			}
		case _, open := <-q.fsw.Errors:
			if !open {
				return true, false
			}
			changed = true // an overflow: events were lost
		case <-timer.C:
			return true, false
		}
	}
}

// close stops watching and removes the barrier's directory.
func (q *barrierQueue) close() error {
	err := q.fsw.Close()
	if q.private != "" {
		os.RemoveAll(q.private)
	}
	return err
}
