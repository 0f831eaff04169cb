// Package doctor says what this machine has and lacks for each of
// Sextant's features, and the exact command that installs or fixes each
// missing piece: the go command, git and whether its version takes every
// switch that keeps a hostile repository from running anything, the
// language servers and SCIP indexers on PATH, the directories Sextant
// keeps its cache, go shim and database in (which it refuses when others
// may write to them), the database's health, and which platform guards
// hold. It changes nothing of Sextant's: no directory is created, the
// database is opened read-only, and each program is only asked its
// version (which may make that program's own cache, as gopls does).
//
// What the given roots need decides the verdict: a root with a go.mod
// needs go, a git work tree needs git, a TypeScript or Python project its
// SCIP indexer; a language server is never needed (the lsp_* tools are
// not served by default).
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sextant-dev/sextant/internal/filecache"
	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/scipindexer"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// Status is a check's outcome.
type Status string

const (
	OK      Status = "ok"      // present and usable
	Missing Status = "missing" // not installed (not on PATH)
	Refused Status = "refused" // present, but Sextant will not use it as it is (a directory others may write to)
	Broken  Status = "broken"  // present but unusable (too old, damaged, newer than this build)
	Note    Status = "note"    // usable, with something worth knowing
)

// Check is one piece of the machine.
type Check struct {
	Feature string `json:"feature"` // go, git, lsp, scip, cache, database, guard
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Version string `json:"version,omitempty"`
	Path    string `json:"path,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// Fix is the exact command that installs or fixes it.
	Fix string `json:"fix,omitempty"`
	// NeededBy lists the roots (or "sextant" for every use) that need
	// it; a check that is not OK or Note fails the report only then.
	NeededBy []string `json:"needed_by,omitempty"`
}

// Failing reports whether c makes the report fail: something needed
// that is not usable.
func (c Check) Failing() bool {
	return len(c.NeededBy) > 0 && c.Status != OK && c.Status != Note
}

// Report is what doctor found.
type Report struct {
	Version string  `json:"version"`
	OS      string  `json:"os"`
	Arch    string  `json:"arch"`
	Roots   []Root  `json:"roots"`
	Checks  []Check `json:"checks"`
	OK      bool    `json:"ok"` // every needed piece is there
}

// Root is one of the given directories and what it needs.
type Root struct {
	Dir   string   `json:"dir"`
	Needs []string `json:"needs"` // go, git, scip-typescript, scip-python
	Error string   `json:"error,omitempty"`
}

// Options are what Run examines.
type Options struct {
	Roots   []string // directories whose needs decide the verdict
	Version string   // this binary's version line
	// Database is the --db value or $SEXTANT_DB ("" for the default
	// file in the cache directory).
	Database string
	Getenv   func(string) string // default os.Getenv
}

// Run examines the machine for opts.Roots.
func Run(ctx context.Context, opts Options) Report {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	r := Report{Version: opts.Version, OS: runtime.GOOS, Arch: runtime.GOARCH}
	need := map[string][]string{} // what → roots needing it
	for _, dir := range opts.Roots {
		root := rootNeeds(dir, opts.Getenv)
		for _, n := range root.Needs {
			need[n] = append(need[n], root.Dir)
		}
		r.Roots = append(r.Roots, root)
	}
	r.Checks = append(r.Checks, checkGo(ctx, need["go"], r.Roots))
	r.Checks = append(r.Checks, checkGit(ctx, need["git"]))
	r.Checks = append(r.Checks, checkIndexers(ctx, need)...)
	r.Checks = append(r.Checks, checkServers(ctx)...)
	r.Checks = append(r.Checks, checkDirs(opts.Getenv)...)
	r.Checks = append(r.Checks, checkDatabase(ctx, opts))
	r.Checks = append(r.Checks, guards(r.Checks)...)
	r.OK = true
	for _, c := range r.Checks {
		if c.Failing() {
			r.OK = false
		}
	}
	for _, root := range r.Roots {
		if root.Error != "" {
			r.OK = false
		}
	}
	return r
}

// rootNeeds finds what dir needs: go for a go.mod or go.work under it,
// git for a git work tree, each SCIP indexer for its projects.
func rootNeeds(dir string, getenv func(string) string) Root {
	root := Root{Dir: dir}
	if abs, err := filepath.Abs(dir); err == nil {
		root.Dir = abs
	}
	fi, err := os.Stat(root.Dir)
	if err != nil || !fi.IsDir() {
		root.Error = "not a directory"
		if err != nil {
			root.Error = err.Error()
		}
		return root
	}
	if hasGoModule(root.Dir) {
		root.Needs = append(root.Needs, "go")
	}
	if inGitWorkTree(root.Dir) {
		root.Needs = append(root.Needs, "git")
	}
	if getenv("SEXTANT_SCIP") != "off" {
		projects, _ := scipindexer.Discover(root.Dir)
		seen := map[scipindexer.Language]bool{}
		for _, p := range projects {
			if !seen[p.Language] {
				seen[p.Language] = true
				root.Needs = append(root.Needs, indexerCommand(p.Language))
			}
		}
	}
	return root
}

// maxWalk bounds the entries looked at for a go.mod under a root.
const maxWalk = 100000

// hasGoModule reports whether dir holds a go.mod or go.work, at its top
// or below (outside the directories the indexers skip).
func hasGoModule(dir string) bool {
	found, n := false, 0
	stop := errors.New("stop")
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxWalk {
			return stop
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor" || d.Name() == "testdata" || scipindexer.SkipDir(d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "go.mod" || d.Name() == "go.work" {
			found = true
			return stop
		}
		return nil
	})
	return found
}

// inGitWorkTree reports whether dir or a parent holds .git.
func inGitWorkTree(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

func indexerCommand(l scipindexer.Language) string {
	if l == scipindexer.Python {
		return scipindexer.PythonCommand
	}
	return scipindexer.TypeScriptCommand
}

// checkIndexers is one check per SCIP indexer: found as the indexer
// would be run (scipindexer.Runner.Available), with its version.
func checkIndexers(ctx context.Context, need map[string][]string) []Check {
	runner := scipindexer.NewRunner(scipindexer.Config{})
	var out []Check
	for _, l := range []scipindexer.Language{scipindexer.TypeScript, scipindexer.Python} {
		name := indexerCommand(l)
		c := Check{Feature: "scip", Name: name, NeededBy: need[name]}
		install := scipindexer.TypeScriptInstall
		what, are := "TypeScript and JavaScript", " are"
		if l == scipindexer.Python {
			install, what, are = scipindexer.PythonInstall, "Python", " is"
		}
		err := runner.Available(l)
		var ie *scipindexer.Error
		switch {
		case err == nil:
			c.Status = OK
			c.Path, _ = lookPath(name)
			c.Version = programVersion(ctx, c.Path, "--version")
			c.Detail = "indexes " + what
		case errors.As(err, &ie) && ie.Reason == scipindexer.Disabled:
			c.Status, c.Detail = Note, ie.Message
		default:
			c.Status, c.Fix = Missing, install
			c.Detail = what + are + " not indexed without it"
		}
		out = append(out, c)
	}
	return out
}

// checkServers is one check per built-in language server (the lsp_*
// tools), never needed.
func checkServers(ctx context.Context) []Check {
	var out []Check
	for _, s := range lsp.Defaults() {
		c := Check{Feature: "lsp", Name: s.Command, Detail: "lsp_* tools for " + strings.Join(s.Globs, " ")}
		path, err := lookPath(s.Command)
		if err != nil {
			c.Status, c.Fix = Missing, serverInstall(s.Command)
		} else {
			c.Status, c.Path = OK, path
			c.Version = programVersion(ctx, path, serverVersionArg(s.Command))
		}
		out = append(out, c)
	}
	return out
}

// serverVersionArg is how a language server prints its version; ""
// for one that has no such flag (its package.json says it).
func serverVersionArg(command string) string {
	switch command {
	case "gopls":
		return "version"
	case "pyright-langserver":
		return ""
	}
	return "--version"
}

// serverInstall is the command that installs a built-in language server.
func serverInstall(command string) string {
	switch command {
	case "gopls":
		return "go install golang.org/x/tools/gopls@latest"
	case "pyright-langserver":
		return "npm install -g pyright"
	case "typescript-language-server":
		return "npm install -g typescript-language-server typescript"
	case "clangd":
		return packageInstall(map[string]string{"apt-get": "clangd", "dnf": "clang-tools-extra", "brew": "llvm", "winget": "LLVM.LLVM"})
	case "rust-analyzer":
		return "rustup component add rust-analyzer"
	}
	return ""
}

// checkDatabase reads the database read-only: its schema against this
// build's, and whether SQLite finds it sound.
func checkDatabase(ctx context.Context, opts Options) Check {
	c := Check{Feature: "database", Name: "database", NeededBy: []string{"sextant"}}
	name := opts.Database
	if name == "" {
		name = opts.Getenv("SEXTANT_DB")
	}
	if strings.HasPrefix(name, "postgres://") || strings.HasPrefix(name, "postgresql://") {
		c.Status, c.Detail = Note, "a shared PostgreSQL graph; not checked here"
		return c
	}
	if name == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			c.Status, c.Detail = Broken, "no user cache directory: "+err.Error()
			c.Fix = "set SEXTANT_DB to a file, e.g. export SEXTANT_DB=$HOME/.sextant.db"
			return c
		}
		name = filepath.Join(cache, "sextant", "sextant.db")
	}
	c.Path = name
	fi, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail = OK, "not created yet; the first index creates it"
		return c
	}
	if err != nil {
		c.Status, c.Detail = Broken, err.Error()
		return c
	}
	h, err := sqlite.Inspect(ctx, name)
	switch {
	case err != nil:
		c.Status, c.Detail = Broken, err.Error()
		c.Fix = "sextant index DIR (moves a damaged file aside and indexes into a new one)"
	case h.SchemaVersion > sqlite.SchemaVersion:
		c.Status = Broken
		c.Detail = fmt.Sprintf("schema %d, newer than this build's %d: a newer sextant wrote it", h.SchemaVersion, sqlite.SchemaVersion)
		c.Fix = "install the newer sextant (npm install -g sextant-mcp@latest, or go install github.com/sextant-dev/sextant/cmd/sextant@latest)"
	default:
		c.Status = OK
		c.Version = fmt.Sprintf("schema %d", h.SchemaVersion)
		c.Detail = fmt.Sprintf("%s, %d repositories, SQLite %s", humanBytes(fi.Size()), h.Repositories, h.SQLite)
		if h.SchemaVersion < sqlite.SchemaVersion {
			c.Detail += fmt.Sprintf("; upgraded to schema %d when next opened for writing", sqlite.SchemaVersion)
		}
	}
	return c
}

// checkPrivate is filecache.CheckPrivate, the rule every directory
// Sextant trusts is held to.
var checkPrivate = filecache.CheckPrivate

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
