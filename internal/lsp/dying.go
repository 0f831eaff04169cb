package lsp

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// dying reports whether the process pid is already on its way out: a
// SIGKILL pending, exiting, or a zombie, as Linux's /proc tells. Alive
// says yes to such a server until the kernel is done with it, and a
// request written to it then is lost; a killed server is sent nothing.
// Elsewhere it reports false.
func dying(pid int) bool {
	proc, err := os.OpenRoot("/proc")
	if err != nil {
		return false
	}
	defer proc.Close()
	stat, err := proc.ReadFile(strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
		// state ppid pgrp session tty_nr tpgid flags
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 6 {
			if f[0] == "Z" || f[0] == "X" {
				return true
			}
			if flags, err := strconv.ParseUint(f[6], 10, 64); err == nil && flags&pfExiting != 0 {
				return true
			}
		}
	}
	status, err := proc.ReadFile(strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != "SigPnd" && k != "ShdPnd" {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && mask&sigkillBit != 0 {
			return true
		}
	}
	return false
}

const (
	pfExiting  = 0x4            // PF_EXITING in /proc/PID/stat's flags
	sigkillBit = uint64(1) << 8 // SIGKILL (9) in a pending-signal mask
)
