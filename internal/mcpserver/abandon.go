package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// cancelOnClose cancels the calls of a POST whose client closed its
// connection before their answers were sent. The SDK runs the calls of a
// session (protocol versions before 2026-07-28) on the session's context,
// not the POST's, so that an answer could be resumed on another stream;
// this server keeps no event store, so an answer whose POST is gone
// reaches nobody, and its work (indexing, a wide search) would go on for
// nobody. The cancellation is the client's own protocol message,
// notifications/cancelled, posted to the session on its behalf.
//
// It needs the body buffered (readBody).
func cancelOnClose(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodPost || session == "" || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
		if r.Context().Err() == nil {
			return // answered, or the server is shutting down with the session
		}
		for _, id := range callIDs(body) {
			note, _ := json.Marshal(map[string]any{
				"jsonrpc": "2.0", "method": "notifications/cancelled",
				"params": map[string]any{"requestId": id, "reason": "the client closed its connection"},
			})
			ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL.String(), bytes.NewReader(note))
			if err == nil {
				req.Header = r.Header.Clone()
				req.Header.Del("Content-Length")
				req.Host = r.Host
				req.RemoteAddr = r.RemoteAddr
				next.ServeHTTP(discard{header: http.Header{}}, req)
			}
			cancel()
		}
	})
}

// callIDs returns the ids of the calls (requests with an id) in a body.
func callIDs(body []byte) []json.RawMessage {
	var ids []json.RawMessage
	for _, m := range requestsIn(body) {
		if _, ok := idKey(m.ID); ok && m.Method != nil {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// discard is a ResponseWriter for a request the server makes to itself.
type discard struct{ header http.Header }

func (d discard) Header() http.Header         { return d.header }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}
