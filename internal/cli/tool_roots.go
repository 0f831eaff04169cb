package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/query"
)

// defaultToolRoots returns the roots of a tool subcommand run without
// --root, from the working directory wd: the root of the indexed
// repository wd is in (its own, or the one of an enclosing directory);
// else wd when it holds a go.mod or go.work, or a TypeScript, JavaScript
// or Python project's file (projectFiles), indexed on first use; else
// none, and the tool answers from the database alone and reads no file.
// A person runs tools from anywhere, not only from a module's root: a
// directory that is no module is no reason to fail.
func defaultToolRoots(ctx context.Context, st graph.Store, wd string) []string {
	dir, err := query.CanonicalDir(wd)
	if err != nil {
		return []string{wd} // the service reports why it is unusable
	}
	if repos, err := graph.Repositories(ctx, st); err == nil {
		best := ""
		for _, rp := range repos {
			in := rp.Root == dir || strings.HasPrefix(dir, strings.TrimSuffix(rp.Root, string(filepath.Separator))+string(filepath.Separator))
			if filepath.IsAbs(rp.Root) && in && len(rp.Root) > len(best) {
				best = rp.Root
			}
		}
		if best != "" {
			return []string{best}
		}
	}
	for _, name := range projectFiles {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return []string{dir}
		}
	}
	return nil
}

// projectFiles are the files that make a directory a root to index: a Go
// module or workspace, and the projects the SCIP indexers read (see
// scipindexer.Discover).
var projectFiles = []string{"go.mod", "go.work", "tsconfig.json", "jsconfig.json", "package.json", "pyproject.toml", "setup.py", "setup.cfg"}
