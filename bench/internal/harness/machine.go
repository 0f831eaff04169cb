package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Machine describes where a benchmark ran.
type Machine struct {
	GoVersion   string `json:"go_version"`
	OS          string `json:"os"`
	Kernel      string `json:"kernel"`
	CPU         string `json:"cpu"`
	CPUs        int    `json:"cpus"`
	MemTotalKiB int64  `json:"mem_total_kib"`
	// LoadAvgStart and LoadAvgEnd are /proc/loadavg's 1, 5 and 15 minute
	// load averages at the start and at the end of the run: other work on
	// the machine skews every figure, so a loaded machine is worth
	// knowing about.
	LoadAvgStart string `json:"loadavg_start"`
	LoadAvgEnd   string `json:"loadavg_end"`
}

// ReadMachine describes this machine, its load averages left to the
// caller.
func ReadMachine(ctx context.Context) Machine {
	m := Machine{OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU()}
	if v, err := GoOutput(ctx, "", nil, "env", "GOVERSION"); err == nil {
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

// LoadAvg returns the three load averages of /proc/loadavg, or "".
func LoadAvg() string {
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

// FirstLoad returns the 1-minute load average of a LoadAvg string.
func FirstLoad(s string) float64 {
	var f float64
	fmt.Sscan(s, &f)
	return f
}

// WaitQuiet waits until the 1-minute load average is at most limit, for
// up to 15 minutes; limit 0 does not wait.
func WaitQuiet(ctx context.Context, limit float64) error {
	if limit <= 0 {
		return nil
	}
	deadline := time.Now().Add(15 * time.Minute)
	for {
		l := FirstLoad(LoadAvg())
		if l <= limit {
			return nil
		}
		if time.Now().After(deadline) {
			Logf("load average still %.2f > %.2f after 15 minutes; measuring anyway", l, limit)
			return nil
		}
		Logf("load average %.2f > %.2f: waiting", l, limit)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(15 * time.Second):
		}
	}
}

// WorkDir returns the absolute work directory of a run: dir, created if
// missing, or when dir is "" a new temporary directory named after prefix,
// which cleanup removes unless keep. Call cleanup when the run ends.
func WorkDir(dir, prefix string, keep bool) (string, func(), error) {
	cleanup := func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", prefix+"-")
		if err != nil {
			return "", cleanup, err
		}
		if !keep {
			cleanup = func() { os.RemoveAll(tmp) }
		}
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", cleanup, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		cleanup()
		return "", func() {}, err
	}
	return abs, cleanup, nil
}
