package fswatch

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// newQueue on Linux reads inotify directly: see the package comment.
var newQueue newQueueFunc = newInotify

// inotifyMask is every change that can make a snapshot stale: content,
// metadata, and entries appearing, disappearing or moving.
const inotifyMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_DELETE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MOVE_SELF

// inotifyQueue is a non-blocking inotify descriptor watching the
// directories.
type inotifyQueue struct {
	fd int
	// buf is the queue's own, not one per call: a 64 KiB buffer on the
	// stack of each call's goroutine costs its zeroing and two stack
	// growths.
	buf []byte
}

func newInotify(root string, dirs []string) (queue, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("starting a watcher: %w", err)
	}
	q := &inotifyQueue{fd: fd, buf: make([]byte, 64<<10)}
	for _, d := range dirs {
		p, err := watchedDir(root, d)
		if err == nil {
			// IN_DONT_FOLLOW with IN_ONLYDIR: a directory swapped for a
			// symlink between the check and the watch fails too.
			_, err = unix.InotifyAddWatch(fd, p, inotifyMask|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
			switch {
			case errors.Is(err, unix.ENOSPC):
				err = fmt.Errorf("watching %s: %w (fs.inotify.max_user_watches: %w)", d, ErrTooMany, err)
			case err != nil:
				err = fmt.Errorf("watching %s: %w", d, err)
			}
		}
		if err != nil {
			q.close()
			return nil, err
		}
	}
	return q, nil
}

// changed drains the queue without blocking. A directory whose watch
// ended (removed, moved, or its file system unmounted) leaves the watch
// blind there, so it is reported as a failure: the caller stats from then
// on.
func (q *inotifyQueue) changed() (changed, ok bool) {
	for {
		n, err := unix.Read(q.fd, q.buf)
		if n > 0 {
			changed = true
			if watchEnded(q.buf[:n]) {
				return true, false
			}
			continue
		}
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return changed, true
		}
		return true, false
	}
}

// watchEnded reports whether the events in buf, as read from an inotify
// descriptor, include the end of a watch. A record cut short ends the
// watch too: the queue can no longer be trusted.
func watchEnded(buf []byte) bool {
	const end = unix.IN_IGNORED | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_UNMOUNT
	for len(buf) > 0 {
		if len(buf) < unix.SizeofInotifyEvent {
			return true
		}
		// struct inotify_event: int wd; uint32 mask, cookie, len; name.
		mask := binary.NativeEndian.Uint32(buf[4:8])
		size := uint64(unix.SizeofInotifyEvent) + uint64(binary.NativeEndian.Uint32(buf[12:16]))
		if mask&end != 0 || size > uint64(len(buf)) {
			return true
		}
		buf = buf[size:]
	}
	return false
}

func (q *inotifyQueue) close() error { return unix.Close(q.fd) }
