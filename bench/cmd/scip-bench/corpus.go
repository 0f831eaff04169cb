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
	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// pinned is a corpus: a public repository at one commit, and the
// directory in it that Sextant is given as its root.
type pinned struct {
	Language string `json:"language"`
	Repo     string `json:"repo"`
	Commit   string `json:"commit"`
	Tag      string `json:"tag"`
	// Root is the directory of the checkout indexed, "." for all of it.
	Root string `json:"root"`
	// Ext and MinFiles: the source files that must lie under Root.
	Ext      string `json:"ext"`
	MinFiles int    `json:"min_files"`
}

var (
	// tsCorpus is zod's own package: the library and its tests, one
	// tsconfig.json (which extends the repository's .configs, outside the
	// root: read by the indexer and the server, not by Sextant).
	tsCorpus = pinned{Language: "typescript", Repo: "github.com/colinhacks/zod", Commit: "1fb56a5c18c27102dbc92260a4007c7732a0ccca", Tag: "v4.4.3",
		Root: "packages/zod", Ext: ".ts", MinFiles: 200}
	// pyCorpus is click whole: the package, its tests and its examples
	// (each example a project of its own, indexed by its own run).
	pyCorpus = pinned{Language: "python", Repo: "github.com/pallets/click", Commit: "8b19813f2bfca99f1018a587a8cf54fc959f2e5d", Tag: "8.5.0",
		Root: ".", Ext: ".py", MinFiles: 50}
)

// check verifies that dir is a git checkout of the corpus at its commit
// with no tracked file changed, and returns the root to index (absolute,
// symlinks resolved) and how many source files lie under it.
func (c pinned) check(ctx context.Context, dir string) (string, int, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", 0, err
	}
	head, err := exec.CommandContext(ctx, "git", "-C", abs, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", 0, fmt.Errorf("%s is not a git checkout of %s: %v", abs, c.Repo, err)
	}
	if got := strings.TrimSpace(string(head)); got != c.Commit {
		return "", 0, fmt.Errorf("%s is at %s, want %s (%s %s): git -C %s checkout %s", abs, got, c.Commit, c.Repo, c.Tag, abs, c.Commit)
	}
	st, err := exec.CommandContext(ctx, "git", "-C", abs, "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return "", 0, fmt.Errorf("git status in %s: %v", abs, err)
	}
	if s := strings.TrimSpace(string(st)); s != "" {
		return "", 0, fmt.Errorf("%s has changed files:\n%s", abs, s)
	}
	root := filepath.Join(abs, filepath.FromSlash(c.Root))
	n := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && scipindexer.SkipDir(d.Name()) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, c.Ext) {
			n++
		}
		return nil
	})
	if err != nil {
		return "", 0, err
	}
	if n < c.MinFiles {
		return "", 0, fmt.Errorf("%s holds %d %s files, want at least %d", root, n, c.Ext, c.MinFiles)
	}
	return root, n, nil
}

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
