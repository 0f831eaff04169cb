package query

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
)

// declLine returns the 1-based line of the first line of path that starts
// with prefix, read from disk: the truth read_source must agree with.
func declLine(t *testing.T, path, prefix string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line starting with %q", path, prefix)
	return 0
}

// editFile rewrites path with edit applied to its content.
func editFile(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// blockHas reports whether the block named qn starts its declaration at
// line and shows it.
func checkBlock(t *testing.T, o *ReadSourceOutput, qn, declPrefix string, line int) {
	t.Helper()
	if !o.Verified || len(o.Results) == 0 {
		t.Fatalf("read_source %s: not verified or empty: %+v", qn, o)
	}
	b := o.Results[0]
	lines := strings.Split(b.Source, "\n")
	i := line - b.StartLine
	if i < 0 || i >= len(lines) || !strings.HasPrefix(lines[i], declPrefix) {
		t.Fatalf("read_source %s: line %d should be %q; block %d-%d:\n%s", qn, line, declPrefix, b.StartLine, b.EndLine, o.Text())
	}
	if b.EndLine != b.StartLine+len(lines)-1 {
		t.Errorf("read_source %s: lines %d-%d but %d lines of source", qn, b.StartLine, b.EndLine, len(lines))
	}
}

// TestReadSourceAfterEdits edits a file after indexing and checks that
// read_source answers what is on disk each time: lines inserted above a
// function, the function renamed, then deleted, then the file deleted.
func TestReadSourceAfterEdits(t *testing.T) {
	f := newFixture(t, "testdata/shapes.txtar")
	file := filepath.Join(f.dir, "shapes.go")
	const decl = "func Describe("

	o := ok[*ReadSourceOutput](t, f, "read_source", `{"qualified_name":"Describe"}`)
	checkBlock(t, o, "Describe", decl, declLine(t, file, decl))
	if o.Results[0].Note != "" {
		t.Errorf("unchanged file has a note: %q", o.Results[0].Note)
	}

	// Insert lines above the function: the index still has the old lines.
	editFile(t, file, func(s string) string {
		return strings.Replace(s, "// Describe", "// Inserted one.\nvar inserted1 = 1\n\n// Inserted two.\nvar inserted2 = 2\n\n// Describe", 1)
	})
	for _, args := range []string{`{"qualified_name":"Describe"}`, `{"ref":"shapes.go::Describe"}`} {
		o = ok[*ReadSourceOutput](t, f, "read_source", args)
		checkBlock(t, o, "Describe", decl, declLine(t, file, decl))
		if !strings.Contains(o.Results[0].Note, "re-located") {
			t.Errorf("%s after inserting lines: note %q should say it re-located", args, o.Results[0].Note)
		}
	}
	// A range ref reads the lines as they are now.
	line := declLine(t, file, decl)
	o = ok[*ReadSourceOutput](t, f, "read_source", fmt.Sprintf(`{"ref":"shapes.go:%d-%d"}`, line, line))
	if got := o.Results[0].Source; !strings.HasPrefix(got, decl) {
		t.Errorf("range %d-%d = %q, want the declaration", line, line, got)
	}

	// Rename it: the old name is gone with a note, the new one is read from disk.
	editFile(t, file, func(s string) string { return strings.Replace(s, "func Describe(", "func Portray(", 1) })
	e := fails(t, f, "read_source", `{"qualified_name":"Describe"}`, graph.CodeSymbolNotFound)
	if !strings.Contains(e.Message, "file changed") || e.Data["file_changed"] != true {
		t.Errorf("renamed: %v, want a note that the file changed", e)
	}
	if sug, _ := e.Data["suggestions"].([]string); len(sug) == 0 || !strings.HasPrefix(sug[0], "Portray ") {
		t.Errorf("renamed: suggestions %v should start with the new name", e.Data["suggestions"])
	}
	o = ok[*ReadSourceOutput](t, f, "read_source", `{"ref":"shapes.go::Portray"}`)
	checkBlock(t, o, "Portray", "func Portray(", declLine(t, file, "func Portray("))
	if !strings.Contains(o.Results[0].Note, "not in snapshot") {
		t.Errorf("new name: note %q should say the snapshot lacks it", o.Results[0].Note)
	}

	// Delete it.
	editFile(t, file, func(s string) string {
		i := strings.Index(s, "func Portray(")
		j := strings.Index(s[i:], "\n}\n")
		return s[:i] + s[i+j+3:]
	})
	fails(t, f, "read_source", `{"qualified_name":"Describe"}`, graph.CodeSymbolNotFound)
	fails(t, f, "read_source", `{"ref":"shapes.go::Portray"}`, graph.CodeSymbolNotFound)

	// Other symbols of the file are still served right.
	o = ok[*ReadSourceOutput](t, f, "read_source", `{"qualified_name":"Square.Area"}`)
	checkBlock(t, o, "Square.Area", "func (s Square) Area()", declLine(t, file, "func (s Square) Area()"))

	// Delete the file.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	e = fails(t, f, "read_source", `{"qualified_name":"Square.Area"}`, graph.CodeSymbolNotFound)
	if !strings.Contains(e.Message, "deleted") {
		t.Errorf("file deleted: %q should say so", e.Message)
	}
}

// TestReadSourceBadInput checks each bad call fails with its code.
func TestReadSourceBadInput(t *testing.T) {
	f := newFixture(t, "testdata/shapes.txtar")
	n := strings.Count(string(must(os.ReadFile(filepath.Join(f.dir, "shapes.go")))), "\n")
	for _, tc := range []struct {
		args string
		code graph.Code
		want string // in the message
	}{
		{fmt.Sprintf(`{"ref":"shapes.go:1-%d"}`, n+5), graph.CodeInvalidArgument, "past the end"},
		{fmt.Sprintf(`{"ref":"shapes.go:%d-%d"}`, n+2, n+3), graph.CodeInvalidArgument, "past the end"},
		{`{"ref":"shapes.go:1-401"}`, graph.CodeInvalidArgument, "at most 400"},
		{`{"ref":"shapes.go:5-2"}`, graph.CodeInvalidArgument, "START <= END"},
		{`{"ref":"shapes.go:x-2"}`, graph.CodeInvalidArgument, "START-END"},
		{`{"ref":".::Shape"}`, graph.CodeInvalidArgument, "directory"},
		{`{"ref":"nope.go:1-2"}`, graph.CodeFileNotFound, "does not exist"},
		{`{"ref":"../x.go:1-2"}`, graph.CodeOutsideRoots, ""},
		{`{"ref":"shapes.go::Nothing"}`, graph.CodeSymbolNotFound, "declares no"},
		{`{"qualified_name":"Nothing"}`, graph.CodeSymbolNotFound, ""},
		{`{"qualified_name":"Shape","ref":"shapes.go:1-2"}`, graph.CodeInvalidArgument, "exactly one"},
		{`{"ref":"shapes.go:1-2","path":"x"}`, graph.CodeInvalidArgument, "path"},
		{`{"qualified_name":"Shape","context_lines":51}`, graph.CodeInvalidArgument, "context_lines"},
		{`{"qualified_name":"Shape","depth":4}`, graph.CodeInvalidArgument, "depth"},
		{`{"qualified_name":"Shape","budget":100}`, graph.CodeInvalidArgument, "budget"},
		{`{"continuation":"bm9wZQ"}`, graph.CodeCursorInvalid, ""},
		{`{"qualified_name":" Shape"}`, graph.CodeInvalidArgument, "whitespace"},
	} {
		_, err := f.call(t, "read_source", tc.args)
		e, isCoded := asError(err)
		if !isCoded || e.Code != tc.code || !strings.Contains(e.Message, tc.want) {
			t.Errorf("read_source %s: %v, want %s containing %q", tc.args, err, tc.code, tc.want)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestReadSourceDepthAndContinuation reads a function with its callees at
// a budget too small for all of them, follows the continuations to the
// end, and checks every callee came once, exact edges before candidates,
// and each answer kept its budget. A continuation from another repository
// or an older snapshot is refused.
func TestReadSourceDepthAndContinuation(t *testing.T) {
	f := newFixture(t, "testdata/shapes.txtar")
	full := ok[*ReadSourceOutput](t, f, "read_source", `{"qualified_name":"Sum","depth":2,"budget":8000}`)
	if full.Truncated || len(full.Results) < 3 {
		t.Fatalf("Sum at depth 2: want several blocks, untruncated:\n%s", full.Text())
	}
	seenCandidate := false
	names := map[string]bool{}
	for _, b := range full.Results[1:] {
		if names[b.QualifiedName] {
			t.Errorf("callee %s twice", b.QualifiedName)
		}
		names[b.QualifiedName] = true
		if b.Coverage == "candidate" {
			seenCandidate = true
		} else if seenCandidate && b.Depth == full.Results[1].Depth {
			t.Errorf("exact callee %s after a candidate at the same depth", b.QualifiedName)
		}
	}

	const budget = 150
	var got []string
	args := fmt.Sprintf(`{"qualified_name":"Sum","depth":2,"budget":%d}`, budget)
	for i := 0; ; i++ {
		if i > 50 {
			t.Fatal("continuations do not end")
		}
		o := ok[*ReadSourceOutput](t, f, "read_source", args)
		if n := len(o.Text()); n > budget*4 {
			t.Errorf("answer %d is %d bytes, over %d tokens:\n%s", i, n, budget, o.Text())
		}
		for _, b := range o.Results {
			got = append(got, fmt.Sprintf("%s:%d-%d", b.QualifiedName, b.StartLine, b.EndLine))
		}
		if !o.Truncated {
			break
		}
		if o.Continuation == "" || len(o.Withheld) == 0 {
			t.Fatalf("truncated without continuation or withheld names:\n%s", o.Text())
		}
		args = fmt.Sprintf(`{"continuation":%q,"budget":%d}`, o.Continuation, budget)
	}
	// Pieces of a cut block join up; the whole equals the untruncated answer.
	var want []string
	for _, b := range full.Results {
		want = append(want, b.QualifiedName)
	}
	var joined []string
	for _, g := range got {
		name := g[:strings.LastIndexByte(g, ':')]
		if len(joined) == 0 || joined[len(joined)-1] != name {
			joined = append(joined, name)
		}
	}
	if strings.Join(joined, ",") != strings.Join(want, ",") {
		t.Errorf("continued answers cover %v, want %v", joined, want)
	}

	// A continuation issued before a re-index is stale.
	o := ok[*ReadSourceOutput](t, f, "read_source", fmt.Sprintf(`{"qualified_name":"Sum","depth":2,"budget":%d}`, budget))
	fails(t, f, "read_source", fmt.Sprintf(`{"continuation":%q,"repository":"other"}`, o.Continuation), graph.CodeCursorInvalid)
	if _, err := index.Index(context.Background(), f.store, f.dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	e := fails(t, f, "read_source", fmt.Sprintf(`{"continuation":%q}`, o.Continuation), graph.CodeCursorInvalid)
	if !strings.Contains(e.Message, "snapshot") {
		t.Errorf("stale continuation: %q should name the snapshot", e.Message)
	}
}

// TestGetContextForSymbol checks budgets, order and whole sections on
// every function of the fixture.
func TestGetContextForSymbol(t *testing.T) {
	f := newFixture(t, "testdata/shapes.txtar")
	o := ok[*GetContextOutput](t, f, "get_context_for_symbol", `{"qualified_name":"Total","budget":1000}`)
	if strings.Join(o.Sections, ",") != "signature,effects,doc,callers,callees" || len(o.Omitted) != 0 {
		t.Errorf("Total at 1000: sections %v omitted %v\n%s", o.Sections, o.Omitted, o.Summary)
	}
	checkContext(t, o)
	small := ok[*GetContextOutput](t, f, "get_context_for_symbol", `{"qualified_name":"Sum","budget":20}`)
	checkContext(t, small)
	if len(small.Omitted) == 0 || small.Sections[0] != "signature" {
		t.Errorf("Sum at 20: sections %v omitted %v", small.Sections, small.Omitted)
	}
	fails(t, f, "get_context_for_symbol", `{"qualified_name":"Sum","budget":10}`, graph.CodeInvalidArgument)
	fails(t, f, "get_context_for_symbol", `{"qualified_name":"Nope"}`, graph.CodeSymbolNotFound)
	ty := ok[*GetContextOutput](t, f, "get_context_for_symbol", `{"qualified_name":"Square"}`)
	if !strings.Contains(ty.Summary, "methods (") || !strings.Contains(ty.Summary, "fields (1): Side") {
		t.Errorf("Square: summary lacks members:\n%s", ty.Summary)
	}
}

// sectionOrder is the order sections may come in.
var sectionOrder = []string{"signature", "effects", "doc", "doc_summary", "callers", "callees", "fields", "methods", "used_by"}

// checkContext holds one answer to the contract: within budget, sections
// in order, each present section whole in the summary, the rest omitted.
func checkContext(t *testing.T, o *GetContextOutput) {
	t.Helper()
	if len(o.Summary) > o.Budget*4 || o.ApproxTokens > o.Budget {
		t.Errorf("%s at %d: %d bytes, approx %d tokens", o.QualifiedName, o.Budget, len(o.Summary), o.ApproxTokens)
	}
	last := -1
	for _, s := range o.Sections {
		i := indexOf(sectionOrder, s)
		if i <= last {
			t.Errorf("%s at %d: sections out of order: %v", o.QualifiedName, o.Budget, o.Sections)
		}
		last = i
	}
	for _, s := range o.Omitted {
		if indexOf(o.Sections, s) >= 0 {
			t.Errorf("%s: %s both present and omitted", o.QualifiedName, s)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestGetContextBudget compares the categories with the file's size.
func TestGetContextBudget(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/shapes.txtar")
	o := ok[*GetContextBudgetOutput](t, f, "get_context_budget", `{"path":"shapes.go"}`)
	size := len(must(os.ReadFile(filepath.Join(f.dir, "shapes.go"))))
	cats := map[string]BudgetRow{}
	sum := 0
	for _, r := range o.Results {
		cats[r.Category] = r
		if r.Category != "full_source" {
			sum += r.Tokens
		}
	}
	if got := cats["full_source"].Tokens; got != (size+3)/4 {
		t.Errorf("full_source = %d tokens, file is %d bytes", got, size)
	}
	if cats["interfaces"].Count != 3 || cats["types"].Count < 3 || cats["signatures"].Count < 5 || cats["doc_comments"].Tokens == 0 {
		t.Errorf("categories: %+v", o.Results)
	}
	if sum > cats["full_source"].Tokens {
		t.Errorf("parts (%d) exceed the whole (%d)", sum, cats["full_source"].Tokens)
	}
	dir := ok[*GetContextBudgetOutput](t, f, "get_context_budget", `{"path":"."}`)
	withTests := ok[*GetContextBudgetOutput](t, f, "get_context_budget", `{"path":".","include_tests":true}`)
	if dir.Files != 1 || withTests.Files != 2 {
		t.Errorf("directory: %d files, with tests %d; want 1 and 2", dir.Files, withTests.Files)
	}
	fails(t, f, "get_context_budget", `{"path":"go.mod"}`, graph.CodeInvalidArgument)
	fails(t, f, "get_context_budget", `{"path":"none.go"}`, graph.CodeFileNotFound)
	fails(t, f, "get_context_budget", `{"path":"/etc/passwd"}`, graph.CodeOutsideRoots)
}

// TestSearchCode asks the fixture questions whose answers its docs and
// names give, and checks the budget and the bodies.
func TestSearchCode(t *testing.T) {
	f := newFixture(t, "testdata/shapes.txtar")
	for _, tc := range []struct{ question, want string }{
		{"area of a square", "Square.Area"},
		{"shapes with a volume", "Solid"},
		{"sum the areas of shapes", "Sum"},
		{"radius", "Circle.Radius"},
	} {
		o := ok[*SearchCodeOutput](t, f, "search_code", fmt.Sprintf(`{"question":%q}`, tc.question))
		top := []string{}
		for _, r := range o.Results[:min(2, len(o.Results))] {
			top = append(top, r.QualifiedName)
		}
		if indexOf(top, tc.want) < 0 {
			t.Errorf("search_code %q: got %s, want %s in the first two", tc.question, o.Text(), tc.want)
		}
	}
	o := ok[*SearchCodeOutput](t, f, "search_code", `{"question":"area","limit":3,"budget":150}`)
	if len(o.Text()) > 600 {
		t.Errorf("budget 150: %d bytes:\n%s", len(o.Text()), o.Text())
	}
	big := ok[*SearchCodeOutput](t, f, "search_code", `{"question":"area","limit":3}`)
	if big.Results[0].Source == "" || !strings.Contains(big.Text(), "\tfunc ") {
		t.Errorf("default budget: no bodies:\n%s", big.Text())
	}
	// The best match comes with its body, a lower hit longer than a few
	// lines with its signature and doc summary instead, a short one whole.
	for _, r := range big.Results {
		long := r.EndLine-r.StartLine >= briefBodyLines
		switch {
		case r.Rank == 1 && r.Source == "":
			t.Errorf("best match %s without its body:\n%s", r.QualifiedName, big.Text())
		case r.Rank > 1 && long && r.Source != "":
			t.Errorf("lower hit %s (%d-%d) with its body:\n%s", r.QualifiedName, r.StartLine, r.EndLine, big.Text())
		case r.Rank > 1 && !long && r.Source == "":
			t.Errorf("short lower hit %s without its body:\n%s", r.QualifiedName, big.Text())
		case r.Source == "" && (r.Signature == "" || !strings.Contains(big.Text(), r.Signature) || r.Summary != "" && !strings.Contains(big.Text(), "// "+r.Summary)):
			t.Errorf("lower hit %s without its signature or summary:\n%s", r.QualifiedName, big.Text())
		}
	}
	total := ok[*SearchCodeOutput](t, f, "search_code", `{"question":"total area of the shapes","limit":3}`)
	if len(total.Results) < 2 || total.Results[1].QualifiedName != "Shape" || total.Results[1].Source != "" || total.Results[1].Summary != "Shape is anything with an area." {
		t.Errorf("second hit: want Shape with its doc summary and no body:\n%s", total.Text())
	}
	fails(t, f, "search_code", `{"question":"how is the"}`, graph.CodeInvalidArgument)
	fails(t, f, "search_code", `{"question":"area","limit":21}`, graph.CodeInvalidArgument)
	fails(t, f, "search_code", `{"question":"area","repository":"nope"}`, graph.CodeRepositoryNotFound)
	// Structured and text answers agree and are JSON.
	if _, err := json.Marshal(big); err != nil {
		t.Fatal(err)
	}
}

// contextGoldenCalls are the calls whose text renderings context.golden holds.
var contextGoldenCalls = []toolCall{
	{"read_source", `{"qualified_name":"Describe"}`},
	{"read_source", `{"qualified_name":"Square.Area","context_lines":2}`},
	{"read_source", `{"qualified_name":"Sum","depth":2}`},
	{"read_source", `{"qualified_name":"Sum","depth":2,"budget":150}`},
	{"read_source", `{"ref":"shapes.go:1-5"}`},
	{"read_source", `{"ref":"shapes.go::Circle.Radius"}`},
	{"read_source", `{"ref":"shapes.go:90-99"}`},
	{"get_context_for_symbol", `{"qualified_name":"Total"}`},
	{"get_context_for_symbol", `{"qualified_name":"Total","budget":30}`},
	{"get_context_for_symbol", `{"qualified_name":"Shape"}`},
	{"get_context_for_symbol", `{"qualified_name":"Square.Side"}`},
	{"get_context_budget", `{"path":"shapes.go"}`},
	{"search_code", `{"question":"total area of the shapes","limit":3}`},
	{"search_code", `{"question":"reflection","limit":2,"budget":150}`},
}

// TestContextGolden renders the context tools' answers on the shapes
// fixture and compares them with testdata/context.golden (-update
// rewrites it).
func TestContextGolden(t *testing.T) {
	checkGolden(t, newFixture(t, "testdata/shapes.txtar"), contextGoldenCalls, "testdata/context.golden", nil)
}

// TestSearchCodeAllDefinitions checks that a name the question spells out
// comes with every definition of it, sharing one rank, and that a question
// in other words picks the best one alone.
func TestSearchCodeAllDefinitions(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/multi.txtar")
	o := ok[*SearchCodeOutput](t, f, "search_code", `{"question":"where is Parse","limit":1}`)
	var pkgs []string
	for _, r := range o.Results {
		if r.QualifiedName != "Parse" || r.Rank != 1 {
			t.Errorf("unexpected hit %+v", r)
		}
		pkgs = append(pkgs, r.PackagePath)
	}
	if strings.Join(pkgs, ",") != "example.com/multi/config,example.com/multi/flags" && strings.Join(pkgs, ",") != "example.com/multi/flags,example.com/multi/config" {
		t.Errorf("Parse definitions: %v, want both packages\n%s", pkgs, o.Text())
	}
	one := ok[*SearchCodeOutput](t, f, "search_code", `{"question":"read the settings file","limit":1}`)
	if len(one.Results) != 1 || one.Results[0].PackagePath != "example.com/multi/config" {
		t.Errorf("settings file: %s", one.Text())
	}
}
