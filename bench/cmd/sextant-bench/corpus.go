package main

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
	"path"
	"path/filepath"
	"strings"
)

// selfModule is the module this harness benchmarks; it builds the binaries
// from that module's root.
const selfModule = "github.com/sextant-dev/sextant"

// moduleRoot returns the root directory of the sextant module the harness
// runs in.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := goOutput(ctx, "", nil, "list", "-m", "-f", "{{.Path}} {{.Dir}}")
	if err != nil {
		return "", fmt.Errorf("finding the module root (run from the sextant module): %w", err)
	}
	p, dir, _ := strings.Cut(strings.TrimSpace(out), " ")
	if p != selfModule || dir == "" {
		return "", fmt.Errorf("run from the %s module (the working directory is in %q)", selfModule, p)
	}
	return dir, nil
}

// prepareCorpus returns the directory to index: -corpus as given, or a
// writable copy of -module taken from the module cache, with the module's
// dependencies downloaded so that go list can load it offline.
func prepareCorpus(ctx context.Context, o options, work string) (string, error) {
	if o.corpus != "" {
		return filepath.Abs(o.corpus)
	}
	modPath, _, ok := strings.Cut(o.module, "@")
	if !ok {
		return "", fmt.Errorf("-module %q: want MODULE@VERSION", o.module)
	}
	logf("fetching %s", o.module)
	// Outside any module, so the download cannot touch a go.mod.
	out, err := goOutput(ctx, work, []string{"GOWORK=off", "GOFLAGS="}, "mod", "download", "-json", o.module)
	if err != nil {
		return "", err
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return "", fmt.Errorf("reading go mod download output: %w", err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", o.module, m.Error)
	}
	dst := filepath.Join(work, "corpus", path.Base(modPath))
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	logf("copying %s to %s", m.Dir, dst)
	if err := copyTree(m.Dir, dst); err != nil {
		return "", fmt.Errorf("copying the corpus: %w", err)
	}
	logf("downloading the corpus's dependencies")
	if _, err := goOutput(ctx, dst, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, "mod", "download"); err != nil {
		return "", err
	}
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

// goOutput runs the go command in dir with extra environment variables
// and returns its standard output.
func goOutput(ctx context.Context, dir string, env []string, args ...string) (string, error) {
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
