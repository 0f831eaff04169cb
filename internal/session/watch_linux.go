//go:build linux

package session

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirWatch is an inotify instance watching the directories of one
// snapshot. The kernel queues an event during the write system call
// itself, so draining the queue at the start of a call sees every change
// that finished before the call began: a clean queue proves freshness
// without statting every file.
type dirWatch struct {
	fd  int
	buf []byte // the events read by changed, reused: callers hold Service.mu
}

// watchMask is every change that can make a snapshot stale: content,
// metadata, and entries appearing, disappearing or moving.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_DELETE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MOVE_SELF

// newDirWatch watches root/dir for each dir (a directory replaced by a
// symlink is not followed: the watch fails and the caller stats through
// os.Root); nil when inotify is not
// available or a directory cannot be watched (the caller then stats).
func newDirWatch(root string, dirs []string) *dirWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	for _, d := range dirs {
		if _, err := unix.InotifyAddWatch(fd, filepath.Join(root, filepath.FromSlash(d)), watchMask|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW); err != nil {
			unix.Close(fd)
			return nil
		}
	}
	return &dirWatch{fd: fd, buf: make([]byte, 64<<10)}
}

// changed drains the event queue and reports whether anything happened
// since the last drain (an overflowed queue counts as a change).
//
// The buffer is the watch's own, not a new one per call: a 64 KiB
// buffer on the stack of each call's goroutine cost its zeroing and two
// stack growths, about 40 µs a call.
func (w *dirWatch) changed() bool {
	any := false
	for {
		n, err := unix.Read(w.fd, w.buf)
		if n > 0 {
			any = true
			continue
		}
		if err == unix.EINTR {
			continue
		}
		// EAGAIN: the queue is empty. Any other error: assume a change,
		// so the caller falls back to statting.
		return any || (err != nil && err != unix.EAGAIN)
	}
}

func (w *dirWatch) close() { unix.Close(w.fd) }
