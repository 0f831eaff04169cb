package proctree

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// New is macOS's tree: the reaper's process group, the memory cap
// polled. macOS has no parent-death signal, and its kernel ignores
// RLIMIT_AS.
func New() *Tree { return &Tree{} }

// setDeathSignal: macOS has none; the reaper does its work.
func setDeathSignal(*syscall.SysProcAttr) {}

// spawn runs f: without a parent-death signal, the thread that starts a
// process does not matter.
func spawn(f func()) { f() }

// setMemoryCap is never called on macOS (Tree.addressCap is false).
func setMemoryCap(pid, mb int) error {
	return errors.New("macOS cannot cap a process's address space; the cap is polled")
}

// groupFootprint sums the resident size of the processes of pgid's group
// but skip (the reaper): the members from sysctl kern.proc.pgrp, their
// sizes from ps, the one reader of resident sizes that needs no cgo
// (proc_pid_rusage and its physical footprint are in libproc, which
// golang.org/x/sys/unix does not reach).
func groupFootprint(pgid, skip int) Footprint {
	var f Footprint
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return f
	}
	var pids []string
	for _, k := range procs {
		if pid := int(k.Proc.P_pid); pid != skip && k.Proc.P_stat != sZomb {
			pids = append(pids, strconv.Itoa(pid))
		}
	}
	if len(pids) == 0 {
		return f
	}
	out, err := exec.Command("/bin/ps", "-o", "rss=", "-p", strings.Join(pids, ",")).Output()
	if err != nil && len(out) == 0 {
		return f
	}
	for _, field := range strings.Fields(string(out)) {
		if kib, err := strconv.ParseInt(field, 10, 64); err == nil {
			f.RSSBytes += kib << 10
			f.Processes++
		}
	}
	return f
}

// sZomb is p_stat of a zombie (sys/proc.h SZOMB).
const sZomb = 5

// Running reports whether pid exists and is not a zombie.
func Running(pid int) bool {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && int(k.Proc.P_pid) == pid && k.Proc.P_stat != sZomb
}
