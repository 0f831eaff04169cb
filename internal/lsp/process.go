package lsp

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sextant-dev/sextant/internal/proctree"
)

// process is a running server process: started inside a tree that ends
// with it and with Sextant, its stderr kept as a bounded tail.
type process struct {
	cmd    *exec.Cmd
	pid    int
	tree   *proctree.Tree
	stdin  *os.File
	stdout *os.File
	stderr *proctree.Tail
	exited chan struct{} // closed once the process has been reaped
	state  *os.ProcessState
	// capMB is the memory cap in force, 0 for none.
	capMB int
	// capped is what the memory poller saw when it stopped the server
	// at its cap, "" while it has not.
	capped atomic.Pointer[string]
}

// startProcess runs spec in dir with a memory cap of capMB (0: none),
// told to the server through its memory flag too.
func startProcess(spec *ServerSpec, dir string, capMB int) (*process, error) {
	args := append([]string(nil), spec.Args...)
	env := os.Environ()
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	if capMB > 0 && spec.MemoryFlag != "" {
		// The server's own limit sits below the hard cap, so that it
		// collects garbage before the kernel refuses it memory.
		mb := strconv.Itoa(capMB * 3 / 4)
		if kv, ok := strings.CutPrefix(spec.MemoryFlag, "env:"); ok {
			env = append(env, strings.ReplaceAll(kv, "{mb}", mb))
		} else {
			args = append(args, strings.ReplaceAll(spec.MemoryFlag, "{mb}", mb))
		}
	}
	cmd := exec.Command(spec.Command, args...)
	cmd.Dir = dir
	cmd.Env = env
	// Grandchildren holding stderr open must not stall the reaping.
	cmd.WaitDelay = time.Second
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{cmd: cmd, tree: proctree.New(), stdin: inW, stdout: outR, stderr: proctree.NewTail(16 << 10), exited: make(chan struct{}), capMB: capMB}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	err = p.tree.Start(cmd, capMB)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting %s: %w", spec.Command, err)
	}
	p.pid = cmd.Process.Pid
	go func() {
		// Reaping here, always, is what keeps zombies away.
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		p.tree.Release()
		close(p.exited)
	}()
	if capMB > 0 && p.tree.PolledCap() {
		poller := memoryPoller{footprint: func(int) (int64, error) {
			f := p.tree.Footprint()
			if f.Processes == 0 {
				return 0, errNoProcess
			}
			return f.Total(), nil
		}, every: pollEvery}
		go poller.watch(p.pid, int64(capMB)<<20, p.exited, func(used int64) {
			note := fmt.Sprintf("stopped at its memory cap of %d MiB (it used %d MiB)", capMB, used>>20)
			p.capped.Store(&note)
			p.tree.Kill()
		})
	}
	return p, nil
}

// kill ends the whole tree at once and waits for the reaping.
func (p *process) kill() {
	p.tree.Kill()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
	p.stdin.Close()
	p.stdout.Close()
}

// footprint measures the memory of the server and its children.
func (p *process) footprint() Footprint { return p.tree.Footprint() }

// exitStatus describes how the process ended, "" while it runs.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	if note := p.capped.Load(); note != nil {
		return *note
	}
	if p.state == nil {
		return "exited"
	}
	if sig := proctree.SignalOf(p.state); sig != "" {
		return "killed by " + sig
	}
	return p.state.String()
}

// pollEvery is how often a polled memory cap measures the server.
const pollEvery = 500 * time.Millisecond

// errNoProcess is a footprint of a tree with no process left.
var errNoProcess = fmt.Errorf("no process left to measure")

// memoryPoller keeps a memory cap where the kernel cannot refuse a
// process memory (macOS has no working RLIMIT_AS): every interval it
// measures pid's footprint and, at the first measure above the cap, calls
// stop, which ends the server. The footprint function is the platform's
// (on macOS the resident size ps reports, on Linux VmRSS and VmSwap), so
// the same poller runs, and is tested, on every Unix.
type memoryPoller struct {
	footprint func(pid int) (int64, error)
	every     time.Duration
}

// watch polls until done is closed, the footprint fails (the process is
// gone), or the cap of limit bytes is passed, when it calls stop once with
// the footprint it measured.
func (m memoryPoller) watch(pid int, limit int64, done <-chan struct{}, stop func(used int64)) {
	t := time.NewTicker(m.every)
	defer t.Stop()
	for {
		used, err := m.footprint(pid)
		if err != nil {
			return
		}
		if used > limit {
			stop(used)
			return
		}
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
}

// Footprint is a server's memory as the platform counts it, summed over
// the server and the processes it started (see proctree.Footprint).
type Footprint = proctree.Footprint
