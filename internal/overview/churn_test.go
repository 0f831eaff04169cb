package overview

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRecentChanges reads the history of a real git repository whose
// configuration asks git to run programs, and checks that none ran.
func TestRecentChanges(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for i, files := range [][]string{{"a.go", "b.go"}, {"a.go"}, {"a.go", "sub/c.go"}} {
		for _, name := range files {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(fmt.Sprint("package x // ", i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", ".")
		git("commit", "-q", "-m", fmt.Sprint("commit ", i))
	}
	hook := "touch " + marker
	git("config", "core.fsmonitor", hook)
	git("config", "core.pager", hook)
	git("config", "log.showSignature", "true")
	git("config", "gpg.program", hook)
	counts, commits := RecentChanges(context.Background(), dir)
	if commits != 3 || counts["a.go"] != 3 || counts["b.go"] != 1 || counts["sub/c.go"] != 1 {
		t.Errorf("RecentChanges = %v, %d commits; want a.go 3, b.go 1, sub/c.go 1 in 3", counts, commits)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("reading the history ran a program the repository's configuration named")
	}
	// A root below the work tree's top sees its own files, relative to it.
	counts, _ = RecentChanges(context.Background(), filepath.Join(dir, "sub"))
	if len(counts) != 1 || counts["c.go"] != 1 {
		t.Errorf("RecentChanges(sub) = %v, want c.go 1", counts)
	}
}
