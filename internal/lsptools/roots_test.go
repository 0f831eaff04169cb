//go:build linux

package lsptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/lsptools"
	"github.com/sextant-dev/sextant/internal/query"
)

// lspRootsFixture lays base/repo, served by the fake language server, and
// base/repo-other, a sibling sharing its prefix whose files the fake
// would serve too if the bridge let them through. extraRefs, given repo
// and repo-other, says what goes to LSPFAKE_EXTRA_REFS. It returns the
// service (rooted at repo alone), repo and repo-other.
func lspRootsFixture(t *testing.T, extraRefs func(repo, other string) string) (*query.Service, string, string) {
	t.Helper()
	t.Setenv(lsp.TrustEnv, "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, other := filepath.Join(base, "repo"), filepath.Join(base, "repo-other")
	refs := ""
	if extraRefs != nil {
		refs = extraRefs(repo, other)
	}
	files := map[string]string{
		"repo/sextant.toml": fmt.Sprintf(`[lsp]
quiet = "100ms"

[[lsp.server]]
name = "fake"
command = %q
globs = ["*.txt"]
memory_mb = -1
env = { SEXTANT_LSPFAKE = "1", LSPFAKE_ENCODING = "utf-16", LSPFAKE_EXTRA_REFS = %q }
`, self, refs),
		"repo/main.txt":           "Alpha here\nfunc Alpha\n",
		"repo/emoji.txt":          "😀x inside\n",
		"repo/dir.txt/x":          "",
		"repo-other/main.txt":     "😀x sibling\n",
		"repo-other/sextant.toml": "[lsp]\nmax_servers = 1\n",
		"secret.txt":              "😀x parent\n",
	}
	for name, text := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if text == "" && strings.HasSuffix(name, "/x") {
			continue
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for target, name := range map[string]string{
		"main.txt":                        "in.txt",
		filepath.Join(other, "main.txt"):  "out.txt",
		"../repo-other/main.txt":          "rel-out.txt",
		"out.txt":                         "chain.txt",
		other:                             "outdir",
		"loop-b.txt":                      "loop-a.txt",
		"loop-a.txt":                      "loop-b.txt",
		"/dev/null":                       "devnull.txt",
		filepath.Join(base, "secret.txt"): "parent.txt",
	} {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(repo, "sock.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s, err := query.New(nil, []string{repo}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, repo, other
}

// TestLSPFileArgumentsStayInRoots gives every lsp tool that takes a file
// each hostile kind of path: only files inside the root are synced to a
// server; paths out of it (.., absolute, a sibling sharing the root's
// prefix, symlinks out directly, through a directory or a chain) are
// OUTSIDE_ROOTS, FIFOs, sockets and devices READ_ERROR without blocking.
func TestLSPFileArgumentsStayInRoots(t *testing.T) {
	s, repo, other := lspRootsFixture(t, nil)
	const (
		ok       = ""
		outside  = graph.CodeOutsideRoots
		readErr  = graph.CodeReadError
		invalidA = graph.CodeInvalidArgument
		notFound = graph.CodeFileNotFound
	)
	paths := []struct {
		path string
		want graph.Code
	}{
		{"main.txt", ok},
		{filepath.Join(repo, "main.txt"), ok},
		{"dir.txt/../main.txt", ok},
		{"in.txt", ok},
		{"..", outside},
		{"../secret.txt", outside},
		{"../repo-other/main.txt", outside},
		{filepath.Join(other, "main.txt"), outside},        // the sibling prefix: /repo vs /repo-other
		{repo + "-other/main.txt", outside},                // the same, spelled as a string prefix
		{filepath.Join(repo, "..", "secret.txt"), outside}, // absolute, leaving through ..
		{"/etc/passwd", outside},
		{"out.txt", outside},
		{"rel-out.txt", outside},
		{"chain.txt", outside},
		{"outdir/main.txt", outside},
		{"parent.txt", outside},
		{filepath.Join(repo, "out.txt"), outside},
		{"devnull.txt", outside}, // a device, and out of the root
		{"fifo.txt", readErr},
		{"sock.txt", readErr},
		{"loop-a.txt", readErr},
		{"dir.txt", invalidA},
		{"missing.txt", notFound},
		{"main.txt\x00", invalidA},
	}
	calls := []struct {
		tool string
		args func(p string) map[string]any
	}{
		{"lsp_hover", func(p string) map[string]any { return map[string]any{"file": p, "line": 1, "column": 1} }},
		{"lsp_definition", func(p string) map[string]any { return map[string]any{"file": p, "line": 1, "column": 1} }},
		{"lsp_references", func(p string) map[string]any { return map[string]any{"file": p, "line": 1, "column": 1} }},
		{"lsp_completion", func(p string) map[string]any { return map[string]any{"file": p, "line": 1, "column": 1} }},
		{"lsp_diagnostics", func(p string) map[string]any { return map[string]any{"file": p, "wait": 5} }},
		{"lsp_document_symbols", func(p string) map[string]any { return map[string]any{"file": p} }},
		{"lsp_workspace_symbols", func(p string) map[string]any { return map[string]any{"query": "Alpha", "file": p} }},
		{"lsp_request", func(p string) map[string]any {
			return map[string]any{"method": "textDocument/documentSymbol", "params": `{"textDocument":{"uri":"$file_uri"}}`, "file": p}
		}},
		{"lsp_restart", func(p string) map[string]any { return map[string]any{"file": p} }},
	}
	ctx := context.Background()
	for _, c := range calls {
		tl, found := query.LookupTool(c.tool)
		if !found {
			t.Fatalf("no tool %s", c.tool)
		}
		for _, p := range paths {
			args, _ := json.Marshal(c.args(p.path))
			_, err := tl.Call(ctx, s, args, nil)
			got := graph.Code("")
			if err != nil {
				got = query.ErrorOf(err).Code
			}
			if got != p.want {
				t.Errorf("%s %q: %q (%v), want %q", c.tool, p.path, got, err, p.want)
			}
			if err != nil && query.ErrorOf(err).Data["field"] != "file" {
				t.Errorf("%s %q: the error names field %v, not file", c.tool, p.path, query.ErrorOf(err).Data["field"])
			}
		}
	}
}

// TestLSPLocationsOutsideRootsNotRead: places a server points at outside
// the roots (the fake adds them to every references answer) are shown by
// their absolute path and never read: no line text, and the column is the
// server's own (a UTF-16 column past an emoji, which reading the file
// would convert). A place inside the root is read through os.Root and
// converted; one inside that is a FIFO is not read and does not block.
func TestLSPLocationsOutsideRootsNotRead(t *testing.T) {
	uri := func(p string) string { return "file://" + filepath.ToSlash(p) }
	s, repo, other := lspRootsFixture(t, func(repo, other string) string {
		return strings.Join([]string{
			uri(filepath.Join(other, "main.txt")) + "#0:2", // a sibling's file
			uri(filepath.Join(repo, "out.txt")) + "#0:2",   // inside by name, a symlink out
			uri(repo+"/../repo-other/main.txt") + "#0:2",   // inside by prefix, out after ..
			uri(filepath.Join(repo, "fifo.txt")) + "#0:2",  // a FIFO inside
			uri(filepath.Join(repo, "emoji.txt")) + "#0:2", // a regular file inside: read
		}, " ")
	})
	out, err := s.LSP().References(context.Background(), lsptools.ReferencesInput{PositionInput: lsptools.PositionInput{File: "main.txt", Line: 1, Column: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range out.Results {
		got = append(got, fmt.Sprintf("%s:%d:%d %q", l.Path, l.Line, l.Column, l.Text))
	}
	want := []string{
		`main.txt:1:1 "Alpha here"`,
		`main.txt:2:6 "func Alpha"`,
		filepath.Join(other, "main.txt") + `:1:3 ""`, // column 2 if read: the emoji is two UTF-16 units
		filepath.Join(repo, "out.txt") + `:1:3 ""`,
		filepath.Join(other, "main.txt") + `:1:3 ""`,
		filepath.Join(repo, "fifo.txt") + `:1:3 ""`,
		`emoji.txt:1:2 "😀x inside"`,
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("references:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLSPConfigStaysInRoot: a root whose sextant.toml is a symlink out of
// it, or a FIFO, fails every lsp call with OUTSIDE_ROOTS or READ_ERROR
// (field config), without reading the file out of the root or blocking.
func TestLSPConfigStaysInRoot(t *testing.T) {
	t.Setenv(lsp.TrustEnv, "1")
	for _, c := range []struct {
		name string
		lay  func(repo, other string) error
		want graph.Code
	}{
		{"symlink to sibling", func(repo, other string) error {
			return os.Symlink(filepath.Join(other, "sextant.toml"), filepath.Join(repo, "sextant.toml"))
		}, graph.CodeOutsideRoots},
		{".sextant symlinked out", func(repo, other string) error {
			os.WriteFile(filepath.Join(other, "config.toml"), []byte("[lsp]\nmax_servers = 1\n"), 0o644)
			return os.Symlink(other, filepath.Join(repo, ".sextant"))
		}, graph.CodeOutsideRoots},
		{"FIFO", func(repo, _ string) error { return syscall.Mkfifo(filepath.Join(repo, "sextant.toml"), 0o644) }, graph.CodeReadError},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			repo, other := filepath.Join(base, "repo"), filepath.Join(base, "repo-other")
			for _, d := range []string{repo, other} {
				os.MkdirAll(d, 0o755)
			}
			os.WriteFile(filepath.Join(other, "sextant.toml"), []byte("[lsp]\nmax_servers = 1\n"), 0o644)
			os.WriteFile(filepath.Join(repo, "a.py"), []byte("x = 1\n"), 0o644)
			if err := c.lay(repo, other); err != nil {
				t.Fatal(err)
			}
			s, err := query.New(nil, []string{repo}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = s.LSP().DocumentSymbols(context.Background(), lsptools.FileInput{File: "a.py"})
			if e := query.ErrorOf(err); err == nil || e.Code != c.want || e.Data["field"] != "config" {
				t.Errorf("got %v (%+v), want %s on field config", err, e, c.want)
			}
		})
	}
}

// TestLSPRequestURIsStayInRoots: lsp_request passes params to the server,
// which would read a file: URI in them; one outside the roots (lexically,
// a sibling sharing the prefix, through a symlink, at any depth of the
// params) is OUTSIDE_ROOTS on field params. workspace/executeCommand is
// refused outright: a server's commands may write or run code.
func TestLSPRequestURIsStayInRoots(t *testing.T) {
	s, repo, other := lspRootsFixture(t, nil)
	uri := func(p string) string { return "file://" + filepath.ToSlash(p) }
	for _, c := range []struct {
		method, params string
		want           graph.Code
		field          string
	}{
		{"textDocument/documentSymbol", `{"textDocument":{"uri":"$file_uri"}}`, "", ""},
		{"textDocument/documentSymbol", `{"textDocument":{"uri":"` + uri(filepath.Join(repo, "not-yet.txt")) + `"}}`, "", ""},
		{"textDocument/documentSymbol", `{"textDocument":{"uri":"file:///etc/passwd"}}`, graph.CodeOutsideRoots, "params"},
		{"textDocument/documentSymbol", `{"textDocument":{"uri":"FILE:///etc/passwd"}}`, graph.CodeOutsideRoots, "params"},
		{"textDocument/documentSymbol", `{"textDocument":{"uri":"` + uri(filepath.Join(other, "main.txt")) + `"}}`, graph.CodeOutsideRoots, "params"},
		{"textDocument/documentSymbol", `{"textDocument":{"uri":"` + uri(repo+"/../repo-other/main.txt") + `"}}`, graph.CodeOutsideRoots, "params"},
		{"textDocument/documentSymbol", `{"textDocument":{"uri":"` + uri(filepath.Join(repo, "out.txt")) + `"}}`, graph.CodeOutsideRoots, "params"},
		{"textDocument/documentSymbol", `{"textDocument":{"uri":"` + uri(filepath.Join(repo, "outdir", "main.txt")) + `"}}`, graph.CodeOutsideRoots, "params"},
		{"custom/x", `[{"items":[1,{"uri":"file:///etc/shadow"}]}]`, graph.CodeOutsideRoots, "params"},
		{"custom/x", `{"uri":"file:relative.txt"}`, graph.CodeOutsideRoots, "params"},
		{"workspace/executeCommand", `{"command":"gopls.generate","arguments":[]}`, graph.CodeInvalidArgument, "method"},
	} {
		_, err := s.LSP().Request(context.Background(), lsptools.RequestInput{Method: c.method, Params: c.params, File: "main.txt"})
		if err == nil {
			if c.want != "" {
				t.Errorf("%s %s: answered, want %s", c.method, c.params, c.want)
			}
			continue
		}
		if e := query.ErrorOf(err); e.Code != c.want || e.Data["field"] != c.field {
			t.Errorf("%s %s: %v (%+v), want %q on field %q", c.method, c.params, err, e, c.want, c.field)
		}
	}
}
