package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testTimeout = 30 * time.Second

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post sends one initialize (or body) to url with the given headers and
// returns the status.
func post(t *testing.T, url, body string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func newHTTPServer(t *testing.T, o HTTPOptions) *httptest.Server {
	t.Helper()
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	srv := httptest.NewServer(NewHTTPHandler(h.server(t), o))
	t.Cleanup(srv.Close)
	return srv
}

// TestHTTPHostAndOrigin: on loopback, a Host that is not loopback (DNS
// rebinding) and a cross-origin browser request are refused; a
// same-origin browser request and a non-browser client are served.
func TestHTTPHostAndOrigin(t *testing.T) {
	srv := newHTTPServer(t, HTTPOptions{})
	self := srv.URL // http://127.0.0.1:PORT
	cases := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"plain client", nil, http.StatusOK},
		{"localhost Host", map[string]string{"Host": "localhost" + strings.TrimPrefix(self, "http://127.0.0.1")}, http.StatusOK},
		{"rebinding Host", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"rebinding Host with port", map[string]string{"Host": "evil.example:80"}, http.StatusForbidden},
		{"cross-site fetch", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"cross origin, old browser", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"same origin", map[string]string{"Origin": self, "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		{"rebinding Host at 2026-07-28", map[string]string{"Host": "evil.example", "Mcp-Protocol-Version": "2026-07-28"}, http.StatusForbidden},
		{"cross-site fetch at 2026-07-28", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Mcp-Protocol-Version": "2026-07-28"}, http.StatusForbidden},
	}
	for _, c := range cases {
		if got := post(t, self, initBody, c.header); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
}

// TestHTTPToken: with a token, requests without it or with another are
// 401; with it they are served, and the SDK client connects with it.
func TestHTTPToken(t *testing.T) {
	srv := newHTTPServer(t, HTTPOptions{Token: "s3cret"})
	for _, c := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer s3cret2", http.StatusUnauthorized},
		{"bearer s3cret", http.StatusUnauthorized},
		{"Basic czNjcmV0", http.StatusUnauthorized},
		{"Bearer s3cret", http.StatusOK},
	} {
		h := map[string]string{}
		if c.auth != "" {
			h["Authorization"] = c.auth
		}
		if got := post(t, srv.URL, initBody, h); got != c.want {
			t.Errorf("Authorization %q: status %d, want %d", c.auth, got, c.want)
		}
		// Protocol 2026-07-28 goes to the stateless handler, behind the
		// same checks.
		h["Mcp-Protocol-Version"] = "2026-07-28"
		if got := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, h); c.want == http.StatusUnauthorized && got != c.want {
			t.Errorf("Authorization %q at 2026-07-28: status %d, want %d", c.auth, got, c.want)
		}
	}
	hc := &http.Client{Transport: bearer{"s3cret"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "find_symbol", Arguments: map[string]any{"name": "P"}}); err != nil {
		t.Fatal(err)
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPBodyLimit: a 5 MB body is refused with 413 before it is read
// whole; a body under the limit is served.
func TestHTTPBodyLimit(t *testing.T) {
	srv := newHTTPServer(t, HTTPOptions{})
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("a", 5<<20) + `"}}`
	if got := post(t, srv.URL, big, nil); got != http.StatusRequestEntityTooLarge {
		t.Errorf("5 MB body: status %d, want 413", got)
	}
	if got := post(t, srv.URL, initBody, nil); got != http.StatusOK {
		t.Errorf("small body after a big one: status %d", got)
	}
}

// TestHTTPResponseLimit: an answer past the response limit is not sent,
// not even in part.
func TestHTTPResponseLimit(t *testing.T) {
	var writeErr error
	h := limitResponse(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := w.Write([]byte(strings.Repeat("x", 50)))
		if err != nil {
			t.Errorf("first write under the limit: %v", err)
		}
		_, writeErr = w.Write([]byte(strings.Repeat("y", 100)))
	}), 100)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if writeErr == nil {
		t.Fatal("the write past the limit succeeded")
	}
	if got := rec.Body.String(); got != strings.Repeat("x", 50) {
		t.Errorf("body %q: want only what fitted", got)
	}
	// A whole server with a tiny limit: the client gets an error, not a
	// cut answer.
	srv := newHTTPServer(t, HTTPOptions{MaxResponseBytes: 200})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	if err == nil {
		defer cs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if _, err := cs.ListTools(ctx, nil); err == nil {
			t.Error("tools/list (KBs) passed a 200-byte response limit")
		}
	}
}

// TestHTTPPerClientLimit: one client never has more than n requests in
// the handler at once (the others wait and are then served), and a
// client at its limit does not hold up another.
func TestHTTPPerClientLimit(t *testing.T) {
	const n = 3
	var (
		inFlight, peak atomic.Int32
		release        = make(chan struct{})
		entered        = make(chan string, 100)
	)
	h := limitPerClient(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		sess := r.Header.Get("Mcp-Session-Id")
		if sess == "A" {
			for {
				p := peak.Load()
				if cur <= p || peak.CompareAndSwap(p, cur) {
					break
				}
			}
			entered <- sess
			<-release
		}
		fmt.Fprint(w, "ok")
	}), n)
	srv := httptest.NewServer(h)
	defer srv.Close()
	send := func(session string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		req.Header.Set("Mcp-Session-Id", session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	const total = 20
	var wg sync.WaitGroup
	for range total {
		wg.Add(1)
		go func() { defer wg.Done(); send("A") }()
	}
	for range n {
		<-entered // client A is at its limit, all n inside the handler
	}
	if got := send("B"); got != http.StatusOK { // B is served while A's requests wait
		t.Errorf("client B while A is at its limit: %d", got)
	}
	close(release)
	wg.Wait()
	if p := peak.Load(); p > n {
		t.Errorf("client A had %d requests in the handler at once, limit %d", p, n)
	}
	if got := len(entered) + n; got != total {
		t.Errorf("%d of client A's %d requests were served", got, total)
	}

	// Without a session, a remote host is one client; loopback is not
	// limited.
	var hostPeak, cur atomic.Int32
	gate := make(chan struct{})
	arrived := make(chan struct{}, 100)
	h2 := limitPerClient(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := cur.Add(1)
		defer cur.Add(-1)
		for p := hostPeak.Load(); c > p && !hostPeak.CompareAndSwap(p, c); p = hostPeak.Load() {
		}
		arrived <- struct{}{}
		<-gate
	}), n)
	var wg2 sync.WaitGroup
	serve := func(remote string) {
		defer wg2.Done()
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
		r.RemoteAddr = remote
		h2.ServeHTTP(httptest.NewRecorder(), r)
	}
	for i := range 2 * n {
		wg2.Add(1)
		go serve(fmt.Sprintf("127.0.0.1:%d", 40000+i))
	}
	for range 2 * n {
		<-arrived // all of loopback's requests are inside at once
	}
	close(gate)
	wg2.Wait()
	gate = make(chan struct{})
	hostPeak.Store(0)
	for i := range 2 * n {
		wg2.Add(1)
		go serve(fmt.Sprintf("192.0.2.7:%d", 40000+i))
	}
	for range n {
		<-arrived
	}
	close(gate)
	wg2.Wait()
	for range n {
		<-arrived
	}
	if p := hostPeak.Load(); p > n {
		t.Errorf("a remote host without a session had %d requests in at once, limit %d", p, n)
	}
}

// FuzzHTTPBody posts arbitrary bodies in an initialized session. The
// server answers each with a status a client can act on (never a 5xx),
// and the session keeps answering.
func FuzzHTTPBody(f *testing.F) {
	h := newHarness(f, loadFixture())
	srv := httptest.NewServer(NewHTTPHandler(h.server(f), HTTPOptions{}))
	f.Cleanup(srv.Close)
	client := &http.Client{Timeout: testTimeout}
	do := func(t testing.TB, session, body string) (int, string, string) {
		status, id, _, b := postMCP(t, client, srv.URL, session, body)
		return status, id, string(b)
	}
	status, session, _ := do(f, "", initBody)
	if status != http.StatusOK || session == "" {
		f.Fatalf("initialize: %d, session %q", status, session)
	}
	do(f, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, s := range []string{"", "{}", "[]", "null", "hello", initBody,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_symbol","arguments":{"name":"P"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_symbol","arguments":{"name":"P","name":"Q"}}}`,
		`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\xff\"}", `{"jsonrpc":"2.0","id":7,"result":{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		status, _, got := do(t, session, body)
		if status >= 500 {
			t.Fatalf("POST %.200q: %d %.300s", body, status, got)
		}
		status, _, got = do(t, session, `{"jsonrpc":"2.0","id":"alive","method":"ping"}`)
		if status != http.StatusOK || !strings.Contains(got, `"alive"`) {
			t.Fatalf("after POST %.200q the session does not answer: %d %.300s", body, status, got)
		}
	})
}
