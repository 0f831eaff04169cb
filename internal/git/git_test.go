package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHostileRepository reads a repository whose configuration names
// commands for every hook git has (fsmonitor, hooks, pager, a clean
// filter on every file, an external diff, text conversion, signature
// checks, transports): reading commits, blobs and the history runs none
// of them, and the blobs are what was committed.
func TestHostileRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	evil := filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho ran >> "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun("init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "sub", "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "one")
	// The hostile configuration arrives after the commit, as with a clone.
	for _, kv := range [][2]string{
		{"core.fsmonitor", evil}, {"core.hooksPath", dir}, {"core.pager", evil},
		{"filter.x.clean", evil}, {"filter.x.smudge", evil}, {"diff.external", evil},
		{"diff.x.textconv", evil}, {"diff.x.command", evil}, {"log.showSignature", "true"},
		{"gpg.program", evil}, {"gpg.ssh.program", evil}, {"core.sshCommand", evil},
		{"core.gitProxy", evil}, {"core.askPass", evil}, {"credential.helper", "!" + evil},
		{"remote.origin.url", "ext::" + evil}, {"remote.origin.uploadpack", evil},
		{"diff.orderFile", "/dev/zero"}, {"mailmap.file", "/dev/zero"},
	} {
		gitRun("config", kv[0], kv[1])
	}
	for _, h := range []string{"post-checkout", "pre-commit", "reference-transaction"} {
		if err := os.WriteFile(filepath.Join(dir, h), []byte("#!/bin/sh\necho ran >> "+marker+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitattributes"), []byte("* filter=x diff=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "sub", "a.go"), []byte("package a // edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	r, err := Open(ctx, filepath.Join(repo, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Commit(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.Tree(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) != 1 || tree[0].Path != "a.go" {
		t.Fatalf("tree of sub/ at HEAD: %+v, want a.go alone", tree)
	}
	blobs, err := r.Contents(ctx, []string{tree[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(blobs[tree[0].ID]); got != "package a\n" {
		t.Fatalf("a.go at HEAD = %q", got)
	}
	if id := BlobIDFor([]byte("package a\n"), head); id != tree[0].ID {
		t.Fatalf("BlobIDFor = %s, git says %s", id, tree[0].ID)
	}
	history, err := r.History(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 1 || len(history[0]) != 1 || history[0][0] != "a.go" {
		t.Fatalf("history of sub/: %q, want one commit changing a.go", history)
	}
	if _, err := os.Stat(marker); err == nil {
		data, _ := os.ReadFile(marker)
		t.Fatalf("a command of the repository's configuration ran: %s", data)
	}
	for _, bad := range []string{"--output=/tmp/x", "HEAD main", "nope", "a\x00b", "^HEAD", "HEAD..HEAD", "HEAD...HEAD", "..HEAD", "HEAD^@", "HEAD^!", "HEAD^-1"} {
		if _, err := r.Commit(ctx, bad); !errors.Is(err, ErrBadRevision) {
			t.Errorf("Commit(%q) = %v, want ErrBadRevision", bad, err)
		}
	}
	if _, err := Open(ctx, dir); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open outside a work tree: %v", err)
	}
}
