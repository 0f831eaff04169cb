//go:build !unix

package rootfs

// openNoBlock: other systems have no FIFOs to block on; the type check
// after the open still refuses anything but a regular file.
const openNoBlock = 0
