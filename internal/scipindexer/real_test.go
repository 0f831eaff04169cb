package scipindexer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// realIndexers puts the indexers pinned by e2e/lsp/package-lock.json
// (npm ci --prefix e2e/lsp, which .ci/lsp.sh runs) first on PATH. Without
// them the test is skipped loudly, except in CI (CI=true) where their
// absence is a failure.
func realIndexers(t *testing.T, need ...string) {
	t.Helper()
	bin := lsptest.NodeBin(t, "the SCIP indexers", need...)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// listTree lists every file under root with its size and content, to
// check that an indexer run wrote nothing there.
func listTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/\n", rel)
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %x\n", rel, len(data), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRealIndexers discovers small projects of each kind and indexes them
// with the real scip-typescript and scip-python: each run hands back an
// index naming the project's symbols, and writes nothing into the
// repository (no inferred tsconfig.json, no index.scip).
func TestRealIndexers(t *testing.T) {
	realIndexers(t, "scip-typescript", "scip-python")
	root := writeTree(t, `
-- ts/tsconfig.json --
{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs"}, "include": ["src"]}
-- ts/src/greet.ts --
export function greetInTypeScript(name: string): string {
  return "héllo " + name
}
-- ts/src/main.ts --
import { greetInTypeScript } from "./greet"
console.log(greetInTypeScript("world"))
-- js/package.json --
{"name": "plain-js", "version": "1.2.3"}
-- js/util.js --
export function shoutInJavaScript(text) { return text.toUpperCase() }
-- js/index.js --
import { shoutInJavaScript } from "./util.js"
shoutInJavaScript("x")
-- jsc/jsconfig.json --
{"compilerOptions": {"checkJs": true}, "exclude": ["skipped"]}
-- jsc/lib.js --
export function fromJsconfig() { return 1 }
-- jsc/skipped/never.js --
export function neverIndexed() { return 2 }
-- py/pyproject.toml --
[project]
name = "pyfixture"
version = "0.1.0"
-- py/pyfixture/__init__.py --
-- py/pyfixture/util.py --
def shout_in_python(text: str) -> str:
    return text.upper()
-- py/pyfixture/app.py --
from pyfixture.util import shout_in_python

print(shout_in_python("x"))
`)
	before := listTree(t, root)
	ps, err := scipindexer.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"js": "shoutInJavaScript", "jsc": "fromJsconfig", "py": "shout_in_python", "ts": "greetInTypeScript"}
	if len(ps) != len(want) {
		t.Fatalf("projects:\n%s", summary(ps))
	}
	r := scipindexer.NewRunner(scipindexer.Config{})
	for _, p := range ps {
		t.Run(p.Dir, func(t *testing.T) {
			out, err := r.Index(context.Background(), root, p)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Remove()
			data, err := os.ReadFile(out.Path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte("neverIndexed")) {
				t.Errorf("%s: the jsconfig.json's exclude was not kept", p.Dir)
			}
			if int64(len(data)) != out.Size || !bytes.Contains(data, []byte(want[p.Dir])) {
				t.Errorf("%s: index of %d bytes (size %d) does not name %s; log:\n%s", out.Tool, len(data), out.Size, want[p.Dir], out.Log)
			}
			t.Logf("%s %s: %d bytes in %s; log: %s", out.Tool, p.Dir, out.Size, out.Elapsed, out.Log)
		})
	}
	if after := listTree(t, root); after != before {
		t.Errorf("the indexers changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// A project whose configuration includes no file is EMPTY, not a failure;
// one whose configuration cannot be read fails though scip-typescript
// says the same "no files got indexed" after the compiler's error.
func TestRealIndexerEmpty(t *testing.T) {
	realIndexers(t, "scip-typescript")
	root := writeTree(t, `
-- empty/tsconfig.json --
{"compilerOptions": {"strict": true}, "include": ["*.config.*"]}
-- broken/tsconfig.json --
{"extends": "./missing.base.json", "include": ["src"]}
-- broken/src/a.ts --
export const a = 1
`)
	r := scipindexer.NewRunner(scipindexer.Config{})
	for dir, want := range map[string]scipindexer.Reason{"empty": scipindexer.Empty, "broken": scipindexer.Crashed} {
		_, err := r.Index(context.Background(), root, scipindexer.Project{Language: scipindexer.TypeScript, Dir: dir, Config: dir + "/tsconfig.json"})
		var ie *scipindexer.Error
		if !errors.As(err, &ie) || ie.Reason != want {
			t.Errorf("%s: %v, want %s", dir, err, want)
		}
	}
}
