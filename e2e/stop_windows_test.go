package e2e_test

import (
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// Windows has no signals: os.Process.Signal does nothing there but Kill.
// What a user or a service wrapper (NSSM, WinSW) does to end a console
// program cleanly is a console control event: Ctrl+C or Ctrl+Break at
// the console, GenerateConsoleCtrlEvent from a program sharing it. Go
// delivers both as os.Interrupt. CTRL_C_EVENT reaches the whole console;
// CTRL_BREAK_EVENT can be sent to one process group, so the process is
// started in a group of its own (as os/signal's own Windows test does).

// stoppable prepares cmd, before Start, for stop.
func stoppable(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// stop asks the process to end as a user at its console would: Ctrl+Break.
func stop(cmd *exec.Cmd) error {
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid)); err != nil {
		return fmt.Errorf("sending Ctrl+Break: %w", err)
	}
	return nil
}

// stopName names what stop sends, for messages.
const stopName = "Ctrl+Break"

// underWine reports whether this Windows is Wine, whose ntdll exports
// wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
