package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResponseFrameIsTheSDKs: the shortcut that frames a successful
// response around its result writes exactly the bytes the SDK's own
// encoder would, for results as the SDK makes them (json.Marshal of a
// CallToolResult with structured content and text) and ids of both kinds.
func TestResponseFrameIsTheSDKs(t *testing.T) {
	structured, _ := json.Marshal(map[string]any{"results": []any{map[string]any{"path": "a<b>&c.go", "line": 3}}, "next_cursor": nil})
	results := []*mcp.CallToolResult{
		{Content: []mcp.Content{&mcp.TextContent{Text: "plain"}}, StructuredContent: json.RawMessage(structured)},
		{Content: []mcp.Content{&mcp.TextContent{Text: "line 1\nline\t2 <tag> & \"quoted\" \u2028 é 世界 \\x1b"}}, StructuredContent: json.RawMessage(structured)},
		{Content: []mcp.Content{&mcp.TextContent{Text: ""}}},
	}
	ids := []any{float64(0), float64(42), float64(-7), "abc", "a<b>&\"c\"\u2028", ""}
	for _, r := range results {
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, idv := range ids {
			id, err := jsonrpc.MakeID(idv)
			if err != nil {
				t.Fatal(err)
			}
			resp := &jsonrpc.Response{ID: id, Result: raw}
			want, err := jsonrpc.EncodeMessage(resp)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			c := &responseConn{w: &got}
			if err := c.Write(context.Background(), resp); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), append(want, '\n')) {
				t.Errorf("id %#v:\n got %s\nwant %s", idv, got.Bytes(), want)
			}
		}
	}
}
