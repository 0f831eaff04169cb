//go:build unix

package proctree

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// reaperScript is the reaper: a shell that leads the process's process
// group and waits on a pipe whose only write end Sextant holds. Whether
// Sextant exits, crashes or is killed with SIGKILL, the kernel closes that
// end, the read ends, and the shell kills its own group: the process and
// every process it started. It ignores the signals a terminal sends its
// foreground group, so that ^C reaches Sextant, not the reaper.
const reaperScript = `trap '' HUP INT QUIT TERM TSTP; read _; kill -9 0`

// Tree is a process in a process group led by a reaper (see
// reaperScript). On Linux the process also gets the parent-death signal
// and an address-space limit; on macOS, which has neither, the reaper
// alone ends the group and a memory cap is polled by the caller. A Tree
// holds one process: New makes it, Start starts it, Release frees it once
// the process is reaped.
type Tree struct {
	deathSignal bool // the parent-death signal too (Linux): the process dies at once with Sextant
	addressCap  bool // cap memory with RLIMIT_AS (Linux), else by polling

	pgid   int       // the reaper's pid: the group's id
	reaper *exec.Cmd // the reaper, reaped by release
	hold   *os.File  // the pipe's write end; closing it fires the reaper
	once   sync.Once
}

// Start starts cmd inside the tree, its memory capped at capMB MiB (0:
// none) where the platform caps at start (see PolledCap). It sets
// cmd.SysProcAttr.
func (t *Tree) Start(cmd *exec.Cmd, capMB int) error {
	r, w, err := os.Pipe() // close-on-exec: no other child inherits the write end
	if err != nil {
		return err
	}
	rc := exec.Command("/bin/sh", "-c", reaperScript)
	rc.Stdin = r
	rc.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = rc.Start()
	r.Close()
	if err != nil {
		w.Close()
		return err
	}
	t.reaper, t.hold, t.pgid = rc, w, rc.Process.Pid
	// The process joins the reaper's group, which exists from before the
	// process does: no instant is left where Sextant could die and leave
	// a process nothing watches.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: t.pgid}
	if t.deathSignal {
		setDeathSignal(cmd.SysProcAttr)
		spawn(func() { err = cmd.Start() })
	} else {
		err = cmd.Start()
	}
	if err != nil {
		t.Release()
		return err
	}
	if capMB > 0 && t.addressCap {
		if err := setMemoryCap(cmd.Process.Pid, capMB); err != nil {
			t.Release()
			_ = cmd.Wait()
			return fmt.Errorf("capping its memory: %w", err)
		}
	}
	return nil
}

// PolledCap reports that the kernel cannot cap the tree's memory: a cap
// is kept by polling its Footprint.
func (t *Tree) PolledCap() bool { return !t.addressCap }

// Kill ends the group at once: the process, its children and the
// reaper. The reaper leads the group until Release reaps it, so its id
// cannot have been reused.
func (t *Tree) Kill() { _ = syscall.Kill(-t.pgid, syscall.SIGKILL) }

// Footprint measures the memory of every process of the tree.
func (t *Tree) Footprint() Footprint { return groupFootprint(t.pgid, t.pgid) }

// Group is the tree's process group (the reaper's pid).
func (t *Tree) Group() int { return t.pgid }

// Release ends what is left of the group (children the process left
// behind) and reaps the reaper. Call it once the process is reaped.
func (t *Tree) Release() {
	t.once.Do(func() {
		t.Kill()
		t.hold.Close()
		_ = t.reaper.Wait()
	})
}

// SignalOf names the signal that ended a process, "" if none did.
func SignalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return unix.SignalName(ws.Signal())
	}
	return ""
}
