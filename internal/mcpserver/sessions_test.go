package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// initialize posts an initialize to h as the given remote address and
// returns the status, the session id and the body.
func initialize(t *testing.T, h http.Handler, remote string) (int, string, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(initBody))
	r.RemoteAddr = remote
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Header().Get("Mcp-Session-Id"), w.Body.String()
}

// endSession ends a session as a client does (DELETE).
func endSession(t *testing.T, h http.Handler, id string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodDelete, "/", nil)
	r.RemoteAddr = "127.0.0.1:40000"
	r.Header.Set("Mcp-Session-Id", id)
	r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusNoContent {
		t.Fatalf("DELETE session: %d %s", w.Code, w.Body)
	}
}

// refusal checks an initialize refused for a session bound: the status,
// and a JSON-RPC error under the initialize's id that names the bound.
func refusal(t *testing.T, what string, status int, body string, wantStatus int, wantText string) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &m)
	if status != wantStatus || m.Error == nil || string(m.ID) != "1" || !strings.Contains(m.Error.Message, wantText) {
		t.Errorf("%s: %d %.300s; want %d with a JSON-RPC error under id 1 naming %q", what, status, body, wantStatus, wantText)
	}
}

// TestHTTPSessionBounds: sessions are bounded in all and per remote host.
// An initialize past the bound in all closes an idle session to make
// room (TestHTTPSessionEviction); one past a host's bound is refused with
// a JSON-RPC error naming it. A session that ends, or idles past the
// session timeout, frees its place.
func TestHTTPSessionBounds(t *testing.T) {
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	s := h.server(t)

	t.Run("in all", func(t *testing.T) {
		hh := NewHTTPHandler(s, HTTPOptions{MaxSessions: 3})
		var ids []string
		for i := range 4 {
			status, id, body := initialize(t, hh, fmt.Sprintf("127.0.0.1:%d", 41000+i))
			if status != http.StatusOK || id == "" {
				t.Fatalf("initialize %d with 3 allowed: %d %.200s", i+1, status, body)
			}
			ids = append(ids, id)
		}
		// The 4th closed the 1st; ending the 2nd frees a place, so a 5th
		// closes nobody.
		r := httptest.NewRequest(http.MethodDelete, "/", nil)
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("Mcp-Session-Id", ids[0])
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		w := httptest.NewRecorder()
		if hh.ServeHTTP(w, r); w.Code != http.StatusNotFound {
			t.Errorf("the session closed to make room: DELETE %d, want 404", w.Code)
		}
		endSession(t, hh, ids[1])
		if status, _, body := initialize(t, hh, "127.0.0.1:41010"); status != http.StatusOK {
			t.Fatalf("initialize after a session ended: %d %.200s", status, body)
		}
		for _, id := range ids[2:] {
			endSession(t, hh, id)
		}
	})

	t.Run("per client", func(t *testing.T) {
		hh := NewHTTPHandler(s, HTTPOptions{MaxSessions: 10, MaxSessionsPerClient: 2})
		for i := range 2 {
			if status, _, body := initialize(t, hh, fmt.Sprintf("192.0.2.7:%d", 42000+i)); status != http.StatusOK {
				t.Fatalf("initialize %d of 2 from one host: %d %.200s", i+1, status, body)
			}
		}
		status, _, body := initialize(t, hh, "192.0.2.7:42010")
		refusal(t, "a 3rd session from one host with 2 allowed", status, body, http.StatusTooManyRequests, "2 sessions")
		if status, _, body := initialize(t, hh, "192.0.2.8:42000"); status != http.StatusOK {
			t.Errorf("another host while the first is at its bound: %d %.200s", status, body)
		}
		for i := range 3 { // local clients are not told apart: only the bound in all
			if status, _, body := initialize(t, hh, fmt.Sprintf("127.0.0.1:%d", 42100+i)); status != http.StatusOK {
				t.Errorf("local session %d: %d %.200s", i+1, status, body)
			}
		}
	})

	t.Run("idle", func(t *testing.T) {
		const idle = 300 * time.Millisecond
		hh := NewHTTPHandler(s, HTTPOptions{MaxSessions: 2, SessionTimeout: idle})
		var ids []string
		for i := range 2 {
			status, id, body := initialize(t, hh, fmt.Sprintf("127.0.0.1:%d", 43000+i))
			if status != http.StatusOK {
				t.Fatalf("initialize %d of 2: %d %.200s", i+1, status, body)
			}
			ids = append(ids, id)
		}
		time.Sleep(idle + 200*time.Millisecond)
		for _, id := range ids {
			r := httptest.NewRequest(http.MethodDelete, "/", nil)
			r.RemoteAddr = "127.0.0.1:43010"
			r.Header.Set("Mcp-Session-Id", id)
			r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			w := httptest.NewRecorder()
			if hh.ServeHTTP(w, r); w.Code != http.StatusNotFound {
				t.Errorf("a session idle past the timeout: DELETE %d, want 404", w.Code)
			}
		}
		for i := range 2 {
			if status, _, body := initialize(t, hh, fmt.Sprintf("127.0.0.1:%d", 43020+i)); status != http.StatusOK {
				t.Errorf("initialize %d after the idle sessions expired: %d %.200s", i+1, status, body)
			}
		}
	})
}

// TestHTTPSessionEviction: one loopback client filling the session table
// does not lock others out. A new client's initialize closes the least
// recently used idle session, whose next request gets 404 saying so (the
// MCP transport's answer for an unknown session); a session with a call
// in flight is never closed, and when every session has one the
// initialize is refused.
func TestHTTPSessionEviction(t *testing.T) {
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	entered, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(NewHTTPHandler(h.server(t, holdTool(entered, release)), HTTPOptions{MaxSessions: 3}))
	t.Cleanup(srv.Close)
	free := sync.OnceFunc(func() { close(release) })
	t.Cleanup(free) // before the server closes, whatever failed
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	pings := func(s *httpSession) bool {
		status, r := s.replies(t, ping)
		return status == http.StatusOK && len(r) == 1 && r[0].Error == nil
	}

	busy, recent, oldest := newHTTPSession(t, srv.URL), newHTTPSession(t, srv.URL), newHTTPSession(t, srv.URL)
	held := make(chan []rawReply, 1)
	go func() { _, r := busy.replies(t, callLine("41", "hold", "{}")); held <- r }()
	<-entered // the first session, the least recently used, has a call in flight
	if !pings(recent) {
		t.Fatal("ping in the second session failed")
	}

	newcomer := newHTTPSession(t, srv.URL) // fails the test if refused
	if !pings(newcomer) {
		t.Error("the session opened in a full table does not answer a ping")
	}
	status, _, _, body := postMCP(t, oldest.client, srv.URL, oldest.id, ping)
	if status != http.StatusNotFound || !strings.Contains(string(body), "session not found") || !strings.Contains(string(body), "least recently used") {
		t.Errorf("the least recently used idle session, after it was closed: %d %.300s; want 404 session not found, saying why", status, body)
	}
	if !pings(recent) {
		t.Error("a more recently used session was closed")
	}
	free()
	if r := <-held; len(r) != 1 || r[0].Result == nil {
		t.Errorf("the call in flight in the least recently used session got %+v, want its result", r)
	}

	// Every session with a call in flight: nothing to close, refused.
	entered2, release2 := make(chan struct{}, 1), make(chan struct{})
	srv2 := httptest.NewServer(NewHTTPHandler(h.server(t, holdTool(entered2, release2)), HTTPOptions{MaxSessions: 1}))
	t.Cleanup(srv2.Close)
	free2 := sync.OnceFunc(func() { close(release2) })
	t.Cleanup(free2)
	only := newHTTPSession(t, srv2.URL)
	done := make(chan struct{})
	go func() { defer close(done); only.replies(t, callLine("42", "hold", "{}")) }()
	<-entered2
	status2, _, body2 := initialize(t, srv2.Config.Handler, "127.0.0.1:44000")
	refusal(t, "an initialize while the only session has a call in flight", status2, body2, http.StatusServiceUnavailable, "1 sessions")
	free2()
	<-done
}

// A DELETE the transport refuses ends no session, so the session keeps
// its place: it cannot be used to hold sessions past the bound.
func TestHTTPRefusedDeleteKeepsPlace(t *testing.T) {
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	srv := httptest.NewServer(NewHTTPHandler(h.server(t), HTTPOptions{MaxSessions: 1}))
	t.Cleanup(srv.Close)
	first := newHTTPSession(t, srv.URL)
	req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	req.Header.Set("Mcp-Session-Id", first.id)
	req.Header.Set("Mcp-Protocol-Version", "1999-01-01")
	resp, err := first.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Fatalf("a DELETE with an unknown protocol version: %d, want it refused", resp.StatusCode)
	}
	newHTTPSession(t, srv.URL)
	if status, _, _, body := postMCP(t, first.client, srv.URL, first.id, `{"jsonrpc":"2.0","id":7,"method":"ping"}`); status != http.StatusNotFound {
		t.Errorf("the first session, in a table of 1 after a second opened: %d %.200s; want 404", status, body)
	}
}
