//go:build unix

package harness

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// ExitUsage is an exited process's peak resident size in KiB and its CPU
// times, from the rusage the kernel kept; ok is false when there is none.
func ExitUsage(ps *os.ProcessState) (peakKiB int64, user, sys time.Duration, ok bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, 0, false
	}
	return maxRSSKiB(ru), time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), true
}

// SelfCPU is the CPU time this process has used so far (every thread).
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// MaxRSS is the peak resident size in KiB of this process, or with
// children of its largest waited-for child; -1 when unknown.
func MaxRSS(children bool) int64 {
	who := syscall.RUSAGE_SELF
	if children {
		who = syscall.RUSAGE_CHILDREN
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return -1
	}
	return maxRSSKiB(&ru)
}

// maxRSSKiB is ru_maxrss in KiB: Linux counts it in KiB, macOS in bytes.
func maxRSSKiB(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) >> 10
	}
	return int64(ru.Maxrss)
}
