package query

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically (renameat2 RENAME_EXCHANGE), so at
// every instant one of them is the directory and the other the symlink.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
