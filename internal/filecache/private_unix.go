//go:build unix

package filecache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// PrivateDir returns base/elems..., creating what is missing with mode
// 0700, once it has checked that each directory below base (base itself
// when elems is empty) belongs to the current user and is writable by
// nobody else. Sextant keeps what it trusts in such directories (cached
// types it believes, the go shim it puts first on PATH): whoever else
// can write there can make it believe or run what they like. A directory
// that fails the check is refused, not repaired: what is in it may
// already be planted.
func PrivateDir(base string, elems ...string) (string, error) {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", base, err)
	}
	if len(elems) == 0 {
		return base, private(base)
	}
	dir := base
	for _, e := range elems {
		dir = filepath.Join(dir, e)
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("creating %s: %w", dir, err)
		}
		if err := private(dir); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// private checks that dir (followed if a symbolic link) is a directory
// of the current user that no one else may write to.
func private(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	refuse := func(why string) error {
		return fmt.Errorf("refusing %s: %s; remove it, or make it yours with mode 0700", dir, why)
	}
	if !fi.IsDir() {
		return refuse("not a directory")
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return refuse(fmt.Sprintf("owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid()))
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return refuse(fmt.Sprintf("writable by others (mode %v)", fi.Mode().Perm()))
	}
	return nil
}

// CheckPrivate reports whether PrivateDir would accept dir as it is,
// creating and changing nothing: nil, or the reason it is refused.
// `sextant doctor` reads the directories Sextant keeps with it.
func CheckPrivate(dir string) error { return private(dir) }
