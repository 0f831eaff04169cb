package query

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/sextant-dev/sextant/internal/answer"
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
	// ParamDocs describes parameters in the tool's own words where the
	// jsonschema tag of a shared field (the symbol selector's) says them
	// generally: the CLI's flags and the MCP input schema both use it.
	ParamDocs map[string]string
	Output    reflect.Type
	// Call decodes raw JSON arguments into Input and runs the tool.
	Call func(ctx context.Context, s *Service, args json.RawMessage, progress func(Progress)) (Answer, error)
}

// paramDocumented is an input that words some of its parameters itself.
type paramDocumented interface{ paramDocs() map[string]string }

func tool[In any, Out Answer](name, title, desc string, run func(context.Context, *Service, In, func(Progress)) (Out, error)) Tool {
	var docs map[string]string
	if d, ok := any(*new(In)).(paramDocumented); ok {
		docs = d.paramDocs()
	}
	return Tool{
		Name: name, Group: GroupCore, Title: title, Description: desc,
		ReadOnly: true, Idempotent: true, OpenWorld: false,
		ParamDocs: docs,
		Input:     reflect.TypeFor[In](),
		Output:    reflect.TypeFor[Out]().Elem(),
		Call: func(ctx context.Context, s *Service, args json.RawMessage, progress func(Progress)) (Answer, error) {
			in, err := answer.DecodeArgs[In](args)
			if err != nil {
				return nil, err
			}
			out, err := run(withWait(ctx, in), s, in, progress)
			return out, s.sess.StoreError(err)
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
		tool("get_repository_overview", "Overview of a repository", descGetRepositoryOverview, GetRepositoryOverview),
		tool("find_symbol", "Find symbols by name", descFindSymbol, FindSymbol),
		tool("get_symbol", "Get one symbol's detail", descGetSymbol, GetSymbol),
		tool("get_file_outline", "Outline a file or directory", descGetFileOutline, GetFileOutline),
		tool("read_source", "Read verified source", descReadSource, ReadSource),
		tool("search_code", "Search code by a question in words", descSearchCode, SearchCode),
		tool("get_context_for_symbol", "Summarise a symbol within a budget", descGetContext, GetContextForSymbol),
		tool("find_references", "Find uses of a symbol", descFindReferences, FindReferences),
		tool("get_callers", "Callers of a function", descGetCallers, GetCallers),
		tool("get_callees", "Callees of a function", descGetCallees, GetCallees),
		tool("find_implementations", "Find implementations", descFindImplementations, FindImplementations),
		tool("explain_effects", "What a function may do", descExplainEffects, ExplainEffects),
		tool("explain_type", "A type's protocol", descExplainType, ExplainType),
		tool("infer_type", "Type at a position", descInferType, InferType),
		tool("check_file", "Check a file's package", descCheckFile, CheckFile),
		tool("get_impact", "What a change reaches and which tests to run", descGetImpact, GetImpact),
		tool("list_repositories", "List indexed repositories", descListRepositories, ListRepositories).in(GroupGraph),
		tool("get_context_budget", "Token cost of a file or package", descGetContextBudget, GetContextBudget).in(GroupContext),
		tool("emit_effect_graph", "Effect graph from a root", descEmitEffectGraph, EmitEffectGraph).in(GroupEffects),
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

const descListRepositories = `List the indexed repositories: name, root, modules, snapshot id and age, fresh, counts of packages, files, symbols and diagnostics. Call it when unsure what is indexed or what to pass as repository; what a repository holds: get_repository_overview. A root is indexed on first use, which may take a while. Errors: REPOSITORY_NOT_FOUND, INVALID_ARGUMENT, INDEXING_FAILED (no or broken go.mod).`

const descFindSymbol = `Find declarations by name: fuzzy camel-case by default (NewSrvMux finds NewServeMux), or exact, prefix, substring; filter by kind, repository, path prefix, exported, effects. Ranked exact, exported, non-test first; rows give stable_key, path, lines, kind, signature. Detail: get_symbol; search in words: search_code. Errors: INVALID_ARGUMENT (names the field), CURSOR_INVALID, REPOSITORY_NOT_FOUND.`

const descGetSymbol = `One declaration in full: package, file and lines, signature, doc, a type's fields and methods. Select by stable_key; qualified_name (Name, Type.Method, http.Server) narrowed by repository and path; or file + name, as that file resolves it. Partial names: find_symbol; code: read_source; a type's protocol: explain_type. Errors: SYMBOL_NOT_FOUND (data.suggestions), AMBIGUOUS_SYMBOL (data.candidates), INVALID_ARGUMENT, FILE_NOT_FOUND, OUTSIDE_ROOTS.`

const descGetFileOutline = `Outline a file, or each file of a directory: Go parsed from disk (fine on code that does not compile), TypeScript and Python from the index: declarations in order with kind, signature and lines, members under their types, syntax errors. Far cheaper than reading the file; its code: read_source. Errors: FILE_NOT_FOUND, OUTSIDE_ROOTS, INVALID_ARGUMENT, READ_ERROR, CURSOR_INVALID.`

const descFindReferences = `Every use of a symbol, compiler-resolved, by file: line, column, kind, enclosing declaration, line text; for methods also uses via interfaces, and overrides. Selectors as in get_symbol (symbol_path narrows qualified_name); exact total, paged, budget. Call chains: get_callers; what an edit breaks: get_impact. Errors: SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, INVALID_ARGUMENT, CURSOR_INVALID.`

const descGetCallers = `Who calls a function or method, to depth 1-5: caller, file, line, coverage (exact; candidate via interface or func value; package_level), via, call sites; completeness names blind spots. Selectors as in get_symbol. The reverse: get_callees; every use: find_references; before an edit: get_impact. Errors: NOT_A_FUNCTION, INVALID_ARGUMENT (depth), SYMBOL_NOT_FOUND, CURSOR_INVALID.`

const descGetCallees = `What a function or method calls, to depth 1-5: callee, file, line, coverage, via, call sites; callees outside the index named, not followed. Arguments as get_callers, its reverse. Their bodies: read_source with depth; what the calls may do: explain_effects. Errors: NOT_A_FUNCTION, INVALID_ARGUMENT (depth), SYMBOL_NOT_FOUND, CURSOR_INVALID.`

const descFindImplementations = `For an interface (method), the types (methods) satisfying it (pointer: only *T); for a Go type (method), the interfaces it satisfies; for a TS/JS/Python class (method), subclasses (overrides); TS/JS values typed as it: kind value. Selectors as get_symbol. Std-lib interfaces, method sets: explain_type; uses: find_references. Errors: INVALID_ARGUMENT (Go/Python: no type or method), SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, CURSOR_INVALID.`

const descExplainEffects = `What calling a function may do: fs, net, exec, env, exit, panic, spawn, chan, sync, time, rand, stdio, global, unsafe, cgo, reflect, db; each direct or transitive, certain or possible, with a witness call path. Selectors as in get_symbol. Call trees: emit_effect_graph; a type's methods at once: explain_type. Errors: NOT_A_FUNCTION, SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, UNSUPPORTED_LANGUAGE.`

const descEmitEffectGraph = `The functions a root reaches through call edges, to depth (1-10) and max_nodes, each with its own direct effects, the goroutines it starts and the calls between them (candidate calls marked). format json (schema_version 1) or mermaid, a flowchart to show a person. When max_nodes cuts it, narrow says how to narrow. One function's full row: explain_effects. Errors: NOT_A_FUNCTION, INVALID_ARGUMENT, SYMBOL_NOT_FOUND.`

const descReadSource = `Source of a symbol or line range, re-read from disk and line-numbered; a symbol moved since indexing is re-located, never stale. Select by stable_key, qualified_name (+repository, path), ref (path::Name or path:START-END) or continuation; depth 1-3 adds callee bodies within budget. A summary instead: get_context_for_symbol. Errors: SYMBOL_NOT_FOUND, INVALID_ARGUMENT (bad range), CURSOR_INVALID.`

const descGetContext = `Prompt-ready summary of one symbol within budget tokens (default 400): signature, effects, doc, callers, callees (types: fields, methods, users), in that order while they fit; what does not fit is named in omitted. Much cheaper than read_source. Selectors as in get_symbol. Errors: SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, INVALID_ARGUMENT (budget 20-8000).`

const descGetContextBudget = `What loading a Go file or package directory costs in tokens, per category: types, interfaces, function and method signatures, consts and vars, doc comments, full source; read from disk, about 4 bytes per token. Use it to choose between read_source, get_file_outline and get_context_for_symbol. Errors: FILE_NOT_FOUND, OUTSIDE_ROOTS, INVALID_ARGUMENT (not .go, no Go files).`

const descSearchCode = `Find code by a question in words ("parse the config file"): BM25 over identifiers, docs, signatures, strings and paths. The top symbols with paths, lines, signatures and doc summaries, and the best match's body within budget. Known name: find_symbol; another hit's body: read_source. Errors: INVALID_ARGUMENT, REPOSITORY_NOT_FOUND.`

const descCheckFile = `Compile a file's package from disk now (no index needed) and list its problems: parse and type errors, and with analyzers the go vet checks; each with position, severity, stable code (UnusedVar, printf), message and fixes as diffs; ok when clean. TypeScript, JavaScript, Python: the language server's diagnostics. Run it after an edit; a type: infer_type. Errors: FILE_NOT_FOUND, OUTSIDE_ROOTS, INVALID_ARGUMENT, CHECK_ERROR.`

const descInferType = `The type at file:line:column (column in characters), from the type checker on the files on disk: token, type, kind, signature (instantiated for generics), definition. By name: get_symbol; a named type's protocol: explain_type; errors: check_file. Errors: INVALID_ARGUMENT (not in the file), SYMBOL_NOT_FOUND (no expression there), OUTSIDE_ROOTS, UNSUPPORTED_LANGUAGE.`

const descRenderSSA = `One function's or method's SSA form from the files on disk, in go/ssa's notation: numbered blocks with predecessors and successors, one instruction per line, closures after it; format json: blocks and instructions as data. Select as in get_symbol; an expression's type: infer_type. Errors: NOT_A_FUNCTION, SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, CHECK_ERROR (type errors), INVALID_ARGUMENT, UNSUPPORTED_LANGUAGE.`
