// Package rootfs reads files under a directory the way every part of
// Sextant that reads a repository does: through os.Root, so that no name,
// lexically or through a symlink, resolves outside the directory, and
// refusing anything but a regular file, since a FIFO, socket or device
// could block a read forever or never end.
//
// It sits below the packages that read repositories (internal/query,
// internal/lsp), which map its errors to their coded errors.
package rootfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

var (
	// ErrNotRegular is a FIFO, socket, device or other non-regular file.
	ErrNotRegular = errors.New("not a regular file (a FIFO, socket or device), so it is not read")
	// ErrIsDir is a directory where a file was wanted.
	ErrIsDir = errors.New("a directory, not a file")
	// ErrTooLarge is a file above the caller's size limit.
	ErrTooLarge = errors.New("larger than the size limit")
)

// OpenRegular opens name inside root for reading and refuses anything but
// a regular file. The open cannot block: a FIFO opened for reading waits
// for a writer forever unless it is opened non-blocking, and the type is
// checked on the open descriptor, so a file swapped for a FIFO or device
// between a stat and the open is still refused. An absolute symlink that
// points inside the root is followed there (see Inside). Errors of the
// open are os.Root's (see Outside); a wrong type is ErrIsDir or
// ErrNotRegular.
func OpenRegular(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|openNoBlock, 0)
	if Outside(err) {
		if rel, ok := Inside(root, name); ok {
			f, err = root.OpenFile(rel, os.O_RDONLY|openNoBlock, 0)
		}
	}
	if errors.Is(err, syscall.ENXIO) || errors.Is(err, syscall.EOPNOTSUPP) {
		// What opening a socket (or a device without a driver) says.
		return nil, fmt.Errorf("%s: %w (%w)", name, ErrNotRegular, err)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, ErrIsDir)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, ErrNotRegular)
	}
	return f, nil
}

// ReadRegular reads the regular file name inside root, of at most limit
// bytes (ErrTooLarge beyond).
func ReadRegular(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := OpenRegular(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes)", name, ErrTooLarge, limit)
	}
	return data, nil
}

// Outside reports whether err is os.Root's refusal of a name that leaves
// the root, lexically or through a symlink. os.Root does not export that
// error (os.errPathEscapes); its text is the only handle.
func Outside(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}
