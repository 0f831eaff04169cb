//go:build linux

package proc

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sextant-dev/sextant/internal/filecache"
)

// GuardGo makes every go command this process starts through PATH (the
// one go/packages runs, and those of the language servers it starts) go
// through the shim, by putting the shim's directory first on PATH. It
// changes this process's environment, so it is called once, first thing,
// by the command line. Without a go command on PATH, or without a cache
// directory to keep the shim in, it does nothing.
func GuardGo() error {
	if os.Getenv(RealGoEnv) != "" {
		return nil // already guarded by the Sextant that started this one
	}
	real, err := exec.LookPath("go")
	if err != nil {
		return nil // loads fail with the go command's own error
	}
	if real, err = filepath.Abs(real); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	// One directory per binary, in the user's own cache (not a shared
	// temporary directory another user could plant a go in), and only
	// when it and its sextant/ and go-shim/ parents are the user's alone:
	// it goes first on PATH of everything Sextant starts.
	sum := sha256.Sum256([]byte(exe))
	dir, err := filecache.PrivateDir(cache, "sextant", "go-shim", hex.EncodeToString(sum[:8]))
	if err != nil {
		return fmt.Errorf("not guarding the go command: %w", err)
	}
	if err := onlyGo(dir); err != nil {
		return fmt.Errorf("not guarding the go command: %w", err)
	}
	link := filepath.Join(dir, "go")
	if target, err := os.Readlink(link); err != nil || target != exe {
		// Made beside the directory, never in it, then renamed in.
		tmp := dir + ".go.tmp" + strconv.Itoa(os.Getpid())
		_ = os.Remove(tmp)
		if err := os.Symlink(exe, tmp); err != nil {
			return fmt.Errorf("creating the go shim: %w", err)
		}
		if err := os.Rename(tmp, link); err != nil {
			_ = os.Remove(tmp)
			return fmt.Errorf("creating the go shim: %w", err)
		}
	}
	os.Setenv(RealGoEnv, real)
	os.Setenv(ShimDirEnv, dir)
	return os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// onlyGo removes from the shim's directory everything but the go link
// (a go that is not a symbolic link goes too, to be made again): any
// other name there would shadow the command of that name for every
// process Sextant starts.
func onlyGo(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() == "go" && e.Type()&os.ModeSymlink != 0 {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("refusing %s: it holds %s, which cannot be removed: %w", dir, e.Name(), err)
		}
	}
	return nil
}

// ShimMain runs this process as the shim when it was started as one (see
// the package doc) and returns its exit code; ok is false otherwise.
func ShimMain() (code int, ok bool) {
	if !isShim() {
		return 0, false
	}
	return runShim(os.Getenv(RealGoEnv), os.Args[1:]), true
}

func runShim(real string, args []string) int {
	parent := os.Getppid()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	// The parent-death signal is SIGTERM, caught below. The kernel sends
	// it when the thread that started this process ends, too: the parent
	// is dead only when this process has a new parent.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "sextant go shim: %v\n", err)
		return 1
	}
	if os.Getppid() != parent {
		return 1 // died before the signal was asked for
	}
	cmd := exec.Command(real, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = withoutDir(os.Environ(), os.Getenv(ShimDirEnv))
	// Should the shim itself be killed outright, the go command goes too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "sextant go shim: %v\n", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			return exitCode(err)
		case s := <-sigs:
			switch {
			case s == syscall.SIGTERM && os.Getppid() != parent:
				// Sextant is gone. When go/packages made this process a
				// group leader, the group is the go command and all it
				// started; otherwise the group is someone else's, and
				// only the go command is killed.
				if syscall.Getpgrp() == os.Getpid() {
					_ = syscall.Kill(-os.Getpid(), syscall.SIGKILL)
				}
				_ = cmd.Process.Kill()
				return 1
			case s == syscall.SIGINT:
				// go/packages interrupts the whole group: the go command
				// has it already. Wait for it to end.
			default:
				_ = cmd.Process.Signal(s)
			}
		}
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "sextant go shim: %v\n", err)
	return 1
}

// isShim reports whether this process was started through the shim.
func isShim() bool {
	base := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	return base == "go" && os.Getenv(RealGoEnv) != ""
}

// withoutDir returns env with dir taken off PATH and the shim's own
// variables dropped: the environment of the real go command.
func withoutDir(env []string, dir string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case RealGoEnv, ShimDirEnv:
			continue
		case "PATH":
			var keep []string
			for _, p := range filepath.SplitList(v) {
				if p != dir {
					keep = append(keep, p)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(os.PathListSeparator))
		}
		out = append(out, kv)
	}
	return out
}
