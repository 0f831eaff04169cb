//go:build unix

package lsp

import (
	"bufio"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/proctree"
)

// exists reports whether pid is a process that is not a zombie: a zombie
// has ended, only its parent has yet to reap it.
func exists(pid int) bool {
	return syscall.Kill(pid, 0) == nil && proctree.Running(pid)
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

// shellServer is a "server" that starts a child sleeping until killed and
// prints the child's pid: a language server and its compiler.
var shellServer = ServerSpec{Name: "sh", Command: "/bin/sh", Args: []string{"-c", "sleep 1000 & echo $!; exec sleep 1000"}}

// startShell starts shellServer in tree mode guard and returns it with
// its child's pid.
func startShell(t *testing.T, guard string) (*process, int) {
	t.Helper()
	t.Setenv(proctree.GuardEnv, guard)
	spec := shellServer
	p, err := startProcess(&spec, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	line, err := bufio.NewReader(p.stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("child pid %q: %v", line, err)
	}
	if !exists(p.pid) || !exists(child) {
		t.Fatalf("server %d or its child %d is not running", p.pid, child)
	}
	return p, child
}

// TestKillEndsTree: kill ends the server, its child and the reaper.
func TestKillEndsTree(t *testing.T) {
	for _, guard := range []string{"reaper", ""} {
		t.Run("guard="+guard, func(t *testing.T) {
			p, child := startShell(t, guard)
			reaper := p.tree.Group()
			p.kill()
			waitGone(t, "after kill", p.pid, child, reaper)
			if s := p.exitStatus(); s != "killed by SIGKILL" {
				t.Errorf("exit status %q", s)
			}
		})
	}
}

// TestServerExitEndsChildren: a server that exits by itself leaves no
// child behind: the tree's release ends the rest of the group.
func TestServerExitEndsChildren(t *testing.T) {
	t.Setenv(proctree.GuardEnv, "reaper")
	spec := ServerSpec{Name: "sh", Command: "/bin/sh", Args: []string{"-c", "sleep 1000 & echo $!; read _"}}
	p, err := startProcess(&spec, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(line))
	p.stdin.Close() // the server's read ends: it exits
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit")
	}
	waitGone(t, "after the server exited", child, p.tree.Group())
}

// TestMemoryPoller runs the poller macOS keeps its memory cap with, here
// with the footprint Linux measures (VmRSS and VmSwap from /proc, the
// same groupFootprint the soft SERVER LARGE report reads): a process
// below the cap is left alone, one above it is stopped once, with the
// footprint that passed it.
func TestMemoryPoller(t *testing.T) {
	p, _ := startShell(t, "reaper")
	g := p.tree
	poller := memoryPoller{footprint: func(int) (int64, error) {
		f := g.Footprint()
		if f.Processes == 0 {
			return 0, errNoProcess
		}
		return f.Total(), nil
	}, every: 20 * time.Millisecond}
	used, err := poller.footprint(p.pid)
	if err != nil || used <= 0 {
		t.Fatalf("footprint of a running server: %d, %v", used, err)
	}
	// Below the cap: not stopped while it runs.
	done := make(chan struct{})
	stopped := make(chan int64, 2)
	go poller.watch(p.pid, used*100, done, func(u int64) { stopped <- u })
	time.Sleep(150 * time.Millisecond)
	close(done)
	select {
	case u := <-stopped:
		t.Fatalf("stopped at %d bytes, under a cap of %d", u, used*100)
	default:
	}
	// Above the cap (of one byte): stopped at the first measure.
	go poller.watch(p.pid, 1, p.exited, func(u int64) { stopped <- u; g.Kill() })
	select {
	case u := <-stopped:
		if u < used/2 {
			t.Errorf("stopped with a footprint of %d bytes, measured %d before", u, used)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the poller never stopped a server above its cap")
	}
	waitGone(t, "stopped at the cap", p.pid)
}
