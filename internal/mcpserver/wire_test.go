package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireScript is what TestWireSwitch sends: tool calls whose answers hold
// characters outside ASCII (names, docs, a cut line's "…", source text),
// a paged list, a coded failure, a protocol error, and tools/list.
var wireScript = []string{
	`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`,
	callLine(`"find"`, "find_symbol", `{"name":"Größe"}`),
	callLine(`"get"`, "get_symbol", `{"qualified_name":"Größe"}`),
	callLine(`"outline"`, "get_file_outline", `{"file":"p.go"}`),
	callLine(`"read"`, "read_source", `{"qualified_name":"Use"}`),
	callLine(`"refs"`, "find_references", `{"qualified_name":"Größe"}`),
	callLine(`"page"`, "find_symbol", `{"name":"e","mode":"substring","limit":1}`),
	callLine(`"missing"`, "get_symbol", `{"qualified_name":"Grösse"}`),
	callLine(`"bad"`, "find_symbol", `{"name":"P","nme":"Q"}`),
	callLine(`"unknown"`, "no_such_tool", `{}`),
}

// wireIDs are the ids of wireScript's requests, in order.
var wireIDs = []string{`"list"`, `"find"`, `"get"`, `"outline"`, `"read"`, `"refs"`, `"page"`, `"missing"`, `"bad"`, `"unknown"`}

// TestWireSwitch: with the wire fast paths on (the default) and off
// (SEXTANT_WIRE=plain), the bytes a client reads decode to the same
// messages, on stdio and over streamable HTTP; on, every message is
// ASCII and the tool results went out prebuilt on stdio; off, the
// characters are written as they are and nothing is prebuilt.
func TestWireSwitch(t *testing.T) {
	h := newHarness(t, nonASCIIFiles)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var decoded [2][]any
			for i, mode := range []string{"", "plain"} {
				t.Setenv(WireEnv, mode)
				s := h.server(t)
				var lines [][]byte
				if transport == "stdio" {
					lines = stdioWireLines(t, newStdioSession(t, s))
				} else {
					lines = httpWireLines(t, s)
				}
				pb, registered := servers.Load(s)
				switch {
				case mode == "" && !registered:
					t.Fatal("fast wire: New registered no prebuilt results")
				case mode == "plain" && registered:
					t.Fatal("plain wire: New registered prebuilt results")
				case mode == "" && transport == "stdio":
					p := pb.(*prebuiltResults)
					p.mu.Lock()
					n := p.next
					p.mu.Unlock()
					if n == 0 {
						t.Error("fast wire on stdio: no tool result went out prebuilt")
					}
				}
				nonASCII := false
				for _, l := range lines {
					if !isASCII(l) {
						nonASCII = true
						if mode == "" {
							t.Errorf("fast wire: a message is not ASCII: %.300s", l)
						}
					}
					var v any
					if err := json.Unmarshal(l, &v); err != nil {
						t.Fatalf("wire %q: a message is not JSON: %v: %.300s", mode, err, l)
					}
					decoded[i] = append(decoded[i], normalize(v))
				}
				if mode == "plain" && !nonASCII {
					t.Error("plain wire: every message is ASCII, so the escaping is still on")
				}
			}
			if len(decoded[0]) != len(wireIDs) || len(decoded[1]) != len(wireIDs) {
				t.Fatalf("%d and %d messages, want %d", len(decoded[0]), len(decoded[1]), len(wireIDs))
			}
			// The script reaches every kind of answer.
			for k, want := range map[int]string{
				1: `"total":1`, 2: `"qualified_name":"Größe"`, 4: `return Größe() + \"é\"`, 5: `"total":1`,
				6: `"next_cursor":"`, 7: `"code":"SYMBOL_NOT_FOUND"`, 8: `"code":"INVALID_ARGUMENT"`, 9: `"error":{"code":-32602`,
			} {
				b, _ := json.Marshal(decoded[1][k])
				if !strings.Contains(strings.ReplaceAll(string(b), `\u0026`, "&"), want) {
					t.Errorf("answer %s holds no %s: %.1000s", wireIDs[k], want, b)
				}
			}
			for k := range wireIDs {
				if !reflect.DeepEqual(decoded[0][k], decoded[1][k]) {
					a, _ := json.Marshal(decoded[0][k])
					b, _ := json.Marshal(decoded[1][k])
					t.Errorf("answer %s differs:\nfast  %.2000s\nplain %.2000s", wireIDs[k], a, b)
				}
			}
		})
	}
}

// stdioWireLines sends wireScript on ss and returns the answers' lines
// in its order.
func stdioWireLines(t *testing.T, ss *stdioSession) [][]byte {
	t.Helper()
	byID := map[string][]byte{}
	for i, line := range wireScript {
		ss.send(t, line)
		for byID[wireIDs[i]] == nil {
			var l []byte
			select {
			case l = <-ss.lines:
			case <-time.After(testTimeout):
				t.Fatalf("no answer to %s", wireIDs[i])
			}
			var m struct{ ID json.RawMessage }
			if err := json.Unmarshal(l, &m); err == nil && m.ID != nil {
				byID[string(m.ID)] = l
			}
		}
	}
	var lines [][]byte
	for _, id := range wireIDs {
		lines = append(lines, bytes.TrimSpace(byID[id]))
	}
	return lines
}

// postMCP POSTs one JSON-RPC message to a streamable HTTP endpoint at
// protocol 2025-11-25, in the MCP session named (none when ""), and
// returns the status, the session the response names, its content type
// and its body.
func postMCP(t testing.TB, client *http.Client, url, session, body string) (status int, sessionID, contentType string, respBody []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %.200q: %v", body, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), resp.Header.Get("Content-Type"), b
}

// httpWireLines serves s over streamable HTTP, opens a session with raw
// POSTs and returns the JSON-RPC message of each answer to wireScript, as
// the body carried it (a JSON body, or the data of an event stream).
func httpWireLines(t *testing.T, s *mcp.Server) [][]byte {
	t.Helper()
	srv := httptest.NewServer(NewHTTPHandler(s, HTTPOptions{}))
	t.Cleanup(srv.Close)
	client := &http.Client{Timeout: testTimeout}
	post := func(session, body string) (string, []byte) {
		_, id, ct, b := postMCP(t, client, srv.URL, session, body)
		if !strings.HasPrefix(ct, "text/event-stream") {
			return id, bytes.TrimSpace(b)
		}
		var data []byte
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				data = append(data, bytes.TrimSpace(d)...)
			}
		}
		return id, data
	}
	session, _ := post("", initBody)
	if session == "" {
		t.Fatal("initialize over HTTP opened no session")
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var lines [][]byte
	for _, line := range wireScript {
		_, b := post(session, line)
		lines = append(lines, b)
	}
	return lines
}

// normalize zeroes what differs between two runs of the same calls: how
// long ago the snapshot was published (the text renderings of the tools
// called do not show it).
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "snapshot_age_ms" {
				v[k] = 0
				continue
			}
			v[k] = normalize(e)
		}
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
	}
	return v
}
