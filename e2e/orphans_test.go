package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLSPNoOrphansWithChild SIGKILLs sextant while its language server
// (the fake, built from bench/cmd/lspfake) runs a child of its own, with
// each lifecycle guard Linux can run: the default (parent-death signal,
// the reaper ending the group) and SEXTANT_LSP_GUARD=reaper (the pipe
// reaper alone, macOS's mechanism). Neither the server nor its child may
// be left running.
func TestLSPNoOrphansWithChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads processes and their groups from /proc")
	}
	fake := goBuild(t, moduleRoot, "./bench/cmd/lspfake")
	for _, guard := range []string{"", "reaper"} {
		t.Run("guard="+guard, func(t *testing.T) {
			t.Setenv("SEXTANT_LSP_GUARD", guard)
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "sextant.toml"), fmt.Sprintf(`[lsp]
[[lsp.server]]
name = "fake"
command = %q
globs = ["*.txt"]
language_id = "plaintext"
`, fake))
			writeFile(t, filepath.Join(root, "child.txt"), "CHILD\n")
			cs, cmd := lspServe(t, os.Getenv("PATH"), root)
			ans, _ := callOK[lspAnswer](t, cs, "lsp_hover", map[string]any{"file": "child.txt", "line": 1, "column": 1})
			child, err := strconv.Atoi(strings.TrimPrefix(ans.Contents, "child "))
			if err != nil || !procAlive(ans.Pid) || !procAlive(child) {
				t.Fatalf("hover %q (server %d): want a running server with a running child", ans.Contents, ans.Pid)
			}
			pids := inGroups(groupsOf([]int{ans.Pid}))
			if !slices.Contains(pids, ans.Pid) || !slices.Contains(pids, child) {
				t.Fatalf("the server's group holds %v, want the server %d and its child %d", pids, ans.Pid, child)
			}
			if err := cmd.Process.Kill(); err != nil { // SIGKILL: nothing of sextant runs after it
				t.Fatal(err)
			}
			waitNoneAlive(t, pids, "sextant was SIGKILLed")
		})
	}
}

// groupsOf returns the process group of each of pids, from /proc.
func groupsOf(pids []int) []int {
	var out []int
	for _, pid := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if f := strings.Fields(string(data[i+1:])); i >= 0 && len(f) >= 3 {
			if g, err := strconv.Atoi(f[2]); err == nil {
				out = append(out, g)
			}
		}
	}
	return out
}

// waitNoneAlive waits 5 s for every one of pids to end; the ones left
// are killed and the test fails.
func waitNoneAlive(t *testing.T, pids []int, after string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			if procAlive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				killPid(pid)
			}
			t.Fatalf("processes %v still running 5 s after %s", left, after)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killPid kills pid (SIGKILL; TerminateProcess on Windows).
func killPid(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
