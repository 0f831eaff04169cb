package query

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestGitLazyFetchRunsNothing gives the impact fixture, committed twice,
// a configuration that fetches missing objects from a promisor remote by
// running a program, deletes objects the tools read (the blob of an
// edited file, the tree of the first commit), and calls the tools that
// run git: get_impact against a commit the repository lacks, get_impact
// on the working tree, and the overview, which reads the history. None
// runs the program.
func TestGitLazyFetchRunsNothing(t *testing.T) {
	configs := []struct{ name, config string }{
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
		{"ext url", `[remote "origin"]
	url = "ext::PAYLOAD %S"
	promisor = true
[protocol "ext"]
	allow = always
`},
	}
	r := newImpactRepo(t, true)
	gitOut := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = r.dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	var missing []string
	for _, rev := range []string{"HEAD:shape/shape.go", "HEAD~1:shape"} {
		missing = append(missing, gitOut("rev-parse", rev))
	}
	for _, id := range missing {
		if err := os.Remove(filepath.Join(r.dir, ".git", "objects", id[:2], id[2:])); err != nil {
			t.Fatal(err)
		}
	}
	shape := filepath.Join(r.dir, "shape", "shape.go")
	src, err := os.ReadFile(shape)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shape, append(src, "\nfunc Edited() {}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	configFile := filepath.Join(r.dir, ".git", "config")
	clean, err := os.ReadFile(configFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	payload := filepath.Join(dir, "payload.sh")
	if err := os.WriteFile(payload, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := []toolCall{
		{"get_impact", `{"base":"1234567890abcdef1234567890abcdef12345678"}`},
		{"get_impact", `{"diff":true}`},
		{"get_repository_overview", `{}`},
	}
	for _, c := range configs {
		config := strings.ReplaceAll(c.config, "PAYLOAD", payload)
		if err := os.WriteFile(configFile, append(append([]byte{}, clean...), config...), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, call := range calls {
			tl, _ := LookupTool(call.tool)
			_, err := tl.Call(context.Background(), r.svc, json.RawMessage(call.args), nil)
			if data, rerr := os.ReadFile(marker); rerr == nil {
				t.Errorf("%s: %s %s ran a program of the repository's configuration (answer: %v): %s", c.name, call.tool, call.args, err, data)
				os.Remove(marker)
			}
		}
	}
}

// TestImpactBadBase gives get_impact bases that are not one commit: a
// negation, ranges, a parent shorthand that means several commits, a
// name the repository lacks, an option. Each is INVALID_ARGUMENT naming
// base.
func TestImpactBadBase(t *testing.T) {
	r := newImpactRepo(t, true)
	tl, _ := LookupTool("get_impact")
	for _, base := range []string{"^HEAD", "^HEAD~1", "HEAD~1..HEAD", "HEAD~1...HEAD", "..HEAD", "HEAD^@", "HEAD^!", "HEAD^-", "nope", "--output=/tmp/x"} {
		_, err := tl.Call(context.Background(), r.svc, json.RawMessage(mustJSON(map[string]any{"base": base})), nil)
		e, coded := asError(err)
		if !coded || e.Code != graph.CodeInvalidArgument || e.Data["field"] != "base" {
			t.Errorf("base %q: %v, want INVALID_ARGUMENT naming base", base, err)
		}
	}
	if o := r.impact(t, `{"base":"HEAD~1"}`); len(o.Changed) == 0 {
		t.Error("base HEAD~1 finds no change")
	}
}

// TestImpactForeignGitFile replaces the impact fixture's .git directory
// with a .git file naming another repository's: get_impact on the working
// tree is INVALID_ARGUMENT on diff, and names nothing of the other
// repository.
func TestImpactForeignGitFile(t *testing.T) {
	r := newImpactRepo(t, false)
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "secret.go"), []byte("package secret\n\nfunc Secret() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "secret"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = other
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.RemoveAll(filepath.Join(r.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, ".git"), []byte("gitdir: "+filepath.Join(other, ".git")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl, _ := LookupTool("get_impact")
	for _, args := range []string{`{"diff":true}`, `{"base":"HEAD"}`} {
		a, err := tl.Call(context.Background(), r.svc, json.RawMessage(args), nil)
		if o, _ := a.(*GetImpactOutput); o != nil && strings.Contains(o.Text(), "Secret") {
			t.Errorf("%s names the other repository's declarations:\n%s", args, o.Text())
		}
		e, coded := asError(err)
		if !coded || e.Code != graph.CodeInvalidArgument || !strings.Contains(e.Message, "another") {
			t.Errorf("%s: %v, want INVALID_ARGUMENT saying the .git leads to another repository", args, err)
		}
	}
}
