// Package query holds the logic of every Sextant tool: selectors, the
// answer envelope, paging cursors, freshness, coded errors and the text an
// agent reads. The MCP server (internal/mcpserver) and the CLI
// (internal/cli) are thin shells over it, so both answer the same.
package query
