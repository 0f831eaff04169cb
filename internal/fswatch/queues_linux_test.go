package fswatch

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

var queues = map[string]newQueueFunc{"inotify": newInotify, "barrier": newBarrier}

// TestInotifyRemovedDirectory: a watched directory removed ends its
// watch, so every later look reports a change (the caller stats), even
// when the directory comes back and changes unseen.
func TestInotifyRemovedDirectory(t *testing.T) {
	root := tree(t, ".", "a")
	w := watch(t, newInotify, root, ".", "a")
	a := filepath.Join(root, "a")
	if err := os.RemoveAll(a); err != nil {
		t.Fatal(err)
	}
	if !w.Changed() {
		t.Fatal("removal not reported")
	}
	if err := os.Mkdir(a, 0o755); err != nil {
		t.Fatal(err)
	}
	w.Changed() // the mkdir, seen by the parent's watch
	if err := os.WriteFile(filepath.Join(a, "f.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !w.Changed() {
		t.Error("a write in a directory whose watch ended was reported as no change")
	}
}

// event is one inotify record as the kernel writes it.
func event(mask uint32, name string) []byte {
	b := make([]byte, unix.SizeofInotifyEvent+len(name))
	binary.NativeEndian.PutUint32(b[0:4], 1)
	binary.NativeEndian.PutUint32(b[4:8], mask)
	binary.NativeEndian.PutUint32(b[12:16], uint32(len(name)))
	copy(b[unix.SizeofInotifyEvent:], name)
	return b
}

func TestWatchEnded(t *testing.T) {
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	for _, c := range []struct {
		name string
		buf  []byte
		want bool
	}{
		{"none", nil, false},
		{"write", event(unix.IN_MODIFY, "f.txt\x00\x00\x00"), false},
		{"writes", cat(event(unix.IN_CREATE, "a\x00\x00\x00"), event(unix.IN_CLOSE_WRITE, "a\x00\x00\x00")), false},
		{"ignored after a write", cat(event(unix.IN_MODIFY, "f"), event(unix.IN_IGNORED, "")), true},
		{"deleted", event(unix.IN_DELETE_SELF, ""), true},
		{"moved", event(unix.IN_MOVE_SELF, ""), true},
		{"unmounted", event(unix.IN_UNMOUNT, ""), true},
		{"cut header", event(unix.IN_MODIFY, "f")[:10], true},
		{"cut name", event(unix.IN_MODIFY, "file.txt")[:unix.SizeofInotifyEvent+3], true},
	} {
		if got := watchEnded(c.buf); got != c.want {
			t.Errorf("%s: watchEnded = %v, want %v", c.name, got, c.want)
		}
	}
}

// FuzzWatchEnded: no byte string read from the descriptor makes the
// parse panic or loop.
func FuzzWatchEnded(f *testing.F) {
	f.Add(event(unix.IN_MODIFY, "f.txt\x00\x00\x00"))
	f.Add(event(unix.IN_IGNORED, ""))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, buf []byte) {
		watchEnded(buf)
	})
}
