package sqlite

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, _ := syscall.GetCurrentProcess()
	syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user)
	return time.Duration(kernel.Nanoseconds() + user.Nanoseconds())
}
