package cli

import (
	"github.com/sextant-dev/sextant/internal/lsptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scipIndexers puts the SCIP indexers pinned by e2e/lsp/package.json (npm
// ci --prefix e2e/lsp installs them) first on PATH. Without them the test
// is skipped loudly, except in CI (CI=true), where their absence is a
// failure.
func scipIndexers(t *testing.T) {
	t.Helper()
	bin := lsptest.NodeBin(t, "the command line on other languages", "scip-typescript", "scip-python")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// A tool run in a directory of a TypeScript or Python project, with no
// go.mod, indexes it on first use, as it does a Go module.
func TestToolInProjectWithoutGo(t *testing.T) {
	scipIndexers(t)
	for _, c := range []struct {
		name  string
		files map[string]string
		find  string
	}{
		{"typescript", map[string]string{"package.json": `{"name": "lib"}`, "tsconfig.json": `{}`, "lib.ts": "export function double(n: number): number { return 2 * n; }\n"}, "double"},
		{"python", map[string]string{"pyproject.toml": "[project]\nname = \"lib\"\n", "lib/m.py": "def triple(n: int) -> int:\n    return 3 * n\n"}, "triple"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeNested(t, c.files)
			db := filepath.Join(t.TempDir(), "db")
			t.Chdir(dir)
			out, code := sextant(t, nil, "find_symbol", "--db", db, c.find)
			if code != 0 || !strings.Contains(out, c.find) {
				t.Errorf("find_symbol %s in a %s project: exit %d:\n%s", c.find, c.name, code, out)
			}
		})
	}
}
