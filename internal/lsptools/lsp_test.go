//go:build unix

package lsptools_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/sextant-dev/sextant/internal/lsp"
	"github.com/sextant-dev/sextant/internal/lsp/lspfake"
	"github.com/sextant-dev/sextant/internal/lsptools"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestMain makes the test binary the fake language server when the
// bridge starts it.
func TestMain(m *testing.M) {
	if os.Getenv(lspfake.Env) != "" {
		lspfake.Main()
		return
	}
	os.Exit(m.Run())
}

// lspFixture writes testdata/lsp.txtar to a directory and returns a
// Service rooted there, closed when the test ends.
func lspFixture(t *testing.T) (*query.Service, string) {
	t.Helper()
	t.Setenv(lsp.TrustEnv, "1") // the fixture's sextant.toml names the fake server
	ar, err := txtar.ParseFile("testdata/lsp.txtar")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range ar.Files {
		ar.Files[i].Data = []byte(strings.ReplaceAll(string(f.Data), "$SELF", self))
	}
	dir := t.TempDir()
	txtartest.WriteDir(t, dir, ar)
	s, err := query.New(nil, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

var lspGoldenCalls = []struct{ tool, args string }{
	{"lsp_hover", `{"file":"main.txt","line":4,"column":5}`},
	{"lsp_hover", `{"file":"main.txt","line":2,"column":12}`},
	{"lsp_definition", `{"file":"main.txt","line":4,"column":7}`},
	{"lsp_references", `{"file":"main.txt","line":5,"column":3}`},
	{"lsp_references", `{"file":"main.txt","line":5,"column":3,"limit":2}`},
	{"lsp_document_symbols", `{"file":"main.txt"}`},
	{"lsp_diagnostics", `{"file":"main.txt"}`},
	{"lsp_completion", `{"file":"main.txt","line":5,"column":1}`},
	{"lsp_workspace_symbols", `{"query":"Alpha","server":"fake"}`},
	{"lsp_request", `{"method":"fake/cancelled","file":"main.txt"}`},
	{"lsp_request", `{"method":"fake/none","server":"fake"}`},
	{"lsp_document_symbols", `{"file":"src/deep/b.fk"}`},
	{"lsp_hover", `{"file":"notes.md","line":1,"column":1}`},
	{"lsp_hover", `{"file":"main.txt","line":9,"column":1}`},
	{"lsp_hover", `{"file":"../outside.txt","line":1,"column":1}`},
	{"lsp_hover", `{"file":"missing.txt","line":1,"column":1}`},
	{"lsp_diagnostics", `{"file":"main.txt","wait":601}`},
	{"lsp_restart", `{"server":"fake","memory_mb":2048}`},
	{"lsp_restart", `{"server":"nope"}`},
}

var update = flag.Bool("update", false, "rewrite the golden file of the lsp tools")

var pids = regexp.MustCompile(`pid \d+`)

// TestLSPGolden renders every lsp tool's answer (and its failures) on the
// fixture and compares them with testdata/lsp.golden (-update rewrites it).
func TestLSPGolden(t *testing.T) {
	s, dir := lspFixture(t)
	var b strings.Builder
	for _, c := range lspGoldenCalls {
		tl, ok := query.LookupTool(c.tool)
		if !ok {
			t.Fatalf("no tool %s", c.tool)
		}
		if tl.Group != query.GroupLSP {
			t.Errorf("%s is in group %q", c.tool, tl.Group)
		}
		a, err := tl.Call(context.Background(), s, json.RawMessage(c.args), nil)
		fmt.Fprintf(&b, "== %s %s\n", c.tool, c.args)
		if err != nil {
			b.WriteString(query.ErrorOf(err).Text() + "\n")
			continue
		}
		b.WriteString(pids.ReplaceAllString(a.Text(), "pid N"))
	}
	got := strings.ReplaceAll(b.String(), dir, "$ROOT")
	const golden = "testdata/lsp.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("answers differ from %s (go test -update to accept):\n%s", golden, txtartest.LineDiff(string(want), got))
	}
}

// TestLSPCloseEndsServers: closing the service shuts its servers down.
func TestLSPCloseEndsServers(t *testing.T) {
	s, _ := lspFixture(t)
	out, err := s.LSP().Hover(context.Background(), lsptools.PositionInput{File: "main.txt", Line: 1, Column: 1})
	if err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(out.Pid, 0) != nil {
		t.Fatal("the server is not running")
	}
	s.Close()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", out.Pid)); err == nil {
		t.Errorf("server %d still exists after Close", out.Pid)
	}
	if _, err := s.LSP().Hover(context.Background(), lsptools.PositionInput{File: "main.txt", Line: 1, Column: 1}); err == nil {
		t.Error("a closed service answered")
	}
}

// TestLSPPaging: a cursor brings the rest of the references and is
// refused for another question.
func TestLSPPaging(t *testing.T) {
	s, _ := lspFixture(t)
	ctx := context.Background()
	in := lsptools.ReferencesInput{PositionInput: lsptools.PositionInput{File: "main.txt", Line: 5, Column: 3}, Limit: 2}
	first, err := s.LSP().References(ctx, in)
	if err != nil || first.NextCursor == nil || first.Total != 3 || len(first.Results) != 2 {
		t.Fatalf("first page: %+v, %v", first, err)
	}
	in.Cursor = *first.NextCursor
	second, err := s.LSP().References(ctx, in)
	if err != nil || len(second.Results) != 1 || second.NextCursor != nil || second.Results[0].Line != 5 {
		t.Fatalf("second page: %+v, %v", second, err)
	}
	in.Line = 1
	if _, err := s.LSP().References(ctx, in); query.ErrorOf(err).Code != "CURSOR_INVALID" {
		t.Errorf("cursor of another position: %v", err)
	}
}
