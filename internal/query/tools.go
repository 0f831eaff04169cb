package query

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/sextant-dev/sextant/internal/lsptools"
)

// Answer is what every tool returns: a typed value (the structured
// content) that also renders itself as text for an agent.
type Answer interface {
	Text() string
}

// Tool describes one tool for both shells: the MCP server publishes it,
// the CLI turns it into a subcommand. Input and Output are struct types
// whose json and jsonschema tags define the schemas and the CLI flags.
type Tool struct {
	Name        string
	Group       string // the profile group: GroupCore tools are served by default
	Title       string
	Description string
	ReadOnly    bool
	Idempotent  bool
	OpenWorld   bool
	Input       reflect.Type
	Output      reflect.Type
	// Call decodes raw JSON arguments into Input and runs the tool.
	Call func(ctx context.Context, s *Service, args json.RawMessage, progress func(Progress)) (Answer, error)
}

func tool[In any, Out Answer](name, title, desc string, run func(context.Context, *Service, In, func(Progress)) (Out, error)) Tool {
	return Tool{
		Name: name, Group: GroupCore, Title: title, Description: desc,
		ReadOnly: true, Idempotent: true, OpenWorld: false,
		Input:  reflect.TypeFor[In](),
		Output: reflect.TypeFor[Out]().Elem(),
		Call: func(ctx context.Context, s *Service, args json.RawMessage, progress func(Progress)) (Answer, error) {
			in, err := decodeArgs[In](args)
			if err != nil {
				return nil, err
			}
			return run(ctx, s, in, progress)
		},
	}
}

// lspTool is a tool of the language-server bridge: it reads no index, so
// it runs on the service's bridge alone, and reports no progress.
func lspTool[In any, Out Answer](name, title, desc string, run func(*lsptools.Bridge, context.Context, In) (Out, error)) Tool {
	return tool(name, title, desc, func(ctx context.Context, s *Service, in In, _ func(Progress)) (Out, error) {
		return run(s.lsp, ctx, in)
	}).in(GroupLSP)
}

// lspTools are the tools of the language-server bridge, in the lsp group.
func lspTools() []Tool {
	request := lspTool("lsp_request", "Raw language-server request", lsptools.DescRequest, (*lsptools.Bridge).Request)
	request.ReadOnly, request.Idempotent = false, false // a command may write
	restart := lspTool("lsp_restart", "Restart a language server", lsptools.DescRestart, (*lsptools.Bridge).Restart)
	restart.Idempotent = false
	return []Tool{
		lspTool("lsp_diagnostics", "Diagnostics from a language server", lsptools.DescDiagnostics, (*lsptools.Bridge).Diagnostics),
		lspTool("lsp_hover", "Hover from a language server", lsptools.DescHover, (*lsptools.Bridge).Hover),
		lspTool("lsp_definition", "Definition via a language server", lsptools.DescDefinition, (*lsptools.Bridge).Definition),
		lspTool("lsp_references", "References via a language server", lsptools.DescReferences, (*lsptools.Bridge).References),
		lspTool("lsp_document_symbols", "Outline via a language server", lsptools.DescDocumentSymbols, (*lsptools.Bridge).DocumentSymbols),
		lspTool("lsp_workspace_symbols", "Symbol search via a language server", lsptools.DescWorkspaceSymbols, (*lsptools.Bridge).WorkspaceSymbols),
		lspTool("lsp_completion", "Completions from a language server", lsptools.DescCompletion, (*lsptools.Bridge).Completion),
		request,
		restart,
	}
}

// Tools lists every tool. (tools/list sorts them by name.)
func Tools() []Tool {
	return append([]Tool{
		tool("find_symbol", "Find symbols by name", descFindSymbol, FindSymbol),
		tool("get_symbol", "Get one symbol's detail", descGetSymbol, GetSymbol),
		tool("get_file_outline", "Outline a file or directory", descGetFileOutline, GetFileOutline),
		tool("read_source", "Read verified source", descReadSource, ReadSource),
		tool("search_code", "Search code by a question in words", descSearchCode, SearchCode),
		tool("get_context_for_symbol", "Summarise a symbol within a budget", descGetContext, GetContextForSymbol),
		tool("find_references", "Find uses of a symbol", descFindReferences, FindReferences),
		tool("get_callers", "Callers of a function", descGetCallers, GetCallers),
		tool("find_implementations", "Find implementations", descFindImplementations, FindImplementations),
		tool("get_impact", "What a change reaches and which tests to run", descGetImpact, GetImpact),
		tool("list_repositories", "List indexed repositories", descListRepositories, ListRepositories).in(GroupGraph),
		tool("get_callees", "Callees of a function", descGetCallees, GetCallees).in(GroupGraph),
		tool("get_context_budget", "Token cost of a file or package", descGetContextBudget, GetContextBudget).in(GroupContext),
		tool("explain_effects", "What a function may do", descExplainEffects, ExplainEffects).in(GroupEffects),
		tool("emit_effect_graph", "Effect graph from a root", descEmitEffectGraph, EmitEffectGraph).in(GroupEffects),
		tool("check_file", "Check a file's package", descCheckFile, CheckFile).in(GroupPosition),
		tool("infer_type", "Type at a position", descInferType, InferType).in(GroupPosition),
		tool("render_ssa", "SSA form of a function", descRenderSSA, RenderSSA).in(GroupPosition),
	}, lspTools()...)
}

// LookupTool returns the tool called name.
func LookupTool(name string) (Tool, bool) {
	for _, t := range Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

const descListRepositories = `List the indexed repositories: name, root, modules, snapshot id and age, fresh (no file changed on disk since), counts of packages, files, symbols and diagnostics. Call it first when unsure what is indexed or what to pass as repository to find_symbol and the other tools. A root is indexed on first use, so the first call may take a while and reports progress. Errors: REPOSITORY_NOT_FOUND, INVALID_ARGUMENT, INDEXING_FAILED (no or broken go.mod).`

const descFindSymbol = `Search declarations by name: exact, prefix, substring or fuzzy camel-case (NewSrvMux finds NewServeMux), filtered by kind, repository, path prefix, exported. Ranked exact, exported and non-test first. Rows give stable_key, path, lines, kind, qualified_name, signature; exact total, limit/cursor paging. Use get_symbol for detail, search_code to search in words. Errors: INVALID_ARGUMENT (names the field), CURSOR_INVALID, REPOSITORY_NOT_FOUND.`

const descGetSymbol = `One symbol in full: package, module, file and lines, signature, doc, receiver, a type's fields and methods. Select by stable_key; by qualified_name (Name, Type.Method, http.Server, net/http.Server) narrowed by repository and path; or by file + name, resolved as that file's source would. Partial names: find_symbol; the code: read_source. Errors: SYMBOL_NOT_FOUND (data.suggestions), AMBIGUOUS_SYMBOL (data.candidates; never a silent pick), INVALID_ARGUMENT, FILE_NOT_FOUND, OUTSIDE_ROOTS.`

const descGetFileOutline = `Outline a Go file, or each Go file of a directory, from disk with the parser alone (current, and fine on files that do not compile): declarations in source order with kind, signature and lines, members nested under their types, syntax errors listed. Much cheaper than reading the file; use get_symbol for one declaration, find_symbol to search. Errors: FILE_NOT_FOUND, OUTSIDE_ROOTS (.., outside the roots, symlink escapes), INVALID_ARGUMENT (not .go), READ_ERROR, CURSOR_INVALID.`

const descFindReferences = `Every use of a symbol, from the type checker, grouped by file: line, column (1-based characters), kind, enclosing declaration, line text. A method's uses include those of methods related through interfaces, as in gopls. Selectors as in get_symbol (symbol_path narrows qualified_name); filters kind, path, include_tests; exact total; limit/cursor, budget. Use get_callers for call chains. Errors: SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, INVALID_ARGUMENT, CURSOR_INVALID.`

const descGetCallers = `Who calls a function or method, to depth 1-5 (breadth-first, each function once): caller, file, line, coverage (exact; candidate via interface or func value; package_level), via, call sites. completeness is lower_bound with blind_spots named (dynamic calls, reflection, type errors, outside callers). Selectors as in get_symbol. Reverse: get_callees. Errors: NOT_A_FUNCTION, INVALID_ARGUMENT (depth), SYMBOL_NOT_FOUND, CURSOR_INVALID.`

const descGetCallees = `What a function or method calls, to depth 1-5 (breadth-first, each once): callee, file, line, coverage, via, call sites; callees outside the index listed by name, not followed. completeness is lower_bound with blind_spots named (dynamic calls with no candidate, reflection, type errors). Parameters as get_callers, its reverse. Errors: NOT_A_FUNCTION, INVALID_ARGUMENT (depth outside 1-5), SYMBOL_NOT_FOUND, CURSOR_INVALID.`

const descFindImplementations = `For an interface, the types in the index that satisfy it (pointer: only *T does); for an interface method, their methods. For a concrete type or method, the interfaces (methods) it satisfies. Nothing found: an empty list, completeness complete. Selectors as in get_symbol. Use find_references for uses, get_callers for calls. Errors: INVALID_ARGUMENT (not a type or method), SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, CURSOR_INVALID.`

const descExplainEffects = `What calling a function may do: fs, net, exec, env, exit, panic, spawn, chan, sync, time, rand, stdio, global, unsafe, cgo, reflect, db. Each explained, direct or transitive, certain (exact calls) or possible (via candidates), with a witness: the shortest call path to the cause, with positions. open: reaches an unknown call; pure: none. Selectors as in get_symbol; call trees: emit_effect_graph. Errors: NOT_A_FUNCTION, SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL.`

const descEmitEffectGraph = `The functions a root reaches through call edges, to depth (1-10) and max_nodes, each with its own direct effects, the goroutines it starts and the calls between them (candidate calls marked). format json (schema_version 1) or mermaid, a flowchart to show a person. When max_nodes cuts it, narrow says how to narrow. For one function's full row use explain_effects. Errors: NOT_A_FUNCTION, INVALID_ARGUMENT, SYMBOL_NOT_FOUND.`

const descReadSource = `Source of a symbol or line range, re-read from disk, line-numbered; a symbol whose file changed since indexing is re-located, never stale. Select by stable_key, qualified_name (+repository, path), ref (path::Name or path:START-END) or continuation. depth 1-3 adds callee bodies within budget. For a summary use get_context_for_symbol. Errors: SYMBOL_NOT_FOUND (also: deleted since), INVALID_ARGUMENT (range past EOF or >400 lines, not a file), CURSOR_INVALID.`

const descGetContext = `Prompt-ready summary of one symbol within budget tokens (default 400): signature, effects, doc, callers, callees (types: fields, methods, users), added in that order while they fit; a section that does not fit is left out whole and named in omitted. Much cheaper than read_source. Selectors as in get_symbol. Errors: SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, INVALID_ARGUMENT (budget 20-8000).`

const descGetContextBudget = `What loading a Go file or package directory costs in tokens, per category: types, interfaces, function and method signatures, consts and vars, doc comments, full source; read from disk, about 4 bytes per token. Use it to choose between read_source, get_file_outline and get_context_for_symbol. Errors: FILE_NOT_FOUND, OUTSIDE_ROOTS, INVALID_ARGUMENT (not .go, no Go files).`

const descSearchCode = `Find code by a question in words ("parse the config file"): full-text ranking (BM25) over split identifiers, docs, signatures, string literals and paths, boosted by exported and often-referenced symbols. Returns top limit symbols with paths, lines, signatures and doc summaries, and the best match's body within budget; a name defined in several files returns all. Offline, deterministic. Use find_symbol when you know the name, read_source for another hit's body. Errors: INVALID_ARGUMENT, REPOSITORY_NOT_FOUND.`

const descCheckFile = `Compile a file's package from disk now (no index needed) and list its problems: parse and type errors, and with analyzers=true the go vet analyzers. Each: path, line, column (1-based characters), end, severity, stable code (type checker code like UnusedVar, or analyzer), message, fixes as unified diffs; ok when clean. For one position's type use infer_type. Errors: FILE_NOT_FOUND, OUTSIDE_ROOTS, INVALID_ARGUMENT, CHECK_ERROR.`

const descInferType = `The type at file:line:column (1-based, column in characters), from the type checker on the files on disk: token, type (qualified as the file imports it), kind (var, field, func, method, type, const, package, expression), declaration signature for functions (instantiated for generics), definition. For a declaration by name use get_symbol; for errors check_file. Errors: INVALID_ARGUMENT (not in the file), SYMBOL_NOT_FOUND (no expression there), OUTSIDE_ROOTS.`

const descRenderSSA = `One function's or method's SSA form, built from the files on disk, in go/ssa's notation: numbered blocks with predecessors and successors, one instruction per line, closures after it; format json gives blocks and instructions as data. Select as in get_symbol; for one expression's type use infer_type. Errors: NOT_A_FUNCTION, SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, CHECK_ERROR (type errors), INVALID_ARGUMENT.`
