// Package query holds the logic of every Sextant tool, one file per tool
// named after it (find_references.go is find_references: its input, its
// answer, the function that computes it and its text), and the helpers
// several tools share in files named for what they are: selector.go,
// paging.go, symbolref.go. A capability larger than its tool has a
// package of its own, which the tool's file calls: the call walks
// (internal/callwalk), change impact (internal/impact), a type's protocol
// (internal/typeproto), effect rows (internal/effectrow), search ranking
// (internal/rank), a repository's overview (internal/overview), a file's
// outline (internal/outline), files parsed from the disk
// (internal/srcfile), the completeness verdict (internal/blind); what
// every answer shares (envelopes, cursors, budgets) is internal/answer. The tools read the index through a
// session.View (internal/session keeps roots, freshness and caches); the
// lsp_* tools live in internal/lsptools. tools.go is the one registry the
// MCP server (internal/mcpserver) and the CLI (internal/cli) both serve,
// so both answer the same.
package query
