package harness

import (
	"os"
	"syscall"
	"time"
)

// ExitUsage is an exited process's CPU times; Windows keeps no peak
// resident size in them (peakKiB is 0).
func ExitUsage(ps *os.ProcessState) (peakKiB int64, user, sys time.Duration, ok bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, 0, false
	}
	return 0, filetime(ru.UserTime), filetime(ru.KernelTime), true
}

// SelfCPU is the CPU time this process has used so far (every thread).
func SelfCPU() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil || syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	return filetime(user) + filetime(kernel)
}

// MaxRSS is unknown on Windows: -1.
func MaxRSS(children bool) int64 { return -1 }

// filetime is a duration counted in 100 ns units.
func filetime(f syscall.Filetime) time.Duration {
	return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
}
