package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenGitDirs opens work trees whose .git leads elsewhere. A .git
// file naming a directory inside the work tree, a linked work tree made
// by git worktree add, a submodule, and a directory below the top of a
// work tree open; a .git file naming another repository's git directory,
// another work tree's or another submodule's, a .git symlink to another
// repository, and a .git directory whose commondir names another
// repository's are not repositories here.
func TestOpenGitDirs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitIn := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	newRepo := func(name string) string {
		t.Helper()
		dir := filepath.Join(base, name)
		write(filepath.Join(dir, "sub", name+".go"), "package "+name+"\n")
		gitIn(dir, "init", "-q")
		gitIn(dir, "add", ".")
		gitIn(dir, "commit", "-q", "-m", name)
		return dir
	}

	// The user's own layouts.
	main := newRepo("main")
	worktree := filepath.Join(base, "linked")
	gitIn(main, "worktree", "add", "-q", worktree)
	lib := newRepo("lib")
	gitIn(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendored")
	gitIn(main, "commit", "-q", "-m", "submodule")
	inside := newRepo("inside")
	if err := os.Rename(filepath.Join(inside, ".git"), filepath.Join(inside, ".store")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(inside, ".git"), "gitdir: .store\n")

	// Someone else's, reached from a checkout an attacker wrote.
	victim := newRepo("victim")
	victimTree := filepath.Join(base, "victim-linked")
	gitIn(victim, "worktree", "add", "-q", victimTree)
	gitIn(victim, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "mod")
	hostile := func(name string, dotGit func(dir string)) string {
		dir := filepath.Join(base, name)
		write(filepath.Join(dir, "x.go"), "package x\n")
		dotGit(dir)
		return dir
	}
	gitFile := func(target string) func(string) {
		return func(dir string) { write(filepath.Join(dir, ".git"), "gitdir: "+target+"\n") }
	}
	foreignFile := hostile("foreign-file", gitFile(filepath.Join(victim, ".git")))
	foreignRelative := hostile("foreign-relative", gitFile("../victim/.git"))
	foreignWorktree := hostile("foreign-worktree", gitFile(filepath.Join(victim, ".git", "worktrees", "victim-linked")))
	foreignModule := hostile("foreign-module", gitFile(filepath.Join(victim, ".git", "modules", "mod")))
	foreignLink := hostile("foreign-link", func(dir string) {
		if err := os.Symlink(filepath.Join(victim, ".git"), filepath.Join(dir, ".git")); err != nil {
			t.Fatal(err)
		}
	})
	foreignCommon := hostile("foreign-common", func(dir string) {
		gitIn(dir, "init", "-q")
		write(filepath.Join(dir, ".git", "commondir"), filepath.Join(victim, ".git")+"\n")
	})

	ctx := context.Background()
	for _, tc := range []struct {
		name, dir string
		ok        bool
	}{
		{"work tree", main, true},
		{"below the top", filepath.Join(main, "sub"), true},
		{"linked work tree", worktree, true},
		{"linked work tree, below the top", filepath.Join(worktree, "sub"), true},
		{"submodule", filepath.Join(main, "vendored"), true},
		{"submodule, below the top", filepath.Join(main, "vendored", "sub"), true},
		{"git file inside the work tree", inside, true},
		{"git file naming another repository", foreignFile, false},
		{"relative git file naming another repository", foreignRelative, false},
		{"git file naming another work tree's", foreignWorktree, false},
		{"git file naming another submodule's", foreignModule, false},
		{"git symlink to another repository", foreignLink, false},
		{"commondir naming another repository", foreignCommon, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(ctx, tc.dir)
			if !tc.ok {
				if !errors.Is(err, ErrNotRepository) || !errors.Is(err, ErrForeignGitDir) {
					t.Fatalf("Open = %v, want ErrNotRepository and ErrForeignGitDir", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			head, err := r.Commit(ctx, "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Tree(ctx, head); err != nil {
				t.Fatal(err)
			}
		})
	}
}
