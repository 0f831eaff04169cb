package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestHTTPSessionBounds: sessions are bounded in all and per remote host;
// an initialize past a bound is refused with a JSON-RPC error naming it,
// and a session that ends, or idles past the session timeout, frees its
// place.
func TestHTTPSessionBounds(t *testing.T) {
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	s := h.server(t)

	t.Run("in all", func(t *testing.T) {
		hh := NewHTTPHandler(s, HTTPOptions{MaxSessions: 3})
		var ids []string
		for i := range 3 {
			status, id, body := initialize(t, hh, fmt.Sprintf("127.0.0.1:%d", 41000+i))
			if status != http.StatusOK || id == "" {
				t.Fatalf("initialize %d of 3: %d %.200s", i+1, status, body)
			}
			ids = append(ids, id)
		}
		status, _, body := initialize(t, hh, "127.0.0.1:41010")
		refusal(t, "a 4th session with 3 allowed", status, body, http.StatusServiceUnavailable, "3 sessions")
		endSession(t, hh, ids[0])
		var status2 int
		for range 100 { // the session's end is noticed in the background
			if status2, _, _ = initialize(t, hh, "127.0.0.1:41011"); status2 == http.StatusOK {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if status2 != http.StatusOK {
			t.Errorf("initialize after a session ended: %d", status2)
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
		for i := range 2 {
			if status, _, body := initialize(t, hh, fmt.Sprintf("127.0.0.1:%d", 43000+i)); status != http.StatusOK {
				t.Fatalf("initialize %d of 2: %d %.200s", i+1, status, body)
			}
		}
		status, _, body := initialize(t, hh, "127.0.0.1:43010")
		refusal(t, "a 3rd session with 2 allowed", status, body, http.StatusServiceUnavailable, "2 sessions")
		time.Sleep(idle + 200*time.Millisecond)
		for i := range 2 {
			if status, _, body := initialize(t, hh, fmt.Sprintf("127.0.0.1:%d", 43020+i)); status != http.StatusOK {
				t.Errorf("initialize %d after the idle sessions expired: %d %.200s", i+1, status, body)
			}
		}
	})
}
