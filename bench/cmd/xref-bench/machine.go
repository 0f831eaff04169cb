package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// machine describes where the benchmark ran.
func machine(ctx context.Context) machineInfo {
	m := machineInfo{OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU()}
	if v, err := harness.GoOutput(ctx, "", nil, "env", "GOVERSION"); err == nil {
		m.GoVersion = strings.TrimSpace(v)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				fmt.Sscan(rest, &m.MemTotalKiB)
			}
		}
	}
	return m
}

// loadAvg returns the three load averages of /proc/loadavg, or "".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
