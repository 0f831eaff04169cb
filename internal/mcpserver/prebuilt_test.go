package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPrebuiltIsTheSDKs: a stand-in result as the SDK encodes it, with
// the prebuilt content spliced in, is byte for byte what the SDK encodes
// for the real result, for texts and structured contents with everything
// JSON escapes, and with or without the _meta the SDK adds.
func TestPrebuiltIsTheSDKs(t *testing.T) {
	answers := []any{
		map[string]any{"results": []any{}, "total": 0},
		map[string]any{"results": []any{map[string]any{"path": "a<b>&c.go", "text": "if x < 1 && y > 2 {", "line": 3}}, "next_cursor": nil},
		map[string]any{"text": "line\u2028sep\u2029para \x00 \x1b é 世界 \"q\" \\ /"},
		struct {
			Name string  `json:"name"`
			N    float64 `json:"n"`
			Skip *string `json:"skip,omitempty"`
		}{"x", 1.5e300, nil},
	}
	texts := []string{"", "plain", "line 1\nline\t2 <tag> & \"quoted\" \u2028 é 世界 \\x1b \x00", "bad utf-8 \xff\xfe here", strings.Repeat("wide ", 5000)}
	metas := []mcp.Meta{nil, {"io.modelcontextprotocol/serverInfo": map[string]any{"name": "sextant", "version": "0.1.0"}}}
	pb := newPrebuiltResults()
	ss := new(mcp.ServerSession)
	defer pb.framing(ss)()
	for _, a := range answers {
		structured, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			for _, meta := range metas {
				b, err := contentBytes(text, structured)
				if err != nil {
					t.Fatal(err)
				}
				standIn := pb.standIn(ss, b)
				standIn.Meta = meta // as the SDK adds it
				raw, err := json.Marshal(standIn)
				if err != nil {
					t.Fatal(err)
				}
				got, ok := pb.take(raw)
				if !ok {
					t.Fatalf("stand-in %s not recognised", raw)
				}
				want, err := json.Marshal(&mcp.CallToolResult{Meta: meta, Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(structured)})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("text %.40q, answer %s, meta %v:\n got %s\nwant %s", text, structured, meta, got, want)
				}
			}
		}
	}
}

// TestPrebuiltStandIn: a session ServeIO registered gets a stand-in that
// responseConn replaces by the prebuilt bytes, framed as the SDK frames
// the real result; any other session, and any other result, is left alone.
func TestPrebuiltStandIn(t *testing.T) {
	pb := newPrebuiltResults()
	framed, other := new(mcp.ServerSession), new(mcp.ServerSession)
	done := pb.framing(framed)
	structured, _ := json.Marshal(map[string]any{"total": 2, "results": []string{"a<b", "c"}})
	real := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "two uses\n<here>"}}, StructuredContent: json.RawMessage(structured)}
	b, err := contentBytes("two uses\n<here>", structured)
	if err != nil {
		t.Fatal(err)
	}
	if r := pb.standIn(other, b); r != nil {
		t.Fatalf("a session that is not framed got a stand-in %+v", r)
	}
	standIn := pb.standIn(framed, b)
	if standIn == nil {
		t.Fatal("a framed session got no stand-in")
	}
	id, _ := jsonrpc.MakeID(float64(7))
	encode := func(r *mcp.CallToolResult) []byte {
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: raw})
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}
	write := func(r *mcp.CallToolResult) []byte {
		raw, err := json.Marshal(r) // as the SDK does
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		c := &responseConn{w: &got, prebuilt: pb}
		if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: raw}); err != nil {
			t.Fatal(err)
		}
		return got.Bytes()
	}
	if got, want := write(standIn), append(encode(real), '\n'); !bytes.Equal(got, want) {
		t.Errorf("stand-in written as\n%s\nwant\n%s", got, want)
	}
	// Taken once: written again, the stand-in goes out as it is.
	if got, want := write(standIn), append(encode(standIn), '\n'); !bytes.Equal(got, want) {
		t.Errorf("stand-in written twice:\n%s\nwant\n%s", got, want)
	}
	// A real result that merely looks like a stand-in's start.
	lookalike := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: prebuiltMarker + "1 and more"}}}
	if got, want := write(lookalike), append(encode(lookalike), '\n'); !bytes.Equal(got, want) {
		t.Errorf("look-alike written as\n%s\nwant\n%s", got, want)
	}
	done()
	if r := pb.standIn(framed, b); r != nil {
		t.Error("a session still got stand-ins after it ended")
	}
}

// TestPrebuiltBounded: results whose responses never come are dropped
// once maxPrebuilt newer ones exist.
func TestPrebuiltBounded(t *testing.T) {
	pb := newPrebuiltResults()
	ss := new(mcp.ServerSession)
	defer pb.framing(ss)()
	for range 3 * maxPrebuilt {
		pb.standIn(ss, []byte("{}"))
	}
	pb.mu.Lock()
	n := len(pb.results)
	pb.mu.Unlock()
	if n != maxPrebuilt {
		t.Errorf("%d results kept, want %d", n, maxPrebuilt)
	}
}
