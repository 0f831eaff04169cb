// Package e2e_test drives the built sextant binary as its users do: an MCP
// client over stdio (the go-sdk client, and once the official TypeScript
// SDK client), an MCP client over streamable HTTP, the command line, and a
// headless Chromium browsing `sextant ui` (ui_test.go).
// Every answer is checked on a real pinned module, github.com/spf13/cobra
// at v1.10.2, copied out of the module cache into a writable temporary
// directory so that it is an ordinary repository root.
//
// TestMain builds the binary and prepares the corpus once; the shared
// database is indexed once, on first use, by whichever test needs it
// first (see sharedIndex), and every read-only test reuses it. Tests that
// edit files work on a copy of their own with a database of their own.
package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The pinned corpus.
const (
	cobraModule  = "github.com/spf13/cobra"
	cobraVersion = "v1.10.2"
)

// Paths prepared by TestMain, shared by every test.
var (
	moduleRoot string // the sextant module, where go.mod is
	workDir    string // temporary directory holding everything below
	bin        string // the built sextant binary
	cobraSrc   string // cobra in the module cache (read-only)
	cobraDir   string // the shared, writable copy with fixtures added; never edited by a test
	sharedDB   string // the database of cobraDir, indexed once by sharedIndex
)

// brokenSource is a Go file that is not valid UTF-8 (in a string and a
// comment) and does not parse: get_file_outline must still outline what
// it can and list the errors.
const brokenSource = "package broken\n\nimport \"fmt\"\n\nfunc Hello() string { return \"caf\xe9\" }\n\n// Kept is caf\xe9.\ntype Kept struct{ A int }\n\nfunc Broken( {\n"

// latin1Header is a file whose first comment after the package clause is
// Latin-1: go/parser gives up on the whole file when the package clause
// has an error, and the scanner reports the byte while reading the clause.
const latin1Header = "// Package latin1 is caf\xe9.\npackage latin1\n\n// Hello says caf\xe9.\nfunc Hello() {}\n\ntype Kept struct{ A int }\n"

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		if workDir != "" {
			os.RemoveAll(workDir)
		}
		os.Exit(1)
	}
	code := m.Run()
	shutdownShared()
	os.RemoveAll(workDir)
	os.Exit(code)
}

// setup builds the binary and prepares the cobra corpus.
func setup() error {
	// The corpus takes longer to index than a call waits by default on a
	// loaded machine: every server the tests start waits for it, as the
	// tests' first calls want an answer (TestWaitNotReady gives its own).
	if err := os.Setenv("SEXTANT_WAIT", "600"); err != nil {
		return err
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return fmt.Errorf("not inside the sextant module")
	}
	moduleRoot = filepath.Dir(gomod)
	dir, err := os.MkdirTemp("", "sextant-e2e-")
	if err != nil {
		return err
	}
	// Resolve symlinks (macOS /tmp) so paths compare with what the server reports.
	if workDir, err = filepath.EvalSymlinks(dir); err != nil {
		return err
	}
	bin = filepath.Join(workDir, "sextant")
	if runtime.GOOS == "windows" {
		bin += ".exe" // what os/exec looks for there
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/sextant")
	build.Dir = moduleRoot
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/sextant: %v\n%s", err, out)
	}
	if cobraSrc, err = downloadModule(cobraModule + "@" + cobraVersion); err != nil {
		return err
	}
	cobraDir = filepath.Join(workDir, "cobra")
	if err := copyTree(cobraSrc, cobraDir); err != nil {
		return err
	}
	if err := addFixtures(cobraDir); err != nil {
		return err
	}
	// Indexing downloads nothing (SEXTANT_GO_NETWORK): cobra's own
	// dependencies are fetched here, as its user would.
	deps := exec.Command("go", "mod", "download")
	deps.Dir = cobraDir
	deps.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := deps.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod download in %s: %v\n%s", cobraDir, err, out)
	}
	sharedDB = filepath.Join(workDir, "shared.db")
	return nil
}

// downloadModule fetches MODULE@VERSION through the module proxy (or finds
// it in the module cache) and returns its directory in the cache. It runs
// outside any module so that no go.mod or go.sum is touched.
func downloadModule(modVersion string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Dir = workDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %s %s", modVersion, err, info.Error, stderr.String())
	}
	return info.Dir, nil
}

// copyTree copies the regular files and directories under src to dst,
// writable by the owner (the module cache is read-only).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// addFixtures adds what the error tests need to a copy of cobra, before
// it is indexed so that the snapshot stays fresh: under testdata/ (which
// the go command, and so the indexer, ignores) a Go file that is not
// UTF-8 and does not parse, and a symlink to a directory outside the root
// (where the platform can make one).
func addFixtures(root string) error {
	td := filepath.Join(root, "testdata")
	if err := os.MkdirAll(td, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(td, "latin1.go"), []byte(brokenSource), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(td, "latin1_header.go"), []byte(latin1Header), 0o644); err != nil {
		return err
	}
	outside := filepath.Join(workDir, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package secret\n\nconst Secret = 42\n"), 0o644); err != nil {
		return err
	}
	// A symlink needs a privilege on Windows (Developer Mode, or an
	// elevated account); without it the tests of the escape skip. Wine's
	// CreateSymbolicLinkW is a stub: it succeeds and makes nothing.
	link := filepath.Join(td, "escape")
	if err := os.Symlink(outside, link); err != nil {
		if runtime.GOOS != "windows" {
			return err
		}
		noEscape = fmt.Sprintf("this account cannot make a symlink: %v", err)
	} else if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		if !underWine() {
			return fmt.Errorf("os.Symlink made no symlink at %s (%v)", link, err)
		}
		noEscape = "Wine's CreateSymbolicLinkW reports success and makes no link"
	}
	return nil
}

// noEscape says why the fixture has no symlink out of the root, if it has
// none (see addFixtures).
var noEscape string

// needEscape skips the rest of the test if the fixture has no symlink out
// of the root: tests put their checks of the escape last.
func needEscape(t *testing.T) {
	t.Helper()
	if noEscape != "" {
		t.Skipf("no symlink out of the root to check: %s", noEscape)
	}
}

// freshCopy returns a new writable copy of pristine cobra (without the
// fixtures) for a test that edits files.
func freshCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cobra")
	if err := copyTree(cobraSrc, dir); err != nil {
		t.Fatalf("copying cobra: %v", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
