package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The language servers the bridge is tested against: gopls as .ci/run
// installs it; pyright and typescript-language-server pinned by
// e2e/lsp/package-lock.json (npm ci --prefix e2e/lsp, which .ci/lsp.sh
// runs).
const pyrightVersion = "1.1.407"

// lspPath returns a PATH holding gopls and the servers named. Without
// them the test is skipped loudly, except in CI (CI=true) where their
// absence is a failure.
func lspPath(t *testing.T, need ...string) string {
	t.Helper()
	dirs := []string{filepath.Join(moduleRoot, "e2e", "lsp", "node_modules", ".bin")}
	if gopls := goplsBinary(t); gopls != "" {
		dirs = append(dirs, filepath.Dir(gopls))
	}
	path := strings.Join(append(dirs, os.Getenv("PATH")), string(os.PathListSeparator))
	for _, n := range need {
		found := false
		for _, d := range filepath.SplitList(path) {
			if fi, err := os.Stat(filepath.Join(d, n)); err == nil && !fi.IsDir() {
				found = true
				break
			}
		}
		if found {
			continue
		}
		msg := fmt.Sprintf("%s is not installed (npm ci --prefix e2e/lsp installs it, pyright %s): the LSP bridge was NOT tested against it", n, pyrightVersion)
		if inCI() {
			t.Fatal(msg)
		}
		t.Skip("SKIPPED LOUDLY: " + msg)
	}
	return path
}

// The fixture projects: a Go module and a Python package, each with a
// type error and non-ASCII text before the positions asked about, so
// that a column passed through unconverted lands elsewhere.
const lspGoMain = `package main

import "fmt"

// Greet says hello to name.
func Greet(name string) string {
	return "héllo " + name
}

func main() {
	s := "é😀"; fmt.Println(Greet(s))
	var n int = Greet("x")
	_ = n
}
`

const lspPyUtil = `def shout(text: str) -> str:
    return text.upper()
`

const lspPyApp = `from util import shout


def greet(name: str) -> str:
    """Say hello."""
    return "héllo " + name


class Greeter:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def run(self, who: str) -> str:
        return self.prefix + greet(who)


x: int = greet("é😀"); y = shout("é😀")
`

const lspTSGreet = `export function greet(name: string): string {
  return "héllo " + name;
}
`

const lspTSApp = `import { greet } from "./greet";

const s = "é😀"; const t: number = greet(s);
console.log(greet("x"), t);
`

func lspFixture(t *testing.T) string {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module example.com/fx\n\ngo 1.22\n",
		"main.go": lspGoMain,
		"util.py": lspPyUtil,
		"app.py":  lspPyApp,
		// pyright's own settings: the workspace is this directory alone.
		"pyrightconfig.json": `{"include": ["."]}`,
		"tsconfig.json":      `{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs"}, "include": ["*.ts"]}`,
		"greet.ts":           lspTSGreet,
		"app.ts":             lspTSApp,
	} {
		writeFile(t, filepath.Join(dir, name), text)
	}
	return dir
}

// lspServe starts `sextant serve --tools lsp` on root with path as PATH;
// it returns the session and the server process.
func lspServe(t *testing.T, path, root string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--tools", "lsp", "--db", filepath.Join(t.TempDir(), "x.db"), root)
	// The fixtures' sextant.toml names the fake server: trust them.
	cmd.Env = append(os.Environ(), "PATH="+path, "SEXTANT_TRUST_REPO_CONFIG=1")
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-e2e-lsp", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

type lspLoc struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

func (l lspLoc) String() string { return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Column) }

type lspAnswer struct {
	Server      string   `json:"server"`
	Pid         int      `json:"pid"`
	Encoding    string   `json:"position_encoding"`
	Notices     []string `json:"notices"`
	Unsupported bool     `json:"unsupported"`
	Contents    string   `json:"contents"`
	Complete    bool     `json:"complete"`
	Pending     []string `json:"pending"`
	Results     []struct {
		lspLoc
		Name     string `json:"name"`
		Kind     string `json:"kind"`
		Depth    int    `json:"depth"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
	} `json:"results"`
}

func (a lspAnswer) locs() []string {
	var out []string
	for _, r := range a.Results {
		out = append(out, r.lspLoc.String())
	}
	return out
}

// TestLSPBridge asks gopls, pyright and typescript-language-server,
// through the bridge, the five
// questions of the issue on the fixture and checks the answers at exact
// positions.
func TestLSPBridge(t *testing.T) {
	path := lspPath(t, "gopls", "pyright-langserver", "typescript-language-server")
	root := lspFixture(t)
	cs, _ := lspServe(t, path, root)
	cases := []struct {
		lang      string
		file      string
		hoverAt   [2]int
		hover     string
		defAt     [2]int
		def       string
		refsAt    [2]int
		refs      []string
		symbols   []string // "depth kind name"
		diag      string   // path:line:column of the one error
		diagWords string
	}{
		{
			lang: "go", file: "main.go",
			hoverAt: [2]int{11, 25}, hover: "func Greet(name string) string",
			defAt: [2]int{11, 25}, def: "main.go:6:6",
			refsAt: [2]int{6, 6}, refs: []string{"main.go:11:25", "main.go:12:14"},
			symbols: []string{"0 function Greet", "0 function main"},
			diag:    "main.go:12:14", diagWords: "cannot use",
		},
		{
			lang: "python", file: "app.py",
			hoverAt: [2]int{14, 30}, hover: "def greet(name: str) -> str",
			defAt: [2]int{17, 27}, def: "util.py:1:5",
			refsAt: [2]int{4, 5}, refs: []string{"app.py:14:30", "app.py:17:10"},
			symbols: []string{"0 function greet", "0 class Greeter", "1 method __init__", "1 method run"},
			diag:    "app.py:17:10", diagWords: "not assignable",
		},
		{
			lang: "typescript", file: "app.ts",
			hoverAt: [2]int{3, 35}, hover: "(alias) greet(name: string): string",
			defAt: [2]int{3, 35}, def: "greet.ts:1:17",
			// tsserver lists the declaration whatever includeDeclaration says.
			refsAt: [2]int{3, 35}, refs: []string{"app.ts:1:10", "app.ts:3:35", "app.ts:4:13", "greet.ts:1:17"},
			symbols: []string{"0 constant s", "0 constant t"},
			diag:    "app.ts:3:23", diagWords: "not assignable to type 'number'",
		},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			at := func(p [2]int) map[string]any { return map[string]any{"file": c.file, "line": p[0], "column": p[1]} }
			// Diagnostics first: waiting for them lets the server load the
			// project, which some (typescript) answer other questions from.
			diags, a := callOK[lspAnswer](t, cs, "lsp_diagnostics", map[string]any{"file": c.file, "wait": 120})
			if !diags.Complete {
				t.Errorf("diagnostics incomplete after 120 s: %v", diags.Pending)
			}
			var errs []string
			for _, d := range diags.Results {
				if d.Severity == "error" {
					errs = append(errs, d.lspLoc.String()+" "+d.Message)
				}
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], c.diag+" ") || !strings.Contains(errs[0], c.diagWords) {
				t.Errorf("diagnostics: %v, want one error at %s (%s)\n%s", errs, c.diag, c.diagWords, a.text)
			}
			hover, a := callOK[lspAnswer](t, cs, "lsp_hover", at(c.hoverAt))
			if !strings.Contains(hover.Contents, c.hover) || !strings.Contains(a.text, c.hover) {
				t.Errorf("hover: %q, want %q", a.text, c.hover)
			}
			t.Logf("%s speaks %s", hover.Server, hover.Encoding)
			def, a := callOK[lspAnswer](t, cs, "lsp_definition", at(c.defAt))
			if got := def.locs(); len(got) != 1 || got[0] != c.def || !strings.Contains(a.text, c.def) {
				t.Errorf("definition: %v, want %s\n%s", got, c.def, a.text)
			}
			refs, a := callOK[lspAnswer](t, cs, "lsp_references", at(c.refsAt))
			if got := refs.locs(); strings.Join(got, " ") != strings.Join(c.refs, " ") {
				t.Errorf("references: %v, want %v\n%s", got, c.refs, a.text)
			}
			syms, a := callOK[lspAnswer](t, cs, "lsp_document_symbols", map[string]any{"file": c.file})
			var got []string
			for _, s := range syms.Results {
				got = append(got, fmt.Sprintf("%d %s %s", s.Depth, s.Kind, s.Name))
			}
			for _, want := range c.symbols {
				if !strings.Contains(strings.Join(got, "\n"), want) {
					t.Errorf("document symbols lack %q: %v", want, got)
				}
			}
			if !strings.Contains(a.text, "\n  method") && c.lang == "python" {
				t.Errorf("outline text not indented:\n%s", a.text)
			}
		})
	}
}

// procAlive reports whether pid is a live process: it exists and is not
// a zombie.
func procAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(data), ')')
	return i < 0 || i+2 >= len(data) || data[i+2] != 'Z'
}

// inGroups lists the live processes whose process group is one of pgids.
func inGroups(pgids []int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 {
			continue
		}
		for _, g := range pgids {
			if f[2] == fmt.Sprint(g) && f[0] != "Z" {
				out = append(out, pid)
			}
		}
	}
	return out
}

// TestLSPNoOrphans SIGKILLs sextant while it runs two language servers:
// the kernel's parent-death signal ends both, the reaper what they
// started, and none is left after 5 s.
func TestLSPNoOrphans(t *testing.T) {
	path := lspPath(t, "gopls", "pyright-langserver")
	root := lspFixture(t)
	cs, cmd := lspServe(t, path, root)
	goAns, _ := callOK[lspAnswer](t, cs, "lsp_hover", map[string]any{"file": "main.go", "line": 6, "column": 6})
	pyAns, _ := callOK[lspAnswer](t, cs, "lsp_hover", map[string]any{"file": "app.py", "line": 4, "column": 5})
	servers := []int{goAns.Pid, pyAns.Pid}
	for _, pid := range servers {
		if pid == 0 || !procAlive(pid) {
			t.Fatalf("server pids %v: not running before the kill", servers)
		}
	}
	// Every process of the servers' process groups: the servers and
	// whatever they started.
	pids := inGroups(groupsOf(servers))
	t.Logf("servers %v; their process groups hold %v", servers, pids)
	if len(pids) < len(servers) {
		t.Fatalf("the servers' groups hold %v, fewer than the servers %v", pids, servers)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitNoneAlive(t, pids, "sextant was SIGKILLed")
}

// TestLSPServerKilled SIGKILLs a language server: once in the middle of a
// call (the fake server, held on a request it never answers), which fails
// with LSP_UNAVAILABLE, and once gopls between calls; each next call
// succeeds on a restarted server and says so.
func TestLSPServerKilled(t *testing.T) {
	path := lspPath(t, "gopls")
	root := lspFixture(t)
	fake := goBuild(t, moduleRoot, "./bench/cmd/lspfake")
	writeFile(t, filepath.Join(root, "sextant.toml"), fmt.Sprintf(`[lsp]
request_timeout = "2m"

[[lsp.server]]
name = "fake"
command = %q
globs = ["*.txt"]
language_id = "plaintext"
`, fake))
	writeFile(t, filepath.Join(root, "hang.txt"), "HANG\nword\n")
	cs, _ := lspServe(t, path, root)

	first, _ := callOK[lspAnswer](t, cs, "lsp_hover", map[string]any{"file": "hang.txt", "line": 2, "column": 1})
	var wg sync.WaitGroup
	var mid answer
	wg.Add(1)
	go func() {
		defer wg.Done()
		mid = call(t, cs, "lsp_hover", map[string]any{"file": "hang.txt", "line": 1, "column": 1})
	}()
	// The fake marks a request it will never answer with a file beside
	// the document: then the call is in flight.
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(root, "hang.txt.hanging")); err == nil {
			break
		}
		if i > 3000 {
			t.Fatal("the fake server never received the hanging request")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := killPid(first.Pid); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	e := checkErr(t, "lsp_hover", nil, mid, "LSP_UNAVAILABLE")
	if !strings.Contains(e.Message, "killed") {
		t.Errorf("mid-call death: %q, want the signal named", e.Message)
	}
	after, a := callOK[lspAnswer](t, cs, "lsp_hover", map[string]any{"file": "hang.txt", "line": 2, "column": 1})
	if after.Pid == first.Pid || !strings.Contains(a.text, "restarted") {
		t.Errorf("after the kill: pid %d (was %d), answer %q; want a restart said", after.Pid, first.Pid, a.text)
	}

	g1, _ := callOK[lspAnswer](t, cs, "lsp_hover", map[string]any{"file": "main.go", "line": 6, "column": 6})
	if err := killPid(g1.Pid); err != nil {
		t.Fatal(err)
	}
	for procAlive(g1.Pid) {
		time.Sleep(20 * time.Millisecond)
	}
	g2, a := callOK[lspAnswer](t, cs, "lsp_hover", map[string]any{"file": "main.go", "line": 6, "column": 6})
	if g2.Pid == g1.Pid || !strings.Contains(a.text, "gopls was restarted") || !strings.Contains(g2.Contents, "func Greet") {
		t.Errorf("gopls after SIGKILL: pid %d (was %d), answer %q", g2.Pid, g1.Pid, a.text)
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(a.structured, &raw)
	if _, ok := raw["notices"]; !ok {
		t.Errorf("structured answer has no notices: %s", a.structured)
	}
}
