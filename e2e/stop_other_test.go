//go:build !windows

package e2e_test

import (
	"os/exec"
	"syscall"
)

// stoppable prepares cmd, before Start, for stop: nothing to do here.
func stoppable(*exec.Cmd) {}

// stop asks the process to end as a service manager does (systemd,
// launchd, docker stop): SIGTERM.
func stop(cmd *exec.Cmd) error { return cmd.Process.Signal(syscall.SIGTERM) }

// stopName names what stop sends, for messages.
const stopName = "SIGTERM"

// underWine reports whether this is Wine: never, off Windows.
func underWine() bool { return false }
