package harness

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Usage is what one run of a child process cost.
//
// Peak memory comes in three figures because a Go program that uses
// go/packages is a process tree: the program and the go list processes it
// starts. MaxRSSKiB is exact but is the peak of the single largest process
// of the tree; SelfHWMKiB is the child alone; TreePeakKiB is the tree as a
// whole, at the instants it was sampled.
type Usage struct {
	Start   time.Time     `json:"-"` // just before the child was started
	Wall    time.Duration `json:"wall_ns"`
	UserCPU time.Duration `json:"user_cpu_ns"` // the child and every descendant it waited for
	SysCPU  time.Duration `json:"sys_cpu_ns"`
	// MaxRSSKiB is ru_maxrss from wait4: on Linux the peak RSS of the
	// largest single process among the child and the descendants it
	// waited for (RUSAGE_BOTH semantics), not their sum.
	MaxRSSKiB int64 `json:"maxrss_kib"`
	// SelfHWMKiB is the child's own VmHWM (peak RSS) from
	// /proc/PID/status, as last sampled before it exited: a lower bound
	// of its true peak, short by at most what it grew in its last
	// sampling interval.
	SelfHWMKiB int64 `json:"self_hwm_kib"`
	// TreePeakKiB is the largest sum of VmRSS over the child and all its
	// live descendants seen at one sample.
	TreePeakKiB int64 `json:"tree_peak_kib"`
	// Samples is how many times /proc was sampled.
	Samples int `json:"samples"`
	// MaxDescendants is the most descendants alive at one sample.
	MaxDescendants int `json:"max_descendants"`
}

// Measure starts cmd, samples its memory from /proc every interval until
// it exits, and returns what it cost. Wall time runs from just before
// Start to just after Wait. A non-zero exit is an error, returned with
// the usage.
//
// Sampling costs the measuring process a few system calls per interval;
// it runs on its own goroutine and never blocks the child.
func Measure(cmd *exec.Cmd, interval time.Duration) (Usage, error) {
	start := time.Now()
	u := Usage{Start: start}
	if err := cmd.Start(); err != nil {
		return u, err
	}
	pid := cmd.Process.Pid
	stop := make(chan struct{})
	var (
		wg   sync.WaitGroup
		peak Usage // written by the sampler only until wg.Wait
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			s := sampleTree(pid)
			if s.ok {
				peak.Samples++
				peak.SelfHWMKiB = max(peak.SelfHWMKiB, s.selfHWM)
				peak.TreePeakKiB = max(peak.TreePeakKiB, s.treeRSS)
				peak.MaxDescendants = max(peak.MaxDescendants, s.descendants)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	u.Wall = time.Since(start)
	close(stop)
	wg.Wait()
	u.Samples, u.SelfHWMKiB, u.TreePeakKiB, u.MaxDescendants =
		peak.Samples, peak.SelfHWMKiB, peak.TreePeakKiB, peak.MaxDescendants
	if ps := cmd.ProcessState; ps != nil {
		if rss, user, sys, ok := ExitUsage(ps); ok {
			u.MaxRSSKiB, u.UserCPU, u.SysCPU = rss, user, sys
		}
	}
	return u, err
}

// treeSample is one look at a process tree.
type treeSample struct {
	ok          bool
	selfHWM     int64 // KiB
	treeRSS     int64 // KiB, root and descendants
	descendants int
}

// sampleTree reads the VmHWM of pid and the VmRSS of pid and all its
// descendants. ok is false when pid could not be read (it has exited, or
// this is not Linux).
func sampleTree(pid int) treeSample {
	st, err := ProcStatus(pid)
	if err != nil || st.RSSKiB == 0 {
		return treeSample{} // gone, or a zombie without memory
	}
	s := treeSample{ok: true, selfHWM: st.HWMKiB, treeRSS: st.RSSKiB}
	eachDescendant(pid, func(c int) {
		if cst, err := ProcStatus(c); err == nil {
			s.treeRSS += cst.RSSKiB
			s.descendants++
		}
	})
	return s
}

// eachDescendant calls f with every live descendant of pid, once each.
func eachDescendant(pid int, f func(int)) {
	seen := map[int]bool{pid: true}
	queue := children(pid)
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		f(c)
		queue = append(queue, children(c)...)
	}
}

// children lists the child processes of pid, from every one of its
// threads (a child belongs to the thread that forked it).
func children(pid int) []int {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// Status is the memory of a live process as /proc/PID/status reports it.
type Status struct {
	RSSKiB int64 `json:"vm_rss_kib"` // VmRSS: resident now
	HWMKiB int64 `json:"vm_hwm_kib"` // VmHWM: peak resident so far
}

// ProcStatus reads VmRSS and VmHWM of pid. A zombie has neither and reads
// as zeros.
func ProcStatus(pid int) (Status, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Status{}, err
	}
	return parseStatus(b), nil
}

func parseStatus(b []byte) Status {
	var st Status
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &st.RSSKiB
		case "VmHWM":
			dst = &st.HWMKiB
		default:
			continue
		}
		f := strings.Fields(v) // "123456 kB"
		if len(f) > 0 {
			*dst, _ = strconv.ParseInt(f[0], 10, 64)
		}
	}
	return st
}

// TreeRSSKiB is the sum of VmRSS over pid and all its live descendants
// now; ok is false once pid is gone.
func TreeRSSKiB(pid int) (kib int64, ok bool) {
	s := sampleTree(pid)
	return s.treeRSS, s.ok
}

// TreeCPUTicks is the CPU time, in clock ticks, that pid and its live
// descendants have used, and the children they have waited for (utime,
// stime, cutime and cstime of /proc/PID/stat); ok is false once pid is
// gone or when this is not Linux.
func TreeCPUTicks(pid int) (ticks int64, ok bool) {
	t, ok := cpuTicks(pid)
	if !ok {
		return 0, false
	}
	eachDescendant(pid, func(c int) {
		if ct, ok := cpuTicks(c); ok {
			t += ct
		}
	})
	return t, true
}

// cpuTicks reads the CPU time of pid and of the children it has waited
// for from /proc/PID/stat.
func cpuTicks(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	own, waited, ok := parseStatTicks(b)
	return own + waited, ok
}

// parseStatTicks reads fields 14–17 of a /proc/PID/stat line, counted
// after the command name, which is in parentheses and may hold spaces:
// utime + stime (own) and cutime + cstime (waited).
func parseStatTicks(b []byte) (own, waited int64, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	if len(f) < 15 {
		return 0, 0, false
	}
	var v [4]int64
	for k, s := range f[11:15] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		v[k] = n
	}
	return v[0] + v[1], v[2] + v[3], true
}

// ClockTicks is the kernel's clock ticks per second, the unit of
// TreeCPUTicks (USER_HZ, 100 on every Linux Go runs on).
const ClockTicks = 100
