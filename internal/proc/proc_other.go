//go:build !linux

package proc

// GuardGo does nothing where the kernel has no parent-death signal: the
// go command is stopped by the load's context only (see the package doc).
func GuardGo() error { return nil }

// ShimMain never runs a shim here: ok is false.
func ShimMain() (code int, ok bool) {
	return 0, false
}
