package lsp

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// spawner starts every child from one OS thread that never exits. The
// parent-death signal is tied to the thread that forked the child, not to
// the process: had a thread that Go later retires started a server, the
// server would be killed with it.
var spawner struct {
	once sync.Once
	reqs chan func()
}

func spawn(f func()) {
	spawner.once.Do(func() {
		spawner.reqs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range spawner.reqs {
				f()
			}
		}()
	})
	done := make(chan struct{})
	spawner.reqs <- func() { f(); close(done) }
	<-done
}

// process is a running server process: its own process group, killed by
// the kernel if Sextant dies, its stderr kept as a bounded tail.
type process struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File
	stdout *os.File
	stderr *tail
	exited chan struct{} // closed once the process has been reaped
	state  *os.ProcessState
	// capMB is the address-space cap in force, 0 for none.
	capMB int
}

// startProcess runs spec in dir with an address-space cap of capMB (0:
// none), told to the server through its memory flag too.
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
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
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
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: newTail(16 << 10), exited: make(chan struct{}), capMB: capMB}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	spawn(func() { err = cmd.Start() })
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting %s: %w", spec.Command, err)
	}
	p.pid = cmd.Process.Pid
	if capMB > 0 {
		if err := setMemoryCap(p.pid, capMB); err != nil {
			p.kill()
			return nil, fmt.Errorf("capping %s's memory: %w", spec.Command, err)
		}
	}
	go func() {
		// Reaping here, always, is what keeps zombies away.
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return p, nil
}

// setMemoryCap limits pid's address space to mb MiB. The limit applies
// from the next allocation on; the few milliseconds between exec and here
// are before any server has loaded much.
func setMemoryCap(pid, mb int) error {
	lim := &unix.Rlimit{Cur: uint64(mb) << 20, Max: uint64(mb) << 20}
	return unix.Prlimit(pid, unix.RLIMIT_AS, lim, nil)
}

// kill ends the whole process group at once and waits for the reaping.
func (p *process) kill() {
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
	p.stdin.Close()
	p.stdout.Close()
}

// exitStatus describes how the process ended, "" while it runs.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	if p.state == nil {
		return "exited"
	}
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + unix.SignalName(ws.Signal())
	}
	return p.state.String()
}

// tail is an io.Writer keeping the last n bytes written: a server's stderr,
// drained continuously so that a flood never blocks the server.
type tail struct {
	mu      sync.Mutex
	buf     []byte
	n       int
	dropped int64
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(b) >= t.n {
		t.dropped += int64(len(t.buf) + len(b) - t.n)
		t.buf = append(t.buf[:0], b[len(b)-t.n:]...)
		return len(b), nil
	}
	if over := len(t.buf) + len(b) - t.n; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, b...)
	return len(b), nil
}

// String returns the last lines of the tail, at most max bytes.
func (t *tail) String(max int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > max {
		b = b[len(b)-max:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(string(b))
}

// Footprint is a server's memory as the kernel counts it: resident plus
// swapped out, summed over its process group.
type Footprint struct {
	RSSBytes  int64
	SwapBytes int64
	Processes int
}

// Total is resident plus swap.
func (f Footprint) Total() int64 { return f.RSSBytes + f.SwapBytes }

// footprint reads /proc for every process in pgid's group.
func footprint(pgid int) Footprint {
	var f Footprint
	proc, err := os.OpenRoot("/proc")
	if err != nil {
		return f
	}
	defer proc.Close()
	pids := []int{pgid}
	if ents, err := procDir(proc); err == nil {
		pids = pids[:0]
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if pid == pgid || groupOf(proc, pid) == pgid {
				pids = append(pids, pid)
			}
		}
	}
	for _, pid := range pids {
		data, err := proc.ReadFile(strconv.Itoa(pid) + "/status")
		if err != nil {
			continue
		}
		f.Processes++
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				f.RSSBytes += kb(v)
			} else if v, ok := strings.CutPrefix(line, "VmSwap:"); ok {
				f.SwapBytes += kb(v)
			}
		}
	}
	return f
}

// processRunning reports whether pid exists and is not a zombie.
func processRunning(pid int) bool {
	data, err := readProc(pid, "stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || data[i+2] != 'Z'
}

// groupOf returns pid's process group from /proc/PID/stat, -1 if unknown.
func groupOf(proc *os.Root, pid int) int {
	data, err := proc.ReadFile(strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return -1
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 3 {
		return -1
	}
	g, err := strconv.Atoi(fields[2])
	if err != nil {
		return -1
	}
	return g
}

// readProc reads /proc/PID/NAME. Like every file the bridge reads, it goes
// through os.Root: nothing it names can lead out of /proc.
func readProc(pid int, name string) ([]byte, error) {
	r, err := os.OpenRoot("/proc")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(strconv.Itoa(pid) + "/" + name)
}

// procDir lists /proc, opened as an os.Root.
func procDir(proc *os.Root) ([]os.DirEntry, error) {
	d, err := proc.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

func kb(v string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
	return n << 10
}
