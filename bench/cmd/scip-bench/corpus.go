package main

import (
	"archive/tar"
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

	"github.com/BurntSushi/toml"
)

// toolVersions are the versions of the pinned Node programs in bin's
// node_modules.
func toolVersions(bin string) map[string]string {
	out := map[string]string{}
	for _, pkg := range []string{"@sourcegraph/scip-typescript", "@sourcegraph/scip-python", "typescript-language-server", "pyright", "typescript"} {
		data, err := os.ReadFile(filepath.Join(bin, "..", filepath.FromSlash(pkg), "package.json"))
		if err != nil {
			continue
		}
		if _, rest, ok := strings.Cut(string(data), `"version"`); ok {
			rest = strings.TrimLeft(rest, " \t:")
			if v, _, ok := strings.Cut(strings.TrimPrefix(rest, `"`), `"`); ok {
				out[pkg] = v
			}
		}
	}
	return out
}

// wholeProject writes the tree of the checkout at dir (its commit, as git
// archive gives it) to dst, with a pyrightconfig.json that has pyright
// read every file of it on every platform: the settings of the
// project's [tool.pyright] but its include, and pythonPlatform "All".
// Sextant indexes the whole checkout, tests and examples, and
// scip-python reads code past `assert sys.platform == "win32"`; a pyright
// that reads less (click's own configuration includes src and
// tests/typing alone) answers about another program. A pyrightconfig.json
// takes precedence over pyproject.toml for pyright and scip-python both.
func wholeProject(ctx context.Context, dir, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "archive", "--format=tar", "HEAD")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	terr := untar(out, dst)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive in %s: %v", dir, err)
	}
	if terr != nil {
		return terr
	}
	var cfg struct {
		Tool struct {
			Pyright map[string]any `toml:"pyright"`
		} `toml:"tool"`
	}
	if _, err := toml.DecodeFile(filepath.Join(dst, "pyproject.toml"), &cfg); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	settings := map[string]any{}
	for k, v := range cfg.Tool.Pyright {
		settings[k] = v
	}
	delete(settings, "include")
	settings["pythonPlatform"] = "All"
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, "pyrightconfig.json"), append(b, '\n'), 0o644)
}

// untar writes the directories and regular files of a tar stream under
// dst; what else it holds (symbolic links) is left out.
func untar(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(path.Clean(h.Name))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive entry %q leaves the tree", h.Name)
		}
		p := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
