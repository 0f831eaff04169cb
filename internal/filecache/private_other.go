//go:build !unix

package filecache

import (
	"fmt"
	"os"
	"path/filepath"
)

// PrivateDir returns base/elems..., creating what is missing. Owners and
// modes are not checked here (Windows keeps a user's cache directory
// private by its ACLs).
func PrivateDir(base string, elems ...string) (string, error) {
	dir := filepath.Join(append([]string{base}, elems...)...)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	return dir, nil
}

// CheckPrivate reports whether PrivateDir would accept dir as it is:
// here, whether it is a directory (owners and modes are not checked).
func CheckPrivate(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("refusing %s: not a directory", dir)
	}
	return nil
}
