package harness

import (
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// Pinned is a corpus the module proxy does not serve: a public
// repository at one commit, and the directory in it that Sextant is
// given as its root. The benchmarks take a git checkout of it.
type Pinned struct {
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
	// Zod is zod's own package: the library and its tests, one
	// tsconfig.json (which extends the repository's .configs, outside the
	// root: read by the indexer and the server, not by Sextant).
	Zod = Pinned{Language: "typescript", Repo: "github.com/colinhacks/zod", Commit: "1fb56a5c18c27102dbc92260a4007c7732a0ccca", Tag: "v4.4.3",
		Root: "packages/zod", Ext: ".ts", MinFiles: 200}
	// Click is click whole: the package, its tests and its examples
	// (each example a project of its own, indexed by its own run).
	Click = Pinned{Language: "python", Repo: "github.com/pallets/click", Commit: "8b19813f2bfca99f1018a587a8cf54fc959f2e5d", Tag: "8.5.0",
		Root: ".", Ext: ".py", MinFiles: 50}
	// Hono is hono whole: the library (its middleware and helpers mostly
	// functions held by consts), its tests, benchmarks and runtime tests,
	// fourteen tsconfig.json projects.
	Hono = Pinned{Language: "typescript", Repo: "github.com/honojs/hono", Commit: "0293343dbf8f0bca52b210a98bcef31cc61395ee", Tag: "v4.13.3",
		Root: ".", Ext: ".ts", MinFiles: 300}
	// Requests is requests whole: the package, its tests and docs.
	Requests = Pinned{Language: "python", Repo: "github.com/psf/requests", Commit: "6e83187b8feb273ed4c6cdab5efd8d54901dfab3", Tag: "v2.34.2",
		Root: ".", Ext: ".py", MinFiles: 30}
)

// Name is the corpus's name: its repository's last element.
func (c Pinned) Name() string { return path.Base(c.Repo) }

// Check verifies that dir is a git checkout of the corpus at its commit
// with no tracked file changed, and returns the root to index (absolute,
// symlinks resolved) and how many source files lie under it.
func (c Pinned) Check(ctx context.Context, dir string) (string, int, error) {
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

// AnswerMatches reports whether a search result (package path and
// qualified name) is a question's answer: the answer qn in package pkg,
// or one of also, each a qualified name in pkg or, written PKG#QN, one
// in another package (the same function in zod's classic and mini
// APIs).
func AnswerMatches(pkg, qn string, also []string, hitPkg, hitQN string) bool {
	if hitPkg == pkg && (hitQN == qn || slices.Contains(also, hitQN)) {
		return true
	}
	return slices.Contains(also, hitPkg+"#"+hitQN)
}
