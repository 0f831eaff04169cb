package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
)

// runWith runs the binary with extra environment variables and returns
// stdout, stderr and the exit code.
func runWith(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("sextant %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), code
}

// TestPublish drives `sextant publish` as a CI job would, against the
// PostgreSQL test server: a checkout is published (exit 0) and then read
// through the overlay by a tool subcommand on an unchanged copy (every row
// from the shared layer); a checkout at another commit than --commit is a
// usage error (2); a database that refuses the password is exit 4, and no
// output spells the password.
func TestPublish(t *testing.T) {
	dsn := pgtest.Schema(t)
	local := []string{"SEXTANT_LOCAL_DB=" + filepath.Join(t.TempDir(), "local.db")}

	out, errOut, code := runWith(t, local, "publish", "--db", dsn, "--commit", "c0ffee", "--json", cobraDir)
	if code != 0 {
		t.Fatalf("publish: exit %d\n%s", code, errOut)
	}
	var sum struct {
		Repository string `json:"repository"`
		Commit     string `json:"commit"`
		Symbols    int    `json:"symbols"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Repository != cobraModule || sum.Commit != "c0ffee" || sum.Symbols == 0 {
		t.Fatalf("publish summary = %+v, %v\n%s", sum, err, out)
	}

	out, errOut, code = runWith(t, append(local, "SEXTANT_DB="+dsn), "find_symbol", "--root", cobraDir, "--json",
		"--name", "Command", "--mode", "exact", "--kind", "type")
	if code != 0 {
		t.Fatalf("find_symbol over the shared graph: exit %d\n%s", code, errOut)
	}
	var found struct {
		Results []struct {
			Repository string `json:"repository"`
			Layer      string `json:"layer"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &found); err != nil || len(found.Results) != 1 ||
		found.Results[0].Repository != cobraModule || found.Results[0].Layer != "shared" {
		t.Errorf("find_symbol Command = %+v, %v; want one row of %s from the shared layer", found.Results, err, cobraModule)
	}

	if _, err := exec.LookPath("git"); err != nil {
		// The Wine prefix has no git for Windows; natively CI has it.
		t.Skip("git is not installed: the publish at a wrong commit is not checked")
	}
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/ci\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x"}} {
		git := exec.Command("git", args...)
		git.Dir = repo
		if b, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	if _, errOut, code := runWith(t, local, "publish", "--db", dsn, "--commit", strings.Repeat("a", 40), repo); code != 2 || !strings.Contains(errOut, "not at --commit") {
		t.Errorf("publish at the wrong commit: exit %d, want 2\n%s", code, errOut)
	}

	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "not-the-password-81")
	out, errOut, code = runWith(t, local, "publish", "--db", u.String(), cobraDir)
	if code != 4 {
		t.Errorf("publish with a refused password: exit %d, want 4\n%s", code, errOut)
	}
	if strings.Contains(out+errOut, "not-the-password-81") {
		t.Errorf("the password was printed:\n%s%s", out, errOut)
	}
}
