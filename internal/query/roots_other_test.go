//go:build !linux

package query

import "os"

// exchange swaps two paths with three renames (not atomic: Linux's
// RENAME_EXCHANGE is the strict version of this test).
func exchange(a, b string) error {
	tmp := a + ".swap"
	if err := os.Rename(a, tmp); err != nil {
		return err
	}
	if err := os.Rename(b, a); err != nil {
		return err
	}
	return os.Rename(tmp, b)
}
