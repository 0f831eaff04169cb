//go:build unix

package lsp

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// reaperScript is the reaper: a shell that leads the server's process
// group and waits on a pipe whose only write end Sextant holds. Whether
// Sextant exits, crashes or is killed with SIGKILL, the kernel closes that
// end, the read ends, and the shell kills its own group: the server and
// every process it started. It ignores the signals a terminal sends its
// foreground group, so that ^C reaches Sextant, not the reaper.
const reaperScript = `trap '' HUP INT QUIT TERM TSTP; read _; kill -9 0`

// groupTree is a server in a process group led by a reaper (see
// reaperScript). On Linux the server also gets the parent-death signal
// and an address-space limit; on macOS, which has neither, the reaper
// alone ends the group and the memory cap is polled.
type groupTree struct {
	deathSignal bool // the parent-death signal too (Linux): the server dies at once with Sextant
	addressCap  bool // cap memory with RLIMIT_AS (Linux), else by polling

	pgid   int       // the reaper's pid: the group's id
	reaper *exec.Cmd // the reaper, reaped by release
	hold   *os.File  // the pipe's write end; closing it fires the reaper
	once   sync.Once
}

func (t *groupTree) start(cmd *exec.Cmd, capMB int) error {
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
	// The server joins the reaper's group, which exists from before the
	// server does: no instant is left where Sextant could die and leave
	// a server nothing watches.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: t.pgid}
	if t.deathSignal {
		setDeathSignal(cmd.SysProcAttr)
		spawn(func() { err = cmd.Start() })
	} else {
		err = cmd.Start()
	}
	if err != nil {
		t.release()
		return err
	}
	if capMB > 0 && t.addressCap {
		if err := setMemoryCap(cmd.Process.Pid, capMB); err != nil {
			t.release()
			_ = cmd.Wait()
			return fmt.Errorf("capping its memory: %w", err)
		}
	}
	return nil
}

func (t *groupTree) polledCap() bool { return !t.addressCap }

// kill ends the group at once: the server, its children and the reaper.
// The reaper leads the group until release reaps it, so its id cannot
// have been reused.
func (t *groupTree) kill() { _ = syscall.Kill(-t.pgid, syscall.SIGKILL) }

func (t *groupTree) footprint() Footprint { return groupFootprint(t.pgid, t.pgid) }

// release ends what is left of the group (children the server left
// behind) and reaps the reaper.
func (t *groupTree) release() {
	t.once.Do(func() {
		t.kill()
		t.hold.Close()
		_ = t.reaper.Wait()
	})
}

// signalOf names the signal that ended a process, "" if none did.
func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return unix.SignalName(ws.Signal())
	}
	return ""
}
