package proctree

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// New is Windows's tree: a job object.
func New() *Tree { return &Tree{} }

// Tree is a process inside a job object that Windows ends when its last
// handle closes: Sextant holds the only one, so the process and every
// process it starts (children join their parent's job) end when Sextant
// exits or is killed. The job's per-process memory limit is the hard cap.
type Tree struct {
	job  windows.Handle
	once sync.Once
}

// jobFlags are the limits every tree's job has.
const jobFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE

// Start starts cmd inside the tree, its memory capped at capMB MiB (0:
// none) by the job's per-process limit. It sets cmd.SysProcAttr.
func (t *Tree) Start(cmd *exec.Cmd, capMB int) error {
	job, err := windows.CreateJobObject(nil, nil) // not inheritable: no child holds it open
	if err != nil {
		return fmt.Errorf("creating a job object: %w", err)
	}
	t.job = job
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = jobFlags
	if capMB > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY
		info.ProcessMemoryLimit = uintptr(capMB) << 20
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		t.Release()
		return fmt.Errorf("setting the job's limits: %w", err)
	}
	// Started suspended, so that it runs no instruction, and starts no
	// child, outside the job.
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
	if err := cmd.Start(); err != nil {
		t.Release()
		return err
	}
	pid := uint32(cmd.Process.Pid)
	err = t.assign(pid)
	if err == nil {
		err = resume(pid)
	}
	if err != nil {
		t.Release() // the job's only handle: the process dies with it
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return nil
}

// assign puts pid into the job.
func (t *Tree) assign(pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("opening the process process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(t.job, h); err != nil {
		return fmt.Errorf("putting the process in its job: %w", err)
	}
	return nil
}

// resume resumes the threads of the suspended process pid (its one
// thread: os/exec closes the handle CreateProcess returned for it).
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing its threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("opening its thread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming the process: %w", err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("resuming the process: no thread of process %d found", pid)
	}
	return nil
}

// PolledCap: the job's memory limit is the kernel's.
func (t *Tree) PolledCap() bool { return false }

// Kill ends every process of the job now.
func (t *Tree) Kill() { _ = windows.TerminateJobObject(t.job, 1) }

// Footprint sums the working sets of the job's processes.
func (t *Tree) Footprint() Footprint {
	var f Footprint
	// JOBOBJECT_BASIC_PROCESS_ID_LIST: two counts, then the ids.
	var list struct {
		Assigned, Listed uint32
		IDs              [256]uintptr
	}
	if err := windows.QueryInformationJobObject(t.job, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil); err != nil && err != windows.ERROR_MORE_DATA {
		return f
	}
	for _, id := range list.IDs[:min(int(list.Listed), len(list.IDs))] {
		if ws, ok := workingSet(uint32(id)); ok {
			f.RSSBytes += ws
			f.Processes++
		}
	}
	return f
}

// Release closes the job, which ends what is left of it. Call it once the
// process is reaped.
func (t *Tree) Release() {
	t.once.Do(func() {
		if t.job != 0 {
			windows.CloseHandle(t.job) // kills what is left: KILL_ON_JOB_CLOSE
		}
	})
}

// processMemoryCounters is PROCESS_MEMORY_COUNTERS (psapi.h).
type processMemoryCounters struct {
	CB                         uint32
	PageFaultCount             uint32
	PeakWorkingSetSize         uintptr
	WorkingSetSize             uintptr
	QuotaPeakPagedPoolUsage    uintptr
	QuotaPagedPoolUsage        uintptr
	QuotaPeakNonPagedPoolUsage uintptr
	QuotaNonPagedPoolUsage     uintptr
	PagefileUsage              uintptr
	PeakPagefileUsage          uintptr
}

// getProcessMemoryInfo is kernel32's K32GetProcessMemoryInfo (psapi's
// GetProcessMemoryInfo), which golang.org/x/sys/windows does not wrap.
var getProcessMemoryInfo = windows.NewLazySystemDLL("kernel32.dll").NewProc("K32GetProcessMemoryInfo")

// workingSet is process pid's working set in bytes.
func workingSet(pid uint32) (int64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.PROCESS_VM_READ, false, pid)
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	c := processMemoryCounters{CB: uint32(unsafe.Sizeof(processMemoryCounters{}))}
	if r, _, _ := getProcessMemoryInfo.Call(uintptr(h), uintptr(unsafe.Pointer(&c)), uintptr(c.CB)); r == 0 {
		return 0, false
	}
	return int64(c.WorkingSetSize), true
}

// stillActive is the exit code of a process that has not exited.
const stillActive = 259

// Running reports whether pid exists and has not exited.
func Running(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}

// SignalOf: Windows ends processes with exit codes, not signals.
func SignalOf(*os.ProcessState) string { return "" }
