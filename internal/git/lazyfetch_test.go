package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lazyFetches are repository configurations that make git fetch a
// missing object from a promisor remote by running a program: PAYLOAD
// stands for it. Each also allows its protocol in the repository's own
// configuration, which -c protocol.allow=never does not override.
var lazyFetches = []struct{ name, config string }{
	{"ssh command", `[core]
	repositoryformatversion = 1
	sshCommand = PAYLOAD
[extensions]
	partialClone = origin
[remote "origin"]
	url = ssh://example.invalid/x
	promisor = true
[protocol "ssh"]
	allow = always
`},
	{"promisor without the extension", `[core]
	sshCommand = PAYLOAD
[remote "origin"]
	url = ssh://example.invalid/x
	promisor = true
[protocol "ssh"]
	allow = always
`},
	{"ext url", `[core]
	repositoryformatversion = 1
[extensions]
	partialClone = origin
[remote "origin"]
	url = "ext::PAYLOAD %S"
	promisor = true
[protocol "ext"]
	allow = always
`},
	{"file url with upload-pack", `[core]
	repositoryformatversion = 1
[extensions]
	partialClone = origin
[remote "origin"]
	url = file://OTHER
	uploadpack = PAYLOAD
	promisor = true
[protocol "file"]
	allow = always
`},
	{"local path with upload-pack", `[core]
	repositoryformatversion = 1
[extensions]
	partialClone = origin
[remote "origin"]
	url = OTHER
	uploadpack = PAYLOAD
	promisor = true
[protocol "file"]
	allow = always
`},
	{"git proxy", `[core]
	repositoryformatversion = 1
	gitProxy = PAYLOAD
[extensions]
	partialClone = origin
[remote "origin"]
	url = git://example.invalid/x
	promisor = true
[protocol "git"]
	allow = always
`},
	{"remote helper", `[core]
	repositoryformatversion = 1
[extensions]
	partialClone = origin
[remote "origin"]
	vcs = sextanttest
	url = x
	promisor = true
[protocol "sextanttest"]
	allow = always
`},
}

// hostileClone makes a committed repository in a new directory whose
// configuration (config, with PAYLOAD and OTHER replaced) names a
// promisor remote, and deletes the objects missing names (revisions
// such as "HEAD:a.go") so that reading them asks git to fetch. It
// returns the repository's directory and the marker file the payload
// writes when it runs; a remote helper named sextanttest runs it too
// (the test's PATH finds it).
func hostileClone(t *testing.T, config string, commits []map[string]string, missing ...string) (repo, marker string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	marker = filepath.Join(dir, "ran")
	payload := filepath.Join(dir, "payload.sh")
	if err := os.WriteFile(payload, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(payload, filepath.Join(bin, "git-remote-sextanttest")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	repo = filepath.Join(dir, "repo")
	other := filepath.Join(dir, "other.git")
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
	for _, d := range []string{repo, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(other, "init", "-q", "--bare")
	gitIn(repo, "init", "-q")
	for i, files := range commits {
		for name, content := range files {
			p := filepath.Join(repo, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gitIn(repo, "add", ".")
		gitIn(repo, "commit", "-q", "-m", "commit "+string(rune('a'+i)))
	}
	var ids []string
	for _, rev := range missing {
		ids = append(ids, gitIn(repo, "rev-parse", rev))
	}
	for _, id := range ids {
		if err := os.Remove(filepath.Join(repo, ".git", "objects", id[:2], id[2:])); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.NewReplacer("PAYLOAD", payload, "OTHER", other).Replace(config)); err != nil {
		t.Fatal(err)
	}
	return repo, marker
}

// TestLazyFetchRunsNothing reads a missing commit, a missing blob and the
// history across a missing tree of repositories whose configuration
// would fetch them by running a program: git fails to read them, and
// runs nothing.
func TestLazyFetchRunsNothing(t *testing.T) {
	for _, lf := range lazyFetches {
		t.Run(lf.name, func(t *testing.T) {
			commits := []map[string]string{
				{"a.go": "package a\n", "sub/x.go": "package sub\n"},
				{"a.go": "package a // two\n", "sub/x.go": "package sub // two\n"},
			}
			repo, marker := hostileClone(t, lf.config, commits, "HEAD:a.go", "HEAD~1:sub")
			ctx := context.Background()
			r, err := Open(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Commit(ctx, "1234567890abcdef1234567890abcdef12345678"); err == nil {
				t.Error("a commit the repository lacks resolved")
			}
			head, err := r.Commit(ctx, "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			tree, err := r.Tree(ctx, head)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, b := range tree {
				ids = append(ids, b.ID)
			}
			if _, err := r.Contents(ctx, ids); err == nil {
				t.Error("a missing blob was read")
			}
			if _, err := r.History(ctx, 10); err == nil {
				t.Error("the history was read across a missing tree")
			}
			if data, err := os.ReadFile(marker); err == nil {
				t.Errorf("git ran a program of the repository's configuration: %s", data)
			}
		})
	}
}
