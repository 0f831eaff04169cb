//go:build unix

package rootfs

import "syscall"

// openNoBlock keeps opening a FIFO from waiting for a writer, and a
// terminal device from becoming the controlling terminal.
const openNoBlock = syscall.O_NONBLOCK | syscall.O_NOCTTY
