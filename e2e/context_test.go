package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type contextOut struct {
	envelope
	StableKey     string   `json:"stable_key"`
	QualifiedName string   `json:"qualified_name"`
	Kind          string   `json:"kind"`
	Budget        int      `json:"budget"`
	Summary       string   `json:"summary"`
	ApproxTokens  int      `json:"approx_tokens"`
	Sections      []string `json:"sections"`
	Omitted       []string `json:"omitted"`
}

type outlineDecl struct {
	Name      string        `json:"name"`
	Kind      string        `json:"kind"`
	StableKey string        `json:"stable_key"`
	Members   []outlineDecl `json:"members"`
}

type ctxOutlineOut struct {
	envelope
	Results []struct {
		Path    string        `json:"path"`
		Entries []outlineDecl `json:"entries"`
	} `json:"results"`
}

// cobraFunctions lists every function and method of cobra's packages (the
// root and doc/, tests included) with its stable key, from the detailed
// outlines of their directories.
func cobraFunctions(t *testing.T, cs *mcp.ClientSession) []symbolRow {
	t.Helper()
	var funcs []symbolRow
	for _, dir := range []string{".", "doc"} {
		out, _ := callOK[ctxOutlineOut](t, cs, "get_file_outline", map[string]any{"path": dir, "limit": 500, "response_format": "detailed"})
		for _, f := range out.Results {
			for _, e := range f.Entries {
				for _, d := range append([]outlineDecl{e}, e.Members...) {
					if (d.Kind == "func" || d.Kind == "method") && d.StableKey != "" {
						funcs = append(funcs, symbolRow{StableKey: d.StableKey, QualifiedName: f.Path + "::" + d.Name, Kind: d.Kind})
					}
				}
			}
		}
	}
	return funcs
}

// allToolsSession serves the shared (indexed) cobra database with every
// tool group, so the context tools outside the default profile are there.
func allToolsSession(t *testing.T) *mcp.ClientSession {
	t.Helper()
	sharedIndex(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "sextant-e2e", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := serveCommand(sharedDB, cobraDir)
	cmd.Args = append([]string{cmd.Args[0], "serve", "--tools", "all"}, cmd.Args[2:]...)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting to sextant serve --tools all: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// contextOrder is the order get_context_for_symbol's sections come in.
var contextOrder = []string{"signature", "effects", "doc", "doc_summary", "callers", "callees"}

// TestContextBudgetOnCobra asks get_context_for_symbol about every
// function and method of cobra at budgets 50, 200, 400 and 1,000 and
// checks that no summary exceeds its budget, sections come in order,
// every section not present but available at a larger budget is named in
// omitted, and a larger budget never shows fewer sections (a doc comment
// shown as its first paragraph, doc_summary, may grow into the whole doc).
func TestContextBudgetOnCobra(t *testing.T) {
	cs := allToolsSession(t)
	funcs := cobraFunctions(t, cs)
	if len(funcs) < 300 {
		t.Fatalf("only %d functions and methods in cobra", len(funcs))
	}
	if testing.Short() {
		// Some 4,000 calls: under Wine (.ci/windows.sh runs -short) a
		// minute or more. One function in ten there still answers through
		// the Windows binary; go test ./... asks about every one.
		var some []symbolRow
		for i := 0; i < len(funcs); i += 10 {
			some = append(some, funcs[i])
		}
		funcs = some
	}
	budgets := []int{50, 200, 400, 1000}
	cut, omittedAny := 0, 0
	for _, fn := range funcs {
		var prev []string
		for _, budget := range budgets {
			args := map[string]any{"stable_key": fn.StableKey, "budget": budget}
			out, a := callOK[contextOut](t, cs, "get_context_for_symbol", args)
			where := fmt.Sprintf("%s (%s) at %d", fn.QualifiedName, fn.StableKey, budget)
			if len(out.Summary) > budget*4 || out.ApproxTokens > budget {
				t.Errorf("%s: summary is %d bytes (~%d tokens)", where, len(out.Summary), out.ApproxTokens)
			}
			if !strings.Contains(a.text, out.Summary) {
				t.Errorf("%s: text does not carry the summary", where)
			}
			last := -1
			for _, s := range out.Sections {
				i := indexOf(contextOrder, s)
				if i <= last {
					t.Errorf("%s: sections out of order: %v", where, out.Sections)
				}
				last = i
			}
			if len(out.Sections) == 0 || out.Sections[0] != "signature" {
				t.Errorf("%s: no signature first: %v", where, out.Sections)
			}
			if strings.HasSuffix(strings.SplitN(out.Summary, "\n", 2)[0], "…") {
				cut++
			}
			if len(out.Omitted) > 0 {
				omittedAny++
			}
			for _, s := range prev {
				if s == "doc_summary" && indexOf(out.Sections, "doc") >= 0 {
					continue // the first paragraph grew into the whole doc
				}
				// A bigger budget may fit an earlier section (the doc) that
				// crowds out a later one; the later one is then named.
				if indexOf(out.Sections, s) < 0 && indexOf(out.Omitted, s) < 0 && !(s == "doc_summary" && indexOf(out.Omitted, "doc") >= 0) {
					t.Errorf("%s: section %s shown at a smaller budget is missing and not named omitted", where, s)
				}
			}
			for _, s := range out.Sections {
				named := s
				if s == "doc_summary" {
					named = "doc" // the doc's first paragraph: omitted as doc
				}
				if len(prev) > 0 && indexOf(prev, s) < 0 && indexOf(lastOmitted(t, cs, fn, budget, budgets), named) < 0 {
					t.Errorf("%s: section %s appears but was not named omitted at the smaller budget", where, s)
				}
			}
			prev = out.Sections
		}
	}
	t.Logf("%d functions × %d budgets: %d signatures cut, %d answers omitted sections", len(funcs), len(budgets), cut, omittedAny)
}

// lastOmitted returns what the answer at the budget before budget omitted.
func lastOmitted(t *testing.T, cs *mcp.ClientSession, fn symbolRow, budget int, budgets []int) []string {
	t.Helper()
	i := indexOf(intStrings(budgets), fmt.Sprint(budget))
	if i <= 0 {
		return nil
	}
	out, _ := callOK[contextOut](t, cs, "get_context_for_symbol", map[string]any{"stable_key": fn.StableKey, "budget": budgets[i-1]})
	return out.Omitted
}

func intStrings(ns []int) []string {
	var out []string
	for _, n := range ns {
		out = append(out, fmt.Sprint(n))
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

type readSourceOut struct {
	envelope
	Verified bool `json:"verified"`
	Results  []struct {
		QualifiedName string `json:"qualified_name"`
		StartLine     int    `json:"start_line"`
		Source        string `json:"source"`
	} `json:"results"`
}

type searchOut struct {
	envelope
	Results []struct {
		Rank          int    `json:"rank"`
		QualifiedName string `json:"qualified_name"`
	} `json:"results"`
}

// TestContextToolsOverMCP drives the context tools through the real
// binary over stdio: verified source, a coded error for a bad range,
// search in words, the token budget of a package, and the CLI giving the
// same text as MCP.
func TestContextToolsOverMCP(t *testing.T) {
	cs := allToolsSession(t)
	rs, a := callOK[readSourceOut](t, cs, "read_source", map[string]any{"qualified_name": "Command.Execute"})
	if !rs.Verified || len(rs.Results) != 1 || !strings.Contains(rs.Results[0].Source, "func (c *Command) Execute() error") ||
		!strings.Contains(a.text, "\tfunc (c *Command) Execute() error") {
		t.Errorf("read_source Command.Execute: %s", a.text)
	}
	callErr(t, cs, "read_source", map[string]any{"ref": "command.go:1-100000"}, "INVALID_ARGUMENT")
	callErr(t, cs, "read_source", map[string]any{"ref": "doc::Foo"}, "INVALID_ARGUMENT")
	sc, a := callOK[searchOut](t, cs, "search_code", map[string]any{"question": "add a sub command to a command"})
	if len(sc.Results) == 0 || sc.Results[0].QualifiedName != "Command.AddCommand" {
		t.Errorf("search_code: %s", a.text)
	}
	_, a = callOK[map[string]any](t, cs, "get_context_budget", map[string]any{"path": "."})
	if !strings.Contains(a.text, "full_source") {
		t.Errorf("get_context_budget: %s", a.text)
	}
	mcpText := call(t, cs, "read_source", map[string]any{"ref": "args.go:1-5"}).text
	cli, _ := runCLI(t, 0, "read_source", "--db", sharedDB, "--root", cobraDir, "--ref", "args.go:1-5")
	if cli != mcpText {
		t.Errorf("CLI read_source differs from MCP:\nCLI:\n%s\nMCP:\n%s", cli, mcpText)
	}
}
