package query

// Instructions is the guide the server gives an agent at initialize, and
// what `sextant instructions` prints. It is fixed text: nothing read from a
// repository ever reaches it.
const Instructions = `Sextant answers questions about Go code from a compiler-accurate index, in far fewer tokens than grep and whole-file reads.

Which tool for which question:
- What is indexed, and is it current? list_repositories.
- Where is X declared / what is called something like X? find_symbol (fuzzy by default: NewSrvMux finds NewServeMux; filter by kind, path, exported).
- What exactly is X (signature, doc, fields, methods, package)? get_symbol, by stable_key from an earlier answer, by qualified_name (Server.Start, http.Server), or by file + name as that file's code would resolve it.
- What does this file or directory declare? get_file_outline, read from disk, fine on files that do not compile; read it before opening a large file.
- Where is X used? find_references: every use from the type checker, grouped by file with the line's text; filter by kind (call, read, write, type, import, embed) and path.
- Who calls X, and what does X call? get_callers and get_callees, to a depth of 5, each edge with its coverage (exact, or candidate through an interface or func value) and a completeness verdict naming what the graph cannot see.
- What implements this interface, or which interfaces does this type satisfy? find_implementations.
- What may X do (filesystem, network, processes, goroutines, panics, clock, globals)? explain_effects, with the call path to each cause; emit_effect_graph draws what a root reaches (both in the effects group, when served); find_symbol's effects filter lists functions that may, e.g., touch net.

Every answer says which snapshot it describes and whether files changed since (fresh). Lines are 1-based; columns are 1-based and count characters. Failures carry a stable code (SYMBOL_NOT_FOUND with suggestions, AMBIGUOUS_SYMBOL with candidates, INVALID_ARGUMENT naming the field): fix the call as the message says rather than retrying it unchanged.
`
