//go:build linux

package rootfs_test

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sextant-dev/sextant/internal/rootfs"
)

// TestReadRegular reads names of every hostile kind inside a root laid
// next to a sibling that shares its prefix (/x/repo and /x/repo-other):
// only regular files inside the root are read; names that leave it,
// lexically or through a symlink, are refused as Outside; FIFOs, sockets
// and devices as ErrNotRegular, without blocking.
func TestReadRegular(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	other := filepath.Join(base, "repo-other")
	for _, d := range []string{repo, other, filepath.Join(repo, "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, "a.txt"), "inside")
	write(filepath.Join(repo, "dir", "b.txt"), "deeper")
	write(filepath.Join(repo, "big.txt"), string(make([]byte, 101)))
	write(filepath.Join(other, "secret.txt"), "sibling")
	write(filepath.Join(base, "secret.txt"), "parent")
	link("a.txt", "in.txt")                                                    // inside: followed
	link("dir/../a.txt", "in-dots.txt")                                        // inside through ..: followed
	link("in.txt", "chain.txt")                                                // a chain inside: followed
	link(filepath.Join(other, "secret.txt"), "abs-out.txt")                    // absolute, to the sibling
	link("../repo-other/secret.txt", "rel-out.txt")                            // relative, to the sibling
	link("../secret.txt", "parent.txt")                                        // to the parent
	link(other, "out-dir")                                                     // a directory out
	link("rel-out.txt", "chain-out.txt")                                       // a chain that ends out
	link("loop-b.txt", "loop-a.txt")                                           // a loop
	link("loop-a.txt", "loop-b.txt")                                           //
	link("/dev/null", "devnull")                                               // a device, outside
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo"), 0o644); err != nil { // blocks a plain open
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(repo, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	device := syscall.Mknod(filepath.Join(repo, "null"), syscall.S_IFCHR|0o666, int(mkdev(1, 3))) == nil

	const (
		ok = iota
		outside
		notRegular
		isDir
		tooLarge
		notExist
		otherErr
	)
	cases := []struct {
		name string
		want int
		text string
	}{
		{"a.txt", ok, "inside"},
		{"dir/b.txt", ok, "deeper"},
		{"dir/../a.txt", ok, "inside"},
		{"./a.txt", ok, "inside"},
		{"in.txt", ok, "inside"},
		{"in-dots.txt", ok, "inside"},
		{"chain.txt", ok, "inside"},
		{"..", outside, ""},
		{"../secret.txt", outside, ""},
		{"../repo-other/secret.txt", outside, ""},
		{"dir/../../secret.txt", outside, ""},
		{filepath.Join(other, "secret.txt"), outside, ""}, // absolute names are not inside any root
		{"/etc/passwd", outside, ""},
		{"abs-out.txt", outside, ""},
		{"rel-out.txt", outside, ""},
		{"parent.txt", outside, ""},
		{"out-dir/secret.txt", outside, ""},
		{"chain-out.txt", outside, ""},
		{"devnull", outside, ""},
		{"loop-a.txt", otherErr, ""},
		{"fifo", notRegular, ""},
		{"sock", notRegular, ""},
		{"dir", isDir, ""},
		{".", isDir, ""},
		{"big.txt", tooLarge, ""},
		{"missing.txt", notExist, ""},
		{"a.txt ", notExist, ""},
		{"'a.txt'", notExist, ""},
		{"a.txt\x00", otherErr, ""},
	}
	if device {
		cases = append(cases, struct {
			name string
			want int
			text string
		}{"null", notRegular, ""})
	} else {
		t.Log("mknod is not allowed here: the character-device case is not run")
	}
	root, err := os.OpenRoot(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, c := range cases {
		data, err := rootfs.ReadRegular(root, c.name, 100)
		got := otherErr
		switch {
		case err == nil:
			got = ok
		case rootfs.Outside(err):
			got = outside
		case errors.Is(err, rootfs.ErrNotRegular):
			got = notRegular
		case errors.Is(err, rootfs.ErrIsDir):
			got = isDir
		case errors.Is(err, rootfs.ErrTooLarge):
			got = tooLarge
		case errors.Is(err, fs.ErrNotExist):
			got = notExist
		}
		if got != c.want || string(data) != c.text {
			t.Errorf("%q: class %d, %q, %v; want class %d, %q", c.name, got, data, err, c.want, c.text)
		}
		if got != ok && data != nil {
			t.Errorf("%q: refused, yet returned %q", c.name, data)
		}
	}
}

// mkdev is Linux's makedev for small major and minor numbers.
func mkdev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor)
}

// TestOutsideOnlyForEscapes: other errors are not taken for escapes.
func TestOutsideOnlyForEscapes(t *testing.T) {
	for _, err := range []error{nil, fs.ErrNotExist, errors.New("escapes"), &fs.PathError{Op: "open", Path: "escapes.txt", Err: fs.ErrPermission}} {
		if rootfs.Outside(err) {
			t.Errorf("Outside(%v) = true", err)
		}
	}
}
