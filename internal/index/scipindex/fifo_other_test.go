//go:build !unix

package scipindex_test

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
