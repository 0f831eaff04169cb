//go:build unix

package main

import (
	"syscall"
	"time"
)

// childCPU is the user and system time of every child this process has
// waited for.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
