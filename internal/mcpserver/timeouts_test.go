package mcpserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// newTimedServer serves the handler through NewHTTPServer, so that the
// connection-level limits of o apply as they do in sextant serve.
func newTimedServer(t *testing.T, o HTTPOptions) *httptest.Server {
	t.Helper()
	h := newHarness(t, map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": "package p\n\nfunc P() {}\n"})
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = NewHTTPServer(NewHTTPHandler(h.server(t), o), o)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// rawConn opens a TCP connection to addr and writes text, which may stop
// anywhere (a stalled client).
func rawConn(t *testing.T, addr, text string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, text); err != nil {
		t.Fatal(err)
	}
	return c
}

// answer reads the response on c within limit, and then whether the server
// closed the connection within limit too; status 0 when no response came.
func answer(t *testing.T, c net.Conn, limit time.Duration) (status int, closed bool, took time.Duration) {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
	}
	_, err = br.ReadByte()
	closed = err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
	return status, closed, time.Since(start)
}

// stalledPost is a POST whose body stops after its first byte.
func stalledPost(auth string) string {
	return "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		auth + "Content-Length: 1000\r\n\r\n{"
}

// TestHTTPUnauthenticatedRefusedBeforeBody: on a server with a token, a
// request without it is refused at once, its body unread, and its
// connection closed; a stalled body cannot hold it open. So is a
// cross-origin browser request.
func TestHTTPUnauthenticatedRefusedBeforeBody(t *testing.T) {
	srv := newTimedServer(t, HTTPOptions{Token: "s3cret", BodyTimeout: time.Minute})
	for _, c := range []struct {
		header string
		want   int
	}{
		{"", http.StatusUnauthorized},
		{"Authorization: Bearer wrong\r\n", http.StatusUnauthorized},
		{"Authorization: Bearer s3cret\r\nOrigin: http://evil.example\r\nSec-Fetch-Site: cross-site\r\n", http.StatusForbidden},
	} {
		conn := rawConn(t, srv.Listener.Addr().String(), stalledPost(c.header))
		status, closed, took := answer(t, conn, 5*time.Second)
		if status != c.want || !closed {
			t.Errorf("%q with a stalled body: status %d, connection closed %v after %v; want %d and closed at once", c.header, status, closed, took, c.want)
		}
	}
}

// TestHTTPSlowRequestTimesOut: a body that stalls is refused once the
// body timeout passes, and its connection closed; so are headers that
// stall, and a kept-alive connection left idle.
func TestHTTPSlowRequestTimesOut(t *testing.T) {
	const limit = 500 * time.Millisecond
	srv := newTimedServer(t, HTTPOptions{Token: "s3cret", BodyTimeout: limit, HeaderTimeout: limit, IdleTimeout: limit})
	c := rawConn(t, srv.Listener.Addr().String(), stalledPost("Authorization: Bearer s3cret\r\n"))
	if status, closed, took := answer(t, c, 10*limit); status != http.StatusRequestTimeout || !closed {
		t.Errorf("stalled body: status %d, connection closed %v after %v; want 408 and closed after %v", status, closed, took, limit)
	}

	c = rawConn(t, srv.Listener.Addr().String(), "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	if _, closed, took := answer(t, c, 10*limit); !closed {
		t.Errorf("stalled headers: connection still open after %v; want closed after %v", took, limit)
	}

	// A whole request (a GET without a session: 400 at once), then
	// nothing on the kept-alive connection.
	c = rawConn(t, srv.Listener.Addr().String(), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\nAccept: text/event-stream\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * limit))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if strings.EqualFold(resp.Header.Get("Connection"), "close") {
		t.Fatalf("GET answered %d with Connection: close; want a kept-alive connection", resp.StatusCode)
	}
	start := time.Now()
	if _, err := br.ReadByte(); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("idle kept-alive connection still open after %v; want closed after %v", time.Since(start), limit)
	}
}
