package harness

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultText joins the text content of a tool result.
func ResultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
