package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/query"
)

// holdTool is a tool that answers only once released (or its call is
// cancelled): a call that stays in flight for as long as a test needs.
func holdTool(entered chan<- struct{}, release <-chan struct{}) query.Tool {
	return query.Tool{Name: "hold", Title: "Hold", Description: "answers when released", ReadOnly: true, Idempotent: true,
		Input: reflect.TypeFor[struct{}](), Output: reflect.TypeFor[query.ListRepositoriesOutput](),
		Call: func(ctx context.Context, _ *query.Service, _ json.RawMessage, _ func(query.Progress)) (query.Answer, error) {
			entered <- struct{}{}
			select {
			case <-release:
				return &query.ListRepositoriesOutput{}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}}
}

// rawReply is one message the server wrote, with its id as written.
type rawReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// badIDs are request ids a server must not answer under another id:
// JSON-RPC says number ids SHOULD NOT have fractional parts, and the
// SDK keeps an id as float64 and then as int64, so 1.5 came back as 1
// and 2^53+1 as 2^53.
var badIDs = []string{`1.5`, `-0.5`, `1e-3`, `2.0000001`, `9007199254740993`}

// checkBadIDReply: the reply to a request with a bad id is an error (id
// null, or the id exactly as sent) or a result under exactly that id.
func checkBadIDReply(t *testing.T, id string, replies []rawReply) {
	t.Helper()
	if len(replies) != 1 {
		t.Errorf("id %s: %d replies, want 1: %+v", id, len(replies), replies)
		return
	}
	r := replies[0]
	switch got := string(r.ID); {
	case r.Error != nil && (got == "null" || got == id):
	case r.Error == nil && got == id:
	default:
		t.Errorf("id %s: answered with id %s (error %v): an id must be echoed exactly, or the request refused", id, got, r.Error)
	}
}

// TestStdioRequestIDs: a request whose id is already in flight gets an
// error at once (the client would otherwise wait forever), the first
// request still gets its answer; an id that is not a string or an
// integer JSON-RPC can echo is refused or echoed exactly, never rounded.
func TestStdioRequestIDs(t *testing.T) {
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	entered, release := make(chan struct{}, 1), make(chan struct{})
	ss := newStdioSession(t, h.server(t, holdTool(entered, release)))

	for i, id := range badIDs {
		ss.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		mark := fmt.Sprintf(`"mark-%d"`, i)
		ss.send(t, `{"jsonrpc":"2.0","id":`+mark+`,"method":"ping"}`)
		var replies []rawReply
		for done := false; !done; {
			select {
			case l := <-ss.lines:
				var r rawReply
				if err := json.Unmarshal(l, &r); err != nil {
					t.Fatalf("not a JSON object: %q", l)
				}
				if string(r.ID) == mark {
					done = true
				} else {
					replies = append(replies, r)
				}
			case <-time.After(testTimeout):
				t.Fatalf("no answer to %s", mark)
			}
		}
		checkBadIDReply(t, id, replies)
	}

	ss.send(t, callLine("41", "hold", "{}"))
	<-entered
	ss.send(t, `{"jsonrpc":"2.0","id":41,"method":"ping"}`)
	if m := ss.until(t, "41"); m["error"] == nil {
		t.Errorf("a request reusing the in-flight id 41 was answered %v, want an error", m)
	}
	close(release)
	if m := ss.until(t, "41"); m["result"] == nil {
		t.Errorf("the call in flight under id 41: %v, want its result", m)
	}
	ss.send(t, `{"jsonrpc":"2.0","id":41,"method":"ping"}`) // free again
	if m := ss.until(t, "41"); m["error"] != nil {
		t.Errorf("id 41 after its call ended: %v", m)
	}
}

// httpSession is a raw client of one initialized streamable HTTP session.
type httpSession struct {
	url, id string
	client  *http.Client
}

func newHTTPSession(t *testing.T, url string) *httpSession {
	t.Helper()
	s := &httpSession{url: url, client: &http.Client{Timeout: testTimeout}}
	status, id, _, body := postMCP(t, s.client, url, "", initBody)
	if s.id = id; status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q: %.200s", status, id, body)
	}
	postMCP(t, s.client, url, s.id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// replies posts body in the session and returns the status and the
// JSON-RPC messages of the answer (a JSON body or the data lines of an
// event stream).
func (s *httpSession) replies(t *testing.T, body string) (int, []rawReply) {
	t.Helper()
	status, _, _, b := postMCP(t, s.client, s.url, s.id, body)
	var out []rawReply
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "data:")
		if !strings.HasPrefix(strings.TrimSpace(line), "{") {
			continue
		}
		var r rawReply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON object in the answer: %q", line)
		}
		out = append(out, r)
	}
	return status, out
}

// TestHTTPRequestIDs: the same rules over streamable HTTP.
func TestHTTPRequestIDs(t *testing.T) {
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	entered, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(NewHTTPHandler(h.server(t, holdTool(entered, release)), HTTPOptions{}))
	t.Cleanup(srv.Close)
	s := newHTTPSession(t, srv.URL)

	held := make(chan []rawReply, 1)
	go func() {
		_, r := s.replies(t, callLine("41", "hold", "{}"))
		held <- r
	}()
	<-entered
	if _, r := s.replies(t, `{"jsonrpc":"2.0","id":41,"method":"ping"}`); len(r) != 1 || r[0].Error == nil || string(r[0].ID) != "41" {
		t.Errorf("a request reusing the in-flight id 41 got %+v, want an error with id 41", r)
	}
	close(release)
	if r := <-held; len(r) != 1 || r[0].Result == nil {
		t.Errorf("the call in flight under id 41 got %+v, want its result", r)
	}

	for _, id := range badIDs {
		_, r := s.replies(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		checkBadIDReply(t, id, r)
	}
}
