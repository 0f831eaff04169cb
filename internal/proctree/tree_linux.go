package proctree

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// New is Linux's tree: the reaper's process group with the
// parent-death signal and RLIMIT_AS, or, with SEXTANT_LSP_GUARD=reaper,
// the reaper and the polled cap alone, as on macOS.
func New() *Tree {
	if os.Getenv(GuardEnv) == "reaper" {
		return &Tree{}
	}
	return &Tree{deathSignal: true, addressCap: true}
}

// setDeathSignal has the kernel kill the process the instant Sextant dies;
// the reaper then ends the children the process started.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// spawner starts every child from one OS thread that never exits. The
// parent-death signal is tied to the thread that forked the child, not to
// the process: had a thread that Go later retires started a process, the
// process would be killed with it.
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

// setMemoryCap limits pid's address space to mb MiB. The limit applies
// from the next allocation on; the few milliseconds between exec and here
// are before any process has loaded much.
func setMemoryCap(pid, mb int) error {
	lim := &unix.Rlimit{Cur: uint64(mb) << 20, Max: uint64(mb) << 20}
	return unix.Prlimit(pid, unix.RLIMIT_AS, lim, nil)
}

// groupFootprint sums VmRSS and VmSwap over the processes of pgid's
// group but skip (the reaper), read from /proc.
func groupFootprint(pgid, skip int) Footprint {
	var f Footprint
	proc, err := os.OpenRoot("/proc")
	if err != nil {
		return f
	}
	defer proc.Close()
	ents, err := procDir(proc)
	if err != nil {
		return f
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == skip || groupOf(proc, pid) != pgid {
			continue
		}
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

// Running reports whether pid exists and is not a zombie.
func Running(pid int) bool {
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
