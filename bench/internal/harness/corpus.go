package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// SelfModule is the module the harnesses benchmark; they build the
// binaries from its root.
const SelfModule = "github.com/sextant-dev/sextant"

// Logf prints a timestamped progress line on stderr.
func Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// Main runs the body of the command name with a context that an
// interrupt cancels, so a run stopped with ^C still removes what it made,
// and exits with status 1 and "name: error" on stderr when it fails.
func Main(name string, run func(ctx context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// ModuleRoot returns the root directory of the sextant module the harness
// runs in.
func ModuleRoot(ctx context.Context) (string, error) {
	out, err := GoOutput(ctx, "", nil, "list", "-m", "-f", "{{.Path}} {{.Dir}}")
	if err != nil {
		return "", fmt.Errorf("finding the module root (run from the sextant module): %w", err)
	}
	p, dir, _ := strings.Cut(strings.TrimSpace(out), " ")
	if p != SelfModule || dir == "" {
		return "", fmt.Errorf("run from the %s module (the working directory is in %q)", SelfModule, p)
	}
	return dir, nil
}

// FetchModule returns a writable copy of module (MODULE@VERSION) taken
// from the module cache with `go mod download -json`, its dependencies
// downloaded so that go list can load it offline. Each module gets its own
// directory under work/corpus.
func FetchModule(ctx context.Context, module, work string) (string, error) {
	modPath, _, ok := strings.Cut(module, "@")
	if !ok {
		return "", fmt.Errorf("module %q: want MODULE@VERSION", module)
	}
	Logf("fetching %s", module)
	// Outside any module, so the download cannot touch a go.mod.
	out, err := GoOutput(ctx, work, []string{"GOWORK=off", "GOFLAGS="}, "mod", "download", "-json", module)
	if err != nil {
		return "", err
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return "", fmt.Errorf("reading go mod download output: %w", err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, m.Error)
	}
	dst := filepath.Join(work, "corpus", path.Base(modPath))
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	Logf("copying %s to %s", m.Dir, dst)
	if err := copyTree(m.Dir, dst); err != nil {
		return "", fmt.Errorf("copying the corpus: %w", err)
	}
	// A go.work in a module zip lists modules the zip does not hold
	// (prometheus's web/ui modules): without it, the module is its own
	// workspace, for every contender alike.
	for _, f := range []string{"go.work", "go.work.sum"} {
		if err := os.Remove(filepath.Join(dst, f)); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	}
	Logf("downloading the dependencies of %s", module)
	if _, err := GoOutput(ctx, dst, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, "mod", "download"); err != nil {
		return "", err
	}
	Logf("%s is ready in %s", module, dst)
	return dst, nil
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
		return copyFile(p, target)
	})
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	_, err = io.Copy(out, in)
	return err
}

// GoOutput runs the go command in dir with extra environment variables
// and returns its standard output.
func GoOutput(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// ResultPath is where a harness writes its JSON when no -out is given:
// bench/results/DATE-name-COMMIT.json under the module root, DATE today
// (UTC) and COMMIT the short hash of the checkout's HEAD, with "-dirty"
// when tracked files differ from it ("nocommit" outside a git checkout).
// Results are named by date and commit; a run of a prebuilt binary
// (-sextant) names the checkout of the harness, so say which binary ran.
func ResultPath(root, name string) string {
	commit := "nocommit"
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			commit += "-dirty"
		}
	}
	return filepath.Join(root, "bench", "results", time.Now().UTC().Format("2006-01-02")+"-"+name+"-"+commit+".json")
}

// ResultFile is the file a run writes its JSON to: out as given ("-":
// stdout), or when out is "" ResultPath(root, name).
func ResultFile(root, out, name string) string {
	if out == "" {
		return ResultPath(root, name)
	}
	return out
}

// WriteJSON writes v, indented, to out ("-": stdout), or when out is ""
// to ResultPath(root, name).
func WriteJSON(root, out, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if out == "-" {
		_, err = os.Stdout.Write(append(data, '\n'))
		return err
	}
	out = ResultFile(root, out, name)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	Logf("writing %s", out)
	return os.WriteFile(out, append(data, '\n'), 0o644)
}
