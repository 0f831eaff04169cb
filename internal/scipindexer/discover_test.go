package scipindexer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/scipindexer"
	"golang.org/x/tools/txtar"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// writeTree writes the txtar archive text into a fresh directory and
// returns its path, symlinks resolved.
func writeTree(t *testing.T, archive string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	txtartest.WriteDir(t, dir, txtar.Parse([]byte(archive)))
	return dir
}

// summary renders projects one per line, the way the tests expect them.
func summary(ps []scipindexer.Project) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s %s name=%s markers=%v", p.Dir, p.Language, p.Name, p.Markers)
		if p.Config != "" {
			fmt.Fprintf(&b, " config=%s", p.Config)
		}
		if len(p.Nested) > 0 {
			fmt.Fprintf(&b, " nested=%v", p.Nested)
		}
		if p.JavaScript {
			b.WriteString(" javascript-only")
		}
		b.WriteString("\n")
		for _, r := range p.Outside {
			fmt.Fprintf(&b, "  outside: %s\n", r)
		}
	}
	return b.String()
}

func TestDiscover(t *testing.T) {
	for _, tc := range []struct {
		name, archive, want string
	}{
		{
			name: "workspace",
			archive: `
-- package.json --
{"name": "ws", "private": true, "workspaces": ["packages/*"]}
-- packages/a/package.json --
{"name": "@ws/a"}
-- packages/a/index.js --
export const a = 1
-- packages/b/package.json --
{"name": "@ws/b", "description": "no sources: nothing to index"}
-- packages/c/tsconfig.json --
{
  // comments and trailing commas, as TypeScript accepts them
  "compilerOptions": {"strict": true,},
  "references": [{"path": "../a"},],
}
-- packages/c/src/c.ts --
export const c = 2
-- node_modules/dep/package.json --
{"name": "dep"}
-- node_modules/dep/index.js --
-- dist/bundle.js --
-- .git/config --
`,
			want: `packages/a typescript name=@ws/a markers=[packages/a/package.json] javascript-only
packages/c typescript name=c markers=[packages/c/tsconfig.json] config=packages/c/tsconfig.json
`,
		},
		{
			name: "root package with nested ones",
			archive: `
-- package.json --
{"name": "app"}
-- index.js --
-- lib/jsconfig.json --
{}
-- lib/x.js --
`,
			want: `. typescript name=app markers=[package.json] nested=[lib] javascript-only
lib typescript name=lib markers=[lib/jsconfig.json] config=lib/jsconfig.json javascript-only
`,
		},
		{
			name: "python",
			archive: `
-- py/pyproject.toml --
[project]
name = "my lib"
-- py/my_lib/__init__.py --
-- tools/setup.py --
-- tools/t.py --
-- py/sub/setup.cfg --
-- env/pyvenv.cfg --
-- env/lib/site.py --
-- env/setup.py --
-- __pycache__/setup.py --
`,
			want: `py python name=my-lib markers=[py/pyproject.toml] nested=[py/sub]
py/sub python name=sub markers=[py/sub/setup.cfg]
tools python name=tools markers=[tools/setup.py]
`,
		},
		{
			name: "python tree without a marker",
			archive: `
-- a/b.py --
-- c.py --
-- node_modules/x/setup.py --
`,
			want: `. python name=ROOT markers=[]
`,
		},
		{
			name: "nothing",
			archive: `
-- README.md --
-- node_modules/x/index.js --
-- node_modules/x/package.json --
`,
			want: ``,
		},
		{
			name: "configuration leading out",
			archive: `
-- tsconfig.json --
{"extends": "../outside/tsconfig.base.json", "include": ["src/**/*", "../shared/**/*.ts"]}
-- src/a.ts --
-- web/tsconfig.json --
{"extends": ["@tsconfig/node20/tsconfig.json", "./tsconfig.base"], "references": [{"path": "../../elsewhere"}, {"path": "../lib"}]}
-- web/tsconfig.base.json --
{"files": ["/etc/hosts.ts"]}
-- web/w.ts --
-- lib/tsconfig.json --
{"extends": "../web/../../up.json"}
-- lib/l.ts --
`,
			want: `. typescript name=ROOT markers=[tsconfig.json] config=tsconfig.json nested=[lib web]
  outside: tsconfig.json: extends "../outside/tsconfig.base.json" leads to outside the root
  outside: tsconfig.json: include "../shared/**/*.ts" leads to outside the root
lib typescript name=lib markers=[lib/tsconfig.json] config=lib/tsconfig.json
  outside: lib/tsconfig.json: extends "../web/../../up.json" leads to outside the root
web typescript name=web markers=[web/tsconfig.json] config=web/tsconfig.json
  outside: web/tsconfig.json: extends "@tsconfig/node20/tsconfig.json" leads to a package in node_modules
  outside: web/tsconfig.base.json: files "/etc/hosts.ts" leads to outside the root
  outside: web/tsconfig.json: references "../../elsewhere" leads to outside the root
  outside: lib/tsconfig.json: extends "../web/../../up.json" leads to outside the root
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && strings.Contains(tc.archive, "/etc/hosts.ts") {
				t.Skip("an absolute path with a drive letter on Windows")
			}
			root := writeTree(t, tc.archive)
			ps, err := scipindexer.Discover(root)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(tc.want, "name=ROOT", "name="+filepath.Base(root))
			if got := summary(ps); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestDiscoverDeterministic: the same tree gives the same projects in the
// same order, whatever order the directory lists them in.
func TestDiscoverDeterministic(t *testing.T) {
	root := writeTree(t, `
-- z/package.json --
{}
-- z/z.js --
-- a/pyproject.toml --
-- m/tsconfig.json --
{}
-- m/setup.py --
`)
	first, err := scipindexer.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		again, _ := scipindexer.Discover(root)
		if summary(again) != summary(first) {
			t.Fatalf("run %d:\n%s\nfirst:\n%s", i, summary(again), summary(first))
		}
	}
	want := "a python name=a markers=[a/pyproject.toml]\nm python name=m markers=[m/setup.py]\nm typescript name=m markers=[m/tsconfig.json] config=m/tsconfig.json\nz typescript name=z markers=[z/package.json] javascript-only\n"
	if got := summary(first); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestDiscoverSymlinksOut: a directory linked out of the root is not
// entered, and a marker linked out of it makes no project; the outside
// files are not read.
func TestDiscoverSymlinksOut(t *testing.T) {
	outside := writeTree(t, `
-- package.json --
{"name": "outside"}
-- index.js --
-- pyproject.toml --
-- mod.py --
-- tsconfig.json --
{}
`)
	root := writeTree(t, `
-- README.md --
`)
	for _, link := range []struct{ target, name string }{
		{outside, "linked"},
		{filepath.Join(outside, "tsconfig.json"), "tsconfig.json"},
		{filepath.Join(outside, "pyproject.toml"), "pyproject.toml"},
	} {
		if err := os.Symlink(link.target, filepath.Join(root, link.name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	ps, err := scipindexer.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 0 {
		t.Errorf("projects found through links out of the root:\n%s", summary(ps))
	}
}
