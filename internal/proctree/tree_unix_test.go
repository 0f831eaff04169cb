//go:build unix

package proctree

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exists reports whether pid is a process that is not a zombie: a zombie
// has ended, only its parent has yet to reap it.
func exists(pid int) bool {
	return syscall.Kill(pid, 0) == nil && Running(pid)
}

// waitGone waits until none of pids exists, or fails naming those left.
func waitGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		left := 0
		for _, pid := range pids {
			if exists(pid) {
				left++
			}
		}
		if left == 0 {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	for _, pid := range pids {
		if exists(pid) {
			t.Errorf("%s: process %d is still running", what, pid)
		}
	}
}

// startShell starts, in a tree of mechanism guard, a shell that starts a
// child sleeping until killed and prints the child's pid, and returns the
// tree, the command and the child's pid.
func startShell(t *testing.T, guard string) (*Tree, *exec.Cmd, int) {
	t.Helper()
	t.Setenv(GuardEnv, guard)
	cmd := exec.Command("/bin/sh", "-c", "sleep 1000 & echo $!; exec sleep 1000")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	tr := New()
	if err := tr.Start(cmd, 0); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { _ = cmd.Wait(); tr.Release(); close(reaped) }()
	t.Cleanup(func() { tr.Kill(); <-reaped })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("child pid %q: %v", line, err)
	}
	if !exists(cmd.Process.Pid) || !exists(child) {
		t.Fatalf("process %d or its child %d is not running", cmd.Process.Pid, child)
	}
	return tr, cmd, child
}

// TestReaperEndsTreeWhenParentGoes closes the reaper's pipe the way the
// kernel does when Sextant dies (its write end is Sextant's alone): the
// reaper kills the process and the child it started, without any call of
// Kill. This is macOS's only guard, tested here through the same code;
// with the parent-death signal as well (Linux's default) the reaper
// still ends the child, which the signal alone would leave.
func TestReaperEndsTreeWhenParentGoes(t *testing.T) {
	for _, guard := range []string{"reaper", ""} {
		t.Run("guard="+guard, func(t *testing.T) {
			tr, cmd, child := startShell(t, guard)
			if pg, _ := syscall.Getpgid(cmd.Process.Pid); pg != tr.Group() {
				t.Fatalf("process in group %d, want the reaper's %d", pg, tr.Group())
			}
			if pg, _ := syscall.Getpgid(child); pg != tr.Group() {
				t.Fatalf("child in group %d, want the reaper's %d", pg, tr.Group())
			}
			tr.hold.Close() // what Sextant's exit does
			waitGone(t, "after the pipe closed", cmd.Process.Pid, child, tr.Group())
		})
	}
}

// TestKillEndsTree: Kill ends the process, its child and the reaper.
func TestKillEndsTree(t *testing.T) {
	for _, guard := range []string{"reaper", ""} {
		t.Run("guard="+guard, func(t *testing.T) {
			tr, cmd, child := startShell(t, guard)
			tr.Kill()
			waitGone(t, "after Kill", cmd.Process.Pid, child, tr.Group())
		})
	}
}
