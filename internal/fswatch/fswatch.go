// Package fswatch answers one question about a set of directories: has
// anything in them changed since it was last asked? It is what lets a
// freshness check skip statting every file of a snapshot.
//
// On Linux the answer is read straight from an inotify descriptor. The
// kernel queues an event inside the system call that makes the change,
// so a queue found empty by a non-blocking read proves that nothing
// changed before the call: one read system call, no goroutine.
//
// Elsewhere the events come from github.com/fsnotify/fsnotify: kqueue on
// macOS and the BSDs, ReadDirectoryChangesW on Windows. Those deliver
// events through a goroutine, later than the change itself, so an empty
// queue alone proves nothing. Changed therefore sends a barrier first: it
// renames a file in a private directory watched by the same watcher and
// waits for that event. Every kernel queues a watcher's events in the
// order of the changes, so once the barrier's event has come, every
// change finished before the call has come too: no event before the
// barrier means nothing changed. The barrier queue builds and is tested
// on Linux too.
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
	"strings"
)

// ErrTooMany is a set of directories beyond what the platform can watch
// without exhausting file descriptors (kqueue holds one per file) or
// kernel buffers (ReadDirectoryChangesW holds one per directory).
var ErrTooMany = errors.New("too many files to watch")

// Watcher watches a fixed set of directories (not their subdirectories:
// each directory of interest is named).
type Watcher struct {
	q      queue
	broken bool
}

// queue is one platform's way of asking whether events came since the
// last look.
type queue interface {
	// changed reports whether any event came since the last call; ok
	// is false when the watch stopped working.
	changed() (changed, ok bool)
	close() error
}

// newQueueFunc starts a queue on root/dir for each dir, which New has
// sorted parents first and checked against the budget.
type newQueueFunc func(root string, dirs []string) (queue, error)

// New watches root/dir for each dir (slash-separated, relative to root;
// "." is root itself). Directories are added parents first, so a
// directory swapped for a symlink after its parent's watch began is an
// event of the parent; one that is a symlink or not a directory when
// added fails New.
func New(root string, dirs []string) (*Watcher, error) { return newWith(newQueue, root, dirs) }

func newWith(start newQueueFunc, root string, dirs []string) (*Watcher, error) {
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
	q, err := start(root, dirs)
	if err != nil {
		return nil, err
	}
	return &Watcher{q: q}, nil
}

// watchedDir is root/d after checking that it is a directory and not a
// symlink, which no watch follows.
func watchedDir(root, d string) (string, error) {
	p := filepath.Join(root, filepath.FromSlash(d))
	fi, err := os.Lstat(p)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s: not a directory (a symlink is not followed)", d)
	}
	if err != nil {
		return "", fmt.Errorf("watching %s: %w", d, err)
	}
	return p, nil
}

// Changed reports whether anything changed in the watched directories
// since the last call (or since New): a file written, created, removed,
// renamed, or its metadata changed; an overflowed queue or a broken watch
// counts as a change. It is not safe for concurrent use.
func (w *Watcher) Changed() bool {
	if w.broken {
		return true
	}
	changed, ok := w.q.changed()
	if !ok {
		w.broken = true
		return true
	}
	return changed
}

// Close stops watching and removes what the watch made.
func (w *Watcher) Close() error { return w.q.close() }
