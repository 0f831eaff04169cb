package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Request ids. The SDK keeps a number id as a float64 and answers it as
// an int64, so 1.5 would be answered as 1 and 2^53+1 as 2^53: the client
// could not match the answer, or would match it to another request.
// JSON-RPC says number ids SHOULD NOT have fractional parts; a request
// whose id the answer could not carry exactly is refused here, its id
// echoed as written.

// maxExactID is the largest magnitude of an integer id a float64 holds
// exactly.
const maxExactID = 1<<53 - 1

// badID says why a request's id (as written, absent or null included)
// cannot be echoed exactly, or "" when it can.
func badID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '"' || raw[0] == 'n' || raw[0] == '{' || raw[0] == '[' || raw[0] == 't' || raw[0] == 'f' {
		return "" // strings and no id are fine; other non-numbers the SDK refuses itself
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n >= -maxExactID && n <= maxExactID && string(raw) == strconv.FormatInt(n, 10) {
		return ""
	}
	return fmt.Sprintf("Invalid Request: the id %s is not an integer of at most %d in magnitude, the ids this server echoes exactly; use a string or such an integer", raw, int64(maxExactID))
}

// requestShape is what the id rules read of a message.
type requestShape struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// idKey names a request id for the in-flight set: a string or an integer.
func idKey(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return "", false
	}
	return "n" + strconv.FormatInt(n, 10), true
}

// keyOf is idKey for an id the SDK decoded.
func keyOf(id jsonrpc.ID) (string, bool) {
	switch v := id.Raw().(type) {
	case string:
		return "s" + v, true
	case int64:
		return "n" + strconv.FormatInt(v, 10), true
	}
	return "", false
}

// inflight is the set of request ids a stdio session is handling. JSON-RPC
// ids name one request each while it runs; the SDK answers a second
// request with an id in use with an error under no id, which the stdio
// transport drops, so that client waited forever. Here the second request
// is answered at once with an error under its id, and the first runs on.
//
// It also remembers which of them the client cancelled: MCP says the
// receiver of a cancellation should not answer the request, and the
// answer of a call cancelled midway is whatever its cancelled work
// returned (INTERNAL: context canceled, or INDEX_NOT_READY), which the
// client would take for the tool's verdict if it still read it.
type inflight struct {
	mu  sync.Mutex
	ids map[string]bool // in flight; true once cancelled
}

// A nil *inflight tracks nothing.

// admit checks a request line's id and records it in flight; it returns
// the error reply for a line refused, or nil.
func (c *inflight) admit(line []byte) []byte {
	if c == nil {
		return nil
	}
	var m requestShape
	if json.Unmarshal(line, &m) != nil || m.Method == nil {
		return nil // not a request: the SDK's to handle
	}
	if msg := badID(m.ID); msg != "" {
		return errorReply(m.ID, -32600, msg)
	}
	key, ok := idKey(m.ID)
	if !ok {
		if *m.Method == "notifications/cancelled" {
			c.cancel(line)
		}
		return nil // a notification
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, busy := c.ids[key]; busy {
		return errorReply(m.ID, -32600, fmt.Sprintf("Invalid Request: the id %s is in use by a request still in progress; give each request its own id", bytes.TrimSpace(m.ID)))
	}
	if c.ids == nil {
		c.ids = map[string]bool{}
	}
	c.ids[key] = false
	return nil
}

// cancel marks the request a notifications/cancelled line names, when it
// is in flight.
func (c *inflight) cancel(line []byte) {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil {
		return
	}
	key, ok := idKey(n.Params.RequestID)
	if !ok {
		return
	}
	c.mu.Lock()
	if _, busy := c.ids[key]; busy {
		c.ids[key] = true
	}
	c.mu.Unlock()
}

// done records that the request id is answered, and reports whether the
// client cancelled it (its answer is then not sent).
func (c *inflight) done(id jsonrpc.ID) (cancelled bool) {
	key, ok := keyOf(id)
	if c == nil || !ok {
		return false
	}
	c.mu.Lock()
	cancelled = c.ids[key]
	delete(c.ids, key)
	c.mu.Unlock()
	return cancelled
}

// transport wraps a session's transport so that each answer it writes
// ends its id's time in flight, and the answer to a request the client
// cancelled is not written.
func (c *inflight) transport(t mcp.Transport) mcp.Transport { return idTransport{t, c} }

type idTransport struct {
	mcp.Transport
	calls *inflight
}

func (t idTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &idConn{conn, t.calls}, nil
}

type idConn struct {
	mcp.Connection
	calls *inflight
}

func (c *idConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() && c.calls.done(resp.ID) { // before the write: the peer may reuse the id at once
		return nil // cancelled by the client: not answered
	}
	return c.Connection.Write(ctx, msg)
}

// refuseBadIDs returns the error reply to an HTTP body's first request
// whose id could not be echoed exactly, or nil. A body that is not
// JSON-RPC is the SDK's to refuse.
func refuseBadIDs(body []byte) []byte {
	for _, m := range requestsIn(body) {
		if msg := badID(m.ID); m.Method != nil && msg != "" {
			return errorReply(m.ID, -32600, msg)
		}
	}
	return nil
}

// requestsIn decodes the messages of an HTTP body, one or a batch, as far
// as the id rules read them; nil when the body is not JSON.
func requestsIn(body []byte) []requestShape {
	body = bytes.TrimSpace(body)
	var msgs []requestShape
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return nil
		}
		return msgs
	}
	var m requestShape
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return []requestShape{m}
}
