// Package fswatch answers one question about a set of directories: has
// anything in them changed since it was last asked? It is what lets a
// freshness check skip statting every file of a snapshot.
//
// The events come from github.com/fsnotify/fsnotify: inotify on Linux,
// kqueue on macOS and the BSDs, ReadDirectoryChangesW on Windows. Those
// deliver events through a goroutine, later than the change itself, so an
// empty queue alone proves nothing. Changed therefore sends a barrier
// first: it renames a file in a private directory watched by the same
// watcher and waits for that event. Every kernel queues a watcher's
// events in the order of the changes, so once the barrier's event has
// come, every change finished before the call has come too: no event
// before the barrier means nothing changed.
//
// A watch that cannot be set up (too many directories or files for the
// platform's limits, a file system without change notification, a
// directory replaced by a symlink) is an error of New; the caller then
// stats. A watch that stops working answers "changed" from then on.
//
// It sits beside internal/rootfs, below every package that reads
// repositories, and imports nothing of Sextant.
package fswatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ErrTooMany is a set of directories beyond what the platform can watch
// without exhausting file descriptors (kqueue holds one per file) or
// kernel buffers (ReadDirectoryChangesW holds one per directory).
var ErrTooMany = errors.New("too many files to watch")

// barrierTimeout bounds the wait for a barrier's event; a watcher whose
// barrier does not come in time is broken.
var barrierTimeout = 3 * time.Second

// Watcher watches a fixed set of directories (not their subdirectories:
// each directory of interest is named).
type Watcher struct {
	fsw     *fsnotify.Watcher
	private string // the barrier's directory
	seen    string // the barrier's directory as events name it
	cur     string // the barrier file's current path
	seq     uint64
	broken  bool
}

// New watches root/dir for each dir (slash-separated, relative to root;
// "." is root itself). Directories are added parents first, so a
// directory swapped for a symlink after its parent's watch began is an
// event of the parent; one that is a symlink or not a directory when
// added fails New.
func New(root string, dirs []string) (*Watcher, error) {
	dirs = append([]string(nil), dirs...)
	sort.Slice(dirs, func(i, j int) bool {
		di, dj := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/")
		if di != dj {
			return di < dj
		}
		return dirs[i] < dirs[j]
	})
	if err := checkBudget(root, dirs); err != nil {
		return nil, err
	}
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, fmt.Errorf("starting a watcher: %w", err)
	}
	w := &Watcher{fsw: fsw}
	if w.private, err = os.MkdirTemp("", "sextant-watch-"); err != nil {
		fsw.Close()
		return nil, err
	}
	w.cur = filepath.Join(w.private, barrierName(0))
	if err := os.WriteFile(w.cur, nil, 0o600); err != nil {
		w.Close()
		return nil, err
	}
	if err := fsw.Add(w.private); err != nil {
		w.Close()
		return nil, fmt.Errorf("watching: %w", err)
	}
	for _, d := range dirs {
		p := filepath.Join(root, filepath.FromSlash(d))
		fi, err := os.Lstat(p)
		if err == nil && !fi.IsDir() {
			err = fmt.Errorf("%s: not a directory (a symlink is not followed)", d)
		}
		if err == nil {
			// The smallest buffer Windows takes: an overflow is an error
			// event, which counts as a change.
			err = fsw.AddWith(p, fsnotify.WithBufferSize(4096))
		}
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("watching %s: %w", d, err)
		}
	}
	// The first barrier learns how events name the private directory
	// and proves the watch delivers at all.
	if _, ok := w.barrier(); !ok {
		w.Close()
		return nil, errors.New("the watch delivers no events")
	}
	return w, nil
}

func barrierName(seq uint64) string { return ".barrier-" + strconv.FormatUint(seq, 10) }

// Changed reports whether anything changed in the watched directories
// since the last call (or since New): a file written, created, removed,
// renamed, or its metadata changed; an overflowed queue or a broken watch
// counts as a change. It is not safe for concurrent use.
func (w *Watcher) Changed() bool {
	if w.broken {
		return true
	}
	changed, ok := w.barrier()
	if !ok {
		w.broken = true
		return true
	}
	return changed
}

// barrier renames the barrier file and collects events until its own
// comes: changed is whether any other came first; ok is false when the
// watch failed.
func (w *Watcher) barrier() (changed, ok bool) {
	w.seq++
	name := barrierName(w.seq)
	next := filepath.Join(w.private, name)
	if err := os.Rename(w.cur, next); err != nil {
		return true, false
	}
	w.cur = next
	timer := time.NewTimer(barrierTimeout)
	defer timer.Stop()
	for {
		select {
		case ev, open := <-w.fsw.Events:
			if !open {
				return true, false
			}
			dir := filepath.Dir(ev.Name)
			if w.seen == "" && filepath.Base(ev.Name) == name {
				w.seen = dir
			}
			if dir != w.seen {
				changed = true
			} else if filepath.Base(ev.Name) == name && ev.Has(fsnotify.Create) {
				return changed, true
			}
		case _, open := <-w.fsw.Errors:
			if !open {
				return true, false
			}
			changed = true // an overflow: events were lost
		case <-timer.C:
			return true, false
		}
	}
}

// Close stops watching and removes the barrier's directory.
func (w *Watcher) Close() error {
	err := w.fsw.Close()
	if w.private != "" {
		os.RemoveAll(w.private)
	}
	return err
}
