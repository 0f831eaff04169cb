package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The answers of find_references, get_callers, get_callees and
// find_implementations, as far as the tests read them.

type symbolRef struct {
	StableKey     string `json:"stable_key"`
	QualifiedName string `json:"qualified_name"`
	Kind          string `json:"kind"`
	Path          string `json:"path"`
	Line          int    `json:"line"`
}

type refRow struct {
	Line         int    `json:"line"`
	Column       int    `json:"column"`
	Kind         string `json:"kind"`
	Enclosing    string `json:"enclosing"`
	EnclosingKey string `json:"enclosing_key"`
	Target       string `json:"target"`
	Text         string `json:"text"`
}

type refFile struct {
	Path       string   `json:"path"`
	References []refRow `json:"references"`
}

type findReferencesOut struct {
	envelope
	Completeness string     `json:"completeness"`
	BlindSpots   []string   `json:"blind_spots"`
	Symbol       *symbolRef `json:"symbol"`
	Related      []string   `json:"related"`
	Results      []refFile  `json:"results"`
}

type callRow struct {
	Depth         int      `json:"depth"`
	QualifiedName string   `json:"qualified_name"`
	StableKey     string   `json:"stable_key"`
	Path          string   `json:"path"`
	Line          int      `json:"line"`
	Parent        string   `json:"parent"`
	Coverage      string   `json:"coverage"`
	Via           string   `json:"via"`
	Sites         []string `json:"sites"`
}

type callGraphOut struct {
	envelope
	Completeness string     `json:"completeness"`
	BlindSpots   []string   `json:"blind_spots"`
	Symbol       *symbolRef `json:"symbol"`
	Nodes        int        `json:"nodes"`
	Results      []callRow  `json:"results"`
}

type implRow struct {
	symbolRef
	Pointer bool `json:"pointer"`
}

type findImplementationsOut struct {
	envelope
	Completeness string     `json:"completeness"`
	BlindSpots   []string   `json:"blind_spots"`
	Symbol       *symbolRef `json:"symbol"`
	Direction    string     `json:"direction"`
	Results      []implRow  `json:"results"`
}

// allReferences pages through find_references of the symbol with key,
// tests included, and returns every use as "path:line:column".
func allReferences(t *testing.T, cs *mcp.ClientSession, key string) []string {
	t.Helper()
	var out []string
	args := map[string]any{"stable_key": key, "limit": 500}
	for {
		page, _ := callOK[findReferencesOut](t, cs, "find_references", args)
		n := 0
		for _, f := range page.Results {
			for _, r := range f.References {
				out = append(out, fmt.Sprintf("%s:%d:%d", f.Path, r.Line, r.Column))
				n++
			}
		}
		if n != page.Returned {
			t.Errorf("find_references %s: returned %d, rows %d", key, page.Returned, n)
		}
		if page.NextCursor == nil {
			if len(out) != page.Total {
				t.Errorf("find_references %s: total %d, paged through %d", key, page.Total, len(out))
			}
			return out
		}
		args["cursor"] = *page.NextCursor
	}
}

// allImplementations pages through find_implementations of key.
func allImplementations(t *testing.T, cs *mcp.ClientSession, key string) []implRow {
	t.Helper()
	var out []implRow
	args := map[string]any{"stable_key": key, "limit": 500}
	for {
		page, _ := callOK[findImplementationsOut](t, cs, "find_implementations", args)
		out = append(out, page.Results...)
		if page.NextCursor == nil {
			return out
		}
		args["cursor"] = *page.NextCursor
	}
}

// TestFindReferences checks find_references on cobra: uses grouped by
// file with enclosing declarations and line text, the filters, paging
// with an exact total, the budget, and the text an agent reads.
func TestFindReferences(t *testing.T) {
	cs := sharedIndex(t)
	out, a := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command.Execute"})
	if out.Symbol == nil || out.Symbol.QualifiedName != "Command.Execute" || out.Symbol.Kind != "method" {
		t.Fatalf("symbol %+v", out.Symbol)
	}
	if out.Total == 0 || out.Returned != countRefs(out.Results) || out.SnapshotID == 0 || !out.Fresh {
		t.Fatalf("envelope %+v with %d rows", out.envelope, countRefs(out.Results))
	}
	seenPaths := map[string]bool{}
	for _, f := range out.Results {
		if seenPaths[f.Path] {
			t.Errorf("path %s grouped twice", f.Path)
		}
		seenPaths[f.Path] = true
		if strings.Count(a.text, "\n"+f.Path+"\n") != 1 {
			t.Errorf("the text spells %s other than once:\n%s", f.Path, a.text)
		}
		for _, r := range f.References {
			if r.Line == 0 || r.Column == 0 || r.Kind == "" || !strings.Contains(r.Text, "Execute") {
				t.Errorf("%s: row %+v", f.Path, r)
			}
			if r.Enclosing == "" || r.EnclosingKey != "" {
				t.Errorf("%s:%d: enclosing declaration %q, key %q (want a name, and a key only when detailed)",
					f.Path, r.Line, r.Enclosing, r.EnclosingKey)
			}
		}
	}
	// detailed adds the enclosing declarations' keys, each one get_symbol
	// resolves to the declaration named.
	detailed, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command.Execute", "response_format": "detailed"})
	if detailed.Total != out.Total || countRefs(detailed.Results) != countRefs(out.Results) {
		t.Errorf("detailed: %d of %d rows, concise %d of %d", countRefs(detailed.Results), detailed.Total, countRefs(out.Results), out.Total)
	}
	checked := map[string]bool{}
	for _, f := range detailed.Results {
		for _, r := range f.References {
			if r.EnclosingKey == "" {
				t.Errorf("detailed %s:%d: no enclosing key", f.Path, r.Line)
				continue
			}
			if checked[r.EnclosingKey] {
				continue
			}
			checked[r.EnclosingKey] = true
			sym, _ := callOK[struct {
				Results struct {
					QualifiedName string `json:"qualified_name"`
				} `json:"results"`
			}](t, cs, "get_symbol", map[string]any{"stable_key": r.EnclosingKey})
			if got := sym.Results.QualifiedName; got != r.Enclosing {
				t.Errorf("detailed %s:%d: enclosing key %s is %q, the row says %q", f.Path, r.Line, r.EnclosingKey, got, r.Enclosing)
			}
		}
	}
	// cobra_test.go and others call Execute from tests: leaving tests out
	// shrinks the answer to non-test files.
	noTests, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command.Execute", "include_tests": false})
	for _, f := range noTests.Results {
		if strings.HasSuffix(f.Path, "_test.go") {
			t.Errorf("include_tests=false still lists %s", f.Path)
		}
	}
	if noTests.Total >= out.Total {
		t.Errorf("include_tests=false: %d uses, with tests %d", noTests.Total, out.Total)
	}
	// Command is used as a type all over; kind and path filters narrow it.
	typ, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command", "kind": "type", "path": "doc/", "limit": 5})
	if typ.Total <= 5 || typ.Returned != 5 || !typ.Truncated || typ.NextCursor == nil {
		t.Fatalf("paged answer: %+v", typ.envelope)
	}
	for _, f := range typ.Results {
		if !strings.HasPrefix(f.Path, "doc/") {
			t.Errorf("path filter let %s through", f.Path)
		}
		for _, r := range f.References {
			if r.Kind != "type" {
				t.Errorf("kind filter let %s through", r.Kind)
			}
		}
	}
	if typ.Completeness != "lower_bound" || len(typ.BlindSpots) == 0 || !strings.HasPrefix(typ.BlindSpots[0], "outside_graph:") {
		t.Errorf("an exported type of an importable package: completeness %s %v", typ.Completeness, typ.BlindSpots)
	}
	all := map[string]bool{}
	args := map[string]any{"qualified_name": "Command", "kind": "type", "path": "doc/", "limit": 5}
	for {
		page, _ := callOK[findReferencesOut](t, cs, "find_references", args)
		if page.Total != typ.Total {
			t.Fatalf("total changed between pages: %d, then %d", typ.Total, page.Total)
		}
		for _, f := range page.Results {
			for _, r := range f.References {
				p := fmt.Sprintf("%s:%d:%d", f.Path, r.Line, r.Column)
				if all[p] {
					t.Errorf("%s on two pages", p)
				}
				all[p] = true
			}
		}
		if page.NextCursor == nil {
			break
		}
		args["cursor"] = *page.NextCursor
	}
	if len(all) != typ.Total {
		t.Errorf("paged through %d uses, total %d", len(all), typ.Total)
	}

	// A budget cuts the page to fit and says how to go on.
	full, fa := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command", "limit": 200})
	cut, ca := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command", "limit": 200, "budget": 300})
	if len(ca.text) > 300*4 {
		t.Errorf("budget 300 tokens: text is %d characters", len(ca.text))
	}
	if cut.Returned >= full.Returned || cut.Returned == 0 || cut.NextCursor == nil || cut.Total != full.Total {
		t.Errorf("budget: returned %d of %d (full page %d), cursor %v", cut.Returned, cut.Total, full.Returned, cut.NextCursor)
	}
	if !strings.Contains(ca.text, "budget") || !strings.Contains(ca.text, *cut.NextCursor) {
		t.Errorf("budget cut without saying so:\n%s", ca.text)
	}
	if len(fa.text) <= 300*4 {
		t.Errorf("the unbudgeted answer is already small (%d characters); the budget test proves nothing", len(fa.text))
	}
}

func countRefs(files []refFile) int {
	n := 0
	for _, f := range files {
		n += len(f.References)
	}
	return n
}

// TestFindReferencesErrors checks the failures of find_references.
func TestFindReferencesErrors(t *testing.T) {
	cs := sharedIndex(t)
	e := callErr(t, cs, "find_references", map[string]any{"qualified_name": "Comand"}, "SYMBOL_NOT_FOUND")
	if len(e.list("suggestions")) == 0 {
		t.Errorf("no suggestions for Comand")
	}
	e = callErr(t, cs, "find_references", map[string]any{"qualified_name": "emptyRun"}, "AMBIGUOUS_SYMBOL")
	if !strings.Contains(e.Message, "symbol_path") {
		t.Errorf("AMBIGUOUS_SYMBOL does not say to narrow with symbol_path: %s", e.Message)
	}
	// Narrowed by symbol_path, the same name resolves.
	out, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "emptyRun", "symbol_path": "doc/"})
	if out.Symbol == nil || !strings.HasPrefix(out.Symbol.Path, "doc/") {
		t.Errorf("emptyRun in doc/: %+v", out.Symbol)
	}
	for _, c := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"qualified_name": "Command", "kind": "calls"}, "kind"},
		{map[string]any{"qualified_name": " Command"}, "qualified_name"},
		{map[string]any{"qualified_name": "Command", "budget": 149}, "budget"},
		{map[string]any{"qualified_name": "Command", "limit": 501}, "limit"},
		{map[string]any{"stable_key": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "symbol_path": "doc/"}, "stable_key"},
		{map[string]any{}, "stable_key"},
	} {
		e := callErr(t, cs, "find_references", c.args, "INVALID_ARGUMENT")
		if f, _ := e.Data["field"].(string); f != c.field {
			t.Errorf("find_references %v: field %q, want %q (%s)", c.args, f, c.field, e.Message)
		}
	}
	callErr(t, cs, "find_references", map[string]any{"qualified_name": "Command", "path": "../x"}, "OUTSIDE_ROOTS")
	callErr(t, cs, "find_references", map[string]any{"qualified_name": "Command", "repository": "nobody"}, "REPOSITORY_NOT_FOUND")
	callErr(t, cs, "find_references", map[string]any{"qualified_name": "Command", "cursor": "bogus"}, "CURSOR_INVALID")
	// A cursor of another query is refused too.
	page, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command", "limit": 1})
	e = callErr(t, cs, "find_references", map[string]any{"qualified_name": "Command.Execute", "cursor": *page.NextCursor}, "CURSOR_INVALID")
	if !strings.Contains(e.Message, "without cursor") && !strings.Contains(e.Message, "drop cursor") {
		t.Errorf("CURSOR_INVALID gives no hint: %s", e.Message)
	}
}

// TestGetCallersCallees checks both walks on cobra.
func TestGetCallersCallees(t *testing.T) {
	cs := sharedIndex(t)
	callers, a := callOK[callGraphOut](t, cs, "get_callers", map[string]any{"qualified_name": "Command.ExecuteC"})
	if callers.Symbol == nil || callers.Symbol.QualifiedName != "Command.ExecuteC" {
		t.Fatalf("symbol %+v", callers.Symbol)
	}
	execute := findCall(callers.Results, "Command.Execute")
	if execute == nil {
		t.Fatalf("Command.Execute is not a caller of Command.ExecuteC: %+v\n%s", callers.Results, a.text)
	}
	if execute.Depth != 1 || execute.Coverage != "exact" || execute.Via != "static" || len(execute.Sites) == 0 ||
		execute.Path != "command.go" || execute.StableKey == "" || execute.Parent != "Command.ExecuteC" {
		t.Errorf("edge Execute → ExecuteC: %+v", *execute)
	}
	if callers.Completeness != "lower_bound" || !hasSpot(callers.BlindSpots, "outside_graph") {
		t.Errorf("exported method: completeness %s %v", callers.Completeness, callers.BlindSpots)
	}
	if !strings.Contains(a.text, "Command.Execute") || !strings.Contains(a.text, "completeness: lower_bound") {
		t.Errorf("text:\n%s", a.text)
	}

	// Two levels: the callers of Execute come in at depth 2, each once.
	deep, _ := callOK[callGraphOut](t, cs, "get_callers", map[string]any{"qualified_name": "Command.ExecuteC", "depth": 2})
	seen := map[string]int{}
	maxDepth := 0
	for _, r := range deep.Results {
		if r.StableKey != "" {
			if d, ok := seen[r.StableKey]; ok && d != r.Depth {
				t.Errorf("%s listed at depths %d and %d", r.QualifiedName, d, r.Depth)
			}
			seen[r.StableKey] = r.Depth
		}
		maxDepth = max(maxDepth, r.Depth)
	}
	if maxDepth != 2 || deep.Nodes < callers.Nodes {
		t.Errorf("depth 2: max depth %d, %d nodes (depth 1: %d)", maxDepth, deep.Nodes, callers.Nodes)
	}
	// max_nodes stops the walk and says so, with a cursor that walks on.
	args := map[string]any{"qualified_name": "Command.ExecuteC", "depth": 3, "max_nodes": 2}
	capped, _ := callOK[callGraphOut](t, cs, "get_callers", args)
	if capped.Nodes != 2 || !hasSpot(capped.BlindSpots, "max_nodes") || !capped.Truncated || capped.NextCursor == nil {
		t.Errorf("max_nodes 2: %d nodes, %v, truncated %v", capped.Nodes, capped.BlindSpots, capped.Truncated)
	} else {
		args["cursor"] = *capped.NextCursor
		if more, ta := callOK[callGraphOut](t, cs, "get_callers", args); more.Nodes <= 2 || len(more.Results) == 0 {
			t.Errorf("max_nodes 2, next page: %d nodes, %d rows:\n%s", more.Nodes, len(more.Results), ta.text)
		}
	}

	callees, ta := callOK[callGraphOut](t, cs, "get_callees", map[string]any{"qualified_name": "Command.ExecuteC"})
	if findCall(callees.Results, "Command.execute") == nil {
		t.Errorf("Command.ExecuteC does not call Command.execute:\n%s", ta.text)
	}
	external := false
	for _, r := range callees.Results {
		if r.StableKey == "" && r.Path == "" && strings.Contains(r.QualifiedName, ".") {
			external = true
		}
	}
	if !external {
		t.Errorf("no callee outside the graph listed by name:\n%s", ta.text)
	}
	// Only exact edges when asked.
	exact, _ := callOK[callGraphOut](t, cs, "get_callees", map[string]any{"qualified_name": "Command.ExecuteC", "coverage": "exact"})
	for _, r := range exact.Results {
		if r.Coverage != "exact" {
			t.Errorf("coverage filter let %s through", r.Coverage)
		}
	}
	// Paging over the rows of a walk.
	p1, _ := callOK[callGraphOut](t, cs, "get_callees", map[string]any{"qualified_name": "Command.ExecuteC", "limit": 2})
	if p1.Returned != 2 || p1.NextCursor == nil || p1.Total != callees.Total {
		t.Fatalf("page 1: %+v", p1.envelope)
	}
	p2, _ := callOK[callGraphOut](t, cs, "get_callees", map[string]any{"qualified_name": "Command.ExecuteC", "limit": 2, "cursor": *p1.NextCursor})
	if p2.Returned == 0 || p2.Results[0].QualifiedName == p1.Results[0].QualifiedName && p2.Results[0].Sites[0] == p1.Results[0].Sites[0] {
		t.Errorf("page 2 repeats page 1: %+v", p2.Results)
	}
}

func findCall(rows []callRow, qualified string) *callRow {
	for i := range rows {
		if rows[i].QualifiedName == qualified {
			return &rows[i]
		}
	}
	return nil
}

func hasSpot(spots []string, kind string) bool {
	for _, s := range spots {
		if strings.HasPrefix(s, kind+":") {
			return true
		}
	}
	return false
}

// TestCallGraphErrors checks NOT_A_FUNCTION and the argument checks.
func TestCallGraphErrors(t *testing.T) {
	cs := sharedIndex(t)
	for _, tool := range []string{"get_callers", "get_callees"} {
		e := callErr(t, cs, tool, map[string]any{"qualified_name": "Command"}, "NOT_A_FUNCTION")
		if !strings.Contains(e.Message, "find_references") {
			t.Errorf("%s NOT_A_FUNCTION does not point to find_references: %s", tool, e.Message)
		}
		callErr(t, cs, tool, map[string]any{"qualified_name": "Command.Use"}, "NOT_A_FUNCTION")
		for _, depth := range []int{0, 6, -1} {
			e := callErr(t, cs, tool, map[string]any{"qualified_name": "Command.Execute", "depth": depth}, "INVALID_ARGUMENT")
			if f, _ := e.Data["field"].(string); f != "depth" {
				t.Errorf("%s depth %d: field %q", tool, depth, f)
			}
		}
		for _, args := range []map[string]any{
			{"qualified_name": "Command.Execute", "coverage": "maybe"},
			{"qualified_name": "Command.Execute", "max_nodes": 5000},
			{"qualified_name": "Command.Execute", "budget": 1},
		} {
			callErr(t, cs, tool, args, "INVALID_ARGUMENT")
		}
		callErr(t, cs, tool, map[string]any{"qualified_name": "Command.Nope"}, "SYMBOL_NOT_FOUND")
		callErr(t, cs, tool, map[string]any{"qualified_name": "Command.Execute", "cursor": "bogus"}, "CURSOR_INVALID")
	}
}

// TestFindImplementations checks cobra's one interface, SliceValue, which
// in cobra only a test type implements (pflag's types are outside the
// index), both directions, and an interface nothing implements once the
// tests are left out.
func TestFindImplementations(t *testing.T) {
	cs := sharedIndex(t)
	out, a := callOK[findImplementationsOut](t, cs, "find_implementations", map[string]any{"qualified_name": "SliceValue"})
	if out.Symbol == nil || out.Symbol.Kind != "interface" || out.Direction != "implementations" {
		t.Fatalf("SliceValue: %+v", out)
	}
	if out.Total != 1 || out.Results[0].QualifiedName != "customMultiString" || !out.Results[0].Pointer ||
		out.Results[0].Path != "completions_test.go" || out.Completeness != "complete" {
		t.Errorf("SliceValue is implemented by *customMultiString of completions_test.go: %+v\n%s", out, a.text)
	}
	// The other way round, the test type satisfies SliceValue.
	sup, _ := callOK[findImplementationsOut](t, cs, "find_implementations", map[string]any{"qualified_name": "customMultiString"})
	if sup.Direction != "interfaces" || sup.Total != 1 || sup.Results[0].QualifiedName != "SliceValue" {
		t.Errorf("customMultiString satisfies %+v", sup.Results)
	}
	// Without the tests nothing implements it: an empty list, complete.
	none, na := callOK[findImplementationsOut](t, cs, "find_implementations", map[string]any{"qualified_name": "SliceValue", "include_tests": false})
	if none.Total != 0 || len(none.Results) != 0 || none.Completeness != "complete" {
		t.Errorf("SliceValue without tests: %+v\n%s", none, na.text)
	}
	ifaces, _ := callOK[findImplementationsOut](t, cs, "find_implementations", map[string]any{"qualified_name": "Command"})
	if ifaces.Direction != "interfaces" || ifaces.Completeness != "complete" {
		t.Errorf("Command: %+v", ifaces)
	}
	e := callErr(t, cs, "find_implementations", map[string]any{"qualified_name": "Command.Use"}, "INVALID_ARGUMENT")
	if !strings.Contains(e.Message, "field") {
		t.Errorf("a field: %s", e.Message)
	}
	callErr(t, cs, "find_implementations", map[string]any{"qualified_name": "NoSuchInterface"}, "SYMBOL_NOT_FOUND")
	callErr(t, cs, "find_implementations", map[string]any{"qualified_name": "SliceValue", "cursor": "bogus"}, "CURSOR_INVALID")
}

// TestXrefCursorAfterReindex pages find_references and get_callers on a
// copy of cobra, edits it (the next call refreshes the index) and
// expects the old cursors to be refused with a hint to start over, and
// the new answers to describe the edit.
func TestXrefCursorAfterReindex(t *testing.T) {
	dir := freshCopy(t)
	db := filepath.Join(t.TempDir(), "xref.db")
	runCLI(t, 0, "index", "--db", db, dir)
	cs := connect(t, "", nil, db, dir)
	refs, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command", "limit": 2})
	calls, _ := callOK[callGraphOut](t, cs, "get_callees", map[string]any{"qualified_name": "Command.ExecuteC", "limit": 2})
	if refs.NextCursor == nil || calls.NextCursor == nil {
		t.Fatalf("no cursors: %+v %+v", refs.envelope, calls.envelope)
	}
	appendFile(t, filepath.Join(dir, "command.go"), "\nfunc e2eUsesCommand(c *Command) { _ = c.Execute() }\n")
	edited, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command", "limit": 2})
	if !edited.Fresh || edited.SnapshotID <= refs.SnapshotID {
		t.Errorf("after the edit: fresh=%v snapshot %d (was %d) reasons=%v", edited.Fresh, edited.SnapshotID, refs.SnapshotID, edited.StaleReasons)
	}
	for _, c := range []struct {
		tool   string
		args   map[string]any
		cursor string
	}{
		{"find_references", map[string]any{"qualified_name": "Command", "limit": 2}, *refs.NextCursor},
		{"get_callees", map[string]any{"qualified_name": "Command.ExecuteC", "limit": 2}, *calls.NextCursor},
	} {
		c.args["cursor"] = c.cursor
		e := callErr(t, cs, c.tool, c.args, "CURSOR_INVALID")
		if !strings.Contains(e.Message, "without cursor") {
			t.Errorf("%s: CURSOR_INVALID without a hint: %s", c.tool, e.Message)
		}
	}
	after, _ := callOK[findReferencesOut](t, cs, "find_references", map[string]any{"qualified_name": "Command", "path": "command.go", "limit": 500})
	if !after.Fresh || after.SnapshotID <= refs.SnapshotID {
		t.Errorf("after re-indexing: fresh=%v snapshot %d (was %d)", after.Fresh, after.SnapshotID, refs.SnapshotID)
	}
	found := false
	for _, f := range after.Results {
		for _, r := range f.References {
			found = found || r.Enclosing == "e2eUsesCommand"
		}
	}
	if !found {
		t.Errorf("the new use in e2eUsesCommand is missing after re-indexing")
	}
}
