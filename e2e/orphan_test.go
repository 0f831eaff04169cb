//go:build linux

package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowGo puts a fake go command first on PATH whose `go list` records its
// pid and sleeps (a load that is never done), everything else going to
// the real go. It returns the environment to run sextant with and the
// file the pids are written to.
func slowGo(t *testing.T) (env []string, pids string) {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pids = filepath.Join(dir, "pids")
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = list ]; then echo $$ >> %q; exec sleep 300; fi\nexec %q \"$@\"\n", pids, real)
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH")), pids
}

// tinyModule writes a one-file module and returns its directory.
func tinyModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": "module example.com/tiny\n\ngo 1.22\n", "a.go": "package tiny\n\nfunc A() {}\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// waitListing waits until a go list has started and returns its pid.
func waitListing(t *testing.T, pids string) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(pids); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			pid, err := strconv.Atoi(strings.Fields(string(b))[0])
			if err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no go list started within 60 s")
	return 0
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// checkGone fails the test unless pid ends within ten seconds, and kills
// it if it does not.
func checkGone(t *testing.T, pid int, what string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if !running(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("go list (pid %d) survived %s", pid, what)
}

// waitExit waits for cmd to end after what, and kills it (failing the
// test) when it has not within 30 seconds.
func waitExit(t *testing.T, cmd *exec.Cmd, name, what string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("%s did not end within 30 s of %s", name, what)
	}
}

// TestNoOrphanedGoList: the go command Sextant runs to load packages dies
// with Sextant however it ends: SIGKILL of `sextant index`, SIGTERM or
// SIGINT of a tool subcommand, `serve` losing its stdin mid-index.
func TestNoOrphanedGoList(t *testing.T) {
	t.Run("index SIGKILL", func(t *testing.T) {
		env, pids := slowGo(t)
		root := tinyModule(t)
		cmd := exec.Command(bin, "index", "--db", filepath.Join(t.TempDir(), "x.db"), root)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := waitListing(t, pids)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		checkGone(t, pid, "SIGKILL of sextant index")
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run("tool "+sig.String(), func(t *testing.T) {
			env, pids := slowGo(t)
			root := tinyModule(t)
			cmd := exec.Command(bin, "find_symbol", "--db", filepath.Join(t.TempDir(), "x.db"), "--root", root, "--name", "A")
			cmd.Env, cmd.Dir = env, root
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := waitListing(t, pids)
			_ = cmd.Process.Signal(sig)
			waitExit(t, cmd, "sextant find_symbol", sig.String())
			checkGone(t, pid, sig.String()+" of a tool subcommand")
		})
	}
	t.Run("serve stdin closed", func(t *testing.T) {
		env, pids := slowGo(t)
		root := tinyModule(t)
		cmd := exec.Command(bin, "serve", "--db", filepath.Join(t.TempDir(), "x.db"), root)
		cmd.Env = env
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_symbol","arguments":{"name":"A"}}}`,
		} {
			fmt.Fprintln(stdin, m)
		}
		pid := waitListing(t, pids)
		stdin.Close()
		waitExit(t, cmd, "sextant serve", "losing its stdin")
		checkGone(t, pid, "serve losing its stdin")
	})
}
