package query

import (
	"context"
	"encoding/json"
	"reflect"
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

func tool[In any, Out Answer](name, title, desc string, run func(*Service, context.Context, In, func(Progress)) (Out, error)) Tool {
	return Tool{
		Name: name, Title: title, Description: desc,
		ReadOnly: true, Idempotent: true, OpenWorld: false,
		Input:  reflect.TypeFor[In](),
		Output: reflect.TypeFor[Out]().Elem(),
		Call: func(ctx context.Context, s *Service, args json.RawMessage, progress func(Progress)) (Answer, error) {
			in, err := decodeArgs[In](args)
			if err != nil {
				return nil, err
			}
			return run(s, ctx, in, progress)
		},
	}
}

// Tools lists every tool. (tools/list sorts them by name.)
func Tools() []Tool {
	return []Tool{
		tool("list_repositories", "List indexed repositories", descListRepositories, (*Service).ListRepositories),
		tool("find_symbol", "Find symbols by name", descFindSymbol, (*Service).FindSymbol),
		tool("get_symbol", "Get one symbol's detail", descGetSymbol, (*Service).GetSymbol),
		tool("get_file_outline", "Outline a file or directory", descGetFileOutline, (*Service).GetFileOutline),
	}
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

const descListRepositories = `List the repositories the index holds: name, root directory, module paths, current snapshot id and age, whether files changed on disk since (fresh), and counts of packages, files, symbols and recorded load/type errors (diagnostics). Call it first when unsure what is indexed or what to pass as repository to find_symbol, get_symbol or get_file_outline. A root the server was started in is indexed on first use, so the first call may take a while and reports progress. Errors: REPOSITORY_NOT_FOUND for an unknown repository filter, INVALID_ARGUMENT for a bad response_format, INDEXING_FAILED when a root cannot be loaded (no go.mod, broken go.mod).`

const descFindSymbol = `Search declarations by name across the indexed Go code: exact, prefix, substring, or fuzzy camel-case (NewSrvMux finds NewServeMux). Filters: kind, repository, path prefix, exported. Ranked exact, then prefix, then the rest; exported before unexported; non-test before test. Returns rows with stable_key, path, line range, kind, qualified_name and signature, one page at a time (limit, cursor; total is exact). Use get_symbol for one symbol's doc, members and package, and get_file_outline to see everything a file declares. Errors: INVALID_ARGUMENT (names the field: empty name, unknown kind or mode, whitespace around a value, bad limit), CURSOR_INVALID (cursor from another query or an older snapshot: call again without it), REPOSITORY_NOT_FOUND, OUTSIDE_ROOTS for an absolute or .. path.`

const descGetSymbol = `Get one symbol in full: package path and name, module, file and line range, signature, doc comment, receiver, and for types their fields and methods. Select it by stable_key (from find_symbol or any answer); by qualified_name (Name, Type.Method, Type.Field, optionally http.Server or net/http.Server) narrowed by repository and path; or by file + name, resolved as that file's source would (a local name, or pkg.Name through its imports). Use find_symbol when you only know part of a name; get_file_outline for a whole file. Errors: SYMBOL_NOT_FOUND (close names in data.suggestions; says where it looked when narrowed), AMBIGUOUS_SYMBOL (candidates in data.candidates as "repo path:start-end", or stable keys when only a key can tell them apart; never a silent pick), INVALID_ARGUMENT (selectors mixed or padded with whitespace), FILE_NOT_FOUND, OUTSIDE_ROOTS, PARSE_ERROR, REPOSITORY_NOT_FOUND.`

const descGetFileOutline = `Outline a Go file, or every Go file of a directory: its declarations in source order with kind, signature as written and line range; fields, interface methods and methods nested under their types. Read from the file on disk with the parser alone, so it is always current and works on files that do not compile (syntax errors are listed, the rest is outlined). Much cheaper than reading the file; use get_symbol for one declaration's doc and members, find_symbol to search by name. Paths are repo-relative or absolute inside a root. Errors: FILE_NOT_FOUND, OUTSIDE_ROOTS (.., absolute outside the roots, or a symlink that leaves them), INVALID_ARGUMENT (not a .go file, bad limit), READ_ERROR (not a regular file), CURSOR_INVALID.`
