package query

import (
	"slices"
	"strings"
)

// The guide the server gives an agent at initialize, and what `sextant
// instructions` prints. It is fixed text: nothing read from a repository
// ever reaches it. Each routing line names the tools it sends the agent
// to, and appears only when those tools are published.
const instructionsHead = `Sextant answers questions about Go code from a compiler-accurate index, in far fewer tokens than grep and whole-file reads.

`

// firstCalls route an agent's first calls, each given when its tool is
// published: what to call first in a repository, and before an edit is
// done.
var firstCalls = []struct{ tool, text string }{
	{"get_repository_overview", "In a repository you do not know, call get_repository_overview first: its entry points, layers, hot spots and tests."},
	{"find_symbol", "Find a name with find_symbol, then read its declaration with get_symbol."},
	{"get_impact", "Before you finish an edit, call get_impact on what you changed."},
	{"check_file", "After an edit, check_file lists what no longer compiles."},
}

var instructionLines = []struct {
	tools []string // the line is given when the first of these is published
	text  string
}{
	{[]string{"get_repository_overview"}, "- What is this repository, where do I start? get_repository_overview: modules, the packages most used from outside, commands, the import layers, the most referenced, called and changed code, where tests live; ranked to fit a budget."},
	{[]string{"list_repositories"}, "- What is indexed, and is it current? list_repositories."},
	{[]string{"find_symbol"}, "- Where is X declared / what is called something like X? find_symbol (fuzzy by default: NewSrvMux finds NewServeMux; filter by kind, path, exported)."},
	{[]string{"search_code"}, `- Where is the code that does W ("retry HTTP requests", "parse the config")? search_code: the best-matching symbols with their bodies, within a budget.`},
	{[]string{"get_symbol"}, "- What exactly is X (signature, doc, fields, methods, package)? get_symbol, by stable_key from an earlier answer, by qualified_name (Server.Start, http.Server), or by file + name as that file's code would resolve it."},
	{[]string{"explain_type"}, "- How is type T used safely (constructors, methods of T and *T with their effects, interfaces it satisfies, channels, goroutines, may it be copied)? explain_type."},
	{[]string{"get_context_for_symbol"}, "- Summarise X for a prompt (signature, effects, doc, callers, callees) in a few hundred tokens? get_context_for_symbol, with a budget."},
	{[]string{"read_source"}, "- Show me X's code? read_source: verified, line-numbered source of a symbol or a path:START-END range, re-read from disk; depth adds the bodies of what it calls. Prefer it to reading whole files."},
	{[]string{"get_file_outline"}, "- What does this file or directory declare? get_file_outline, read from disk, fine on files that do not compile; read it before opening a large file."},
	{[]string{"get_context_budget"}, "- What would reading this file or package cost? get_context_budget, in tokens per category."},
	{[]string{"find_references"}, "- Where is X used? find_references: every use from the type checker, grouped by file with the line's text; filter by kind (call, read, write, type, import, embed, override) and path."},
	{[]string{"get_callers", "get_callees"}, "- Who calls X, and what does X call? get_callers and get_callees, to a depth of 5, each edge with its coverage (exact, or candidate through an interface or func value) and a completeness verdict naming what the graph cannot see."},
	{[]string{"get_impact"}, "- What does changing X break or affect? get_impact, before an edit is finished."},
	{[]string{"find_implementations"}, "- What implements this interface, or which interfaces does this type satisfy? find_implementations."},
	{[]string{"explain_effects"}, "- What may X do (filesystem, network, processes, goroutines, panics, clock, globals)? explain_effects, with the call path to each cause; find_symbol's effects filter lists functions that may, e.g., touch net."},
	{[]string{"emit_effect_graph"}, "- What does everything a root reaches do? emit_effect_graph, as JSON or a Mermaid flowchart."},
	{[]string{"infer_type", "check_file", "render_ssa"}, "- What type is the expression at line:column, what is wrong with this file, what does this function compile to? infer_type, check_file (analyzers: go vet) and render_ssa (where served), compiled from the files on disk at the call."},
	{[]string{"lsp_hover"}, "- Other languages (Python, TypeScript, C, Rust, ...)? The lsp_* tools ask that language's own server: lsp_diagnostics, lsp_hover, lsp_definition, lsp_references, lsp_document_symbols, lsp_workspace_symbols."},
}

const instructionsTail = `
Every answer says which snapshot it describes and whether it is fresh; a call re-indexes first when files changed on disk. Lines are 1-based; columns are 1-based and count characters. Failures carry a stable code (SYMBOL_NOT_FOUND with suggestions, AMBIGUOUS_SYMBOL with candidates, INVALID_ARGUMENT naming the field): fix the call as the message says rather than retrying it unchanged.
`

// InstructionsFor returns the guide for a server that publishes tools.
func InstructionsFor(tools []Tool) string {
	published := map[string]bool{}
	for _, t := range tools {
		published[t.Name] = true
	}
	var b strings.Builder
	b.WriteString(instructionsHead)
	var first []string
	for _, c := range firstCalls {
		if published[c.tool] {
			first = append(first, c.text)
		}
	}
	if len(first) > 0 {
		b.WriteString("First calls: " + strings.Join(first, " ") + "\n\n")
	}
	b.WriteString("Which tool for which question:\n")
	for _, l := range instructionLines {
		if slices.ContainsFunc(l.tools, func(n string) bool { return published[n] }) {
			b.WriteString(l.text + "\n")
		}
	}
	b.WriteString(instructionsTail)
	return b.String()
}
