package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionLimits bounds the sessions of the stateful handler: in all, and
// per remote host. The SDK opens a session for every initialize and keeps
// it until the client ends it or it idles past the session timeout, so
// without a bound a client that only initializes fills the memory (85,000
// sessions in 50 s took 4.1 GB). A session counts from the initialize that
// opens it until it closes, whatever closes it (DELETE, the idle timeout,
// a failed initialize).
type sessionLimits struct {
	server         *mcp.Server
	max, perClient int
	idle           time.Duration // the session timeout, for the refusal's advice

	mu       sync.Mutex
	total    int
	byClient map[string]int // remote hosts; loopback clients are not told apart
}

func limitSessions(next http.Handler, s *mcp.Server, o HTTPOptions) http.Handler {
	l := &sessionLimits{server: s, max: o.MaxSessions, perClient: o.MaxSessionsPerClient, idle: o.SessionTimeout, byClient: map[string]int{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		client := remoteHost(r)
		if status, msg := l.reserve(client); status != 0 {
			l.refuse(w, r, status, msg)
			return
		}
		next.ServeHTTP(w, r)
		l.watch(w.Header().Get("Mcp-Session-Id"), client)
	})
}

// remoteHost is the client a session is counted for: its remote host, or
// "" on loopback, where every local process has the same address.
func remoteHost(r *http.Request) string {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); ip == nil || ip.IsLoopback() {
		return ""
	}
	return host
}

// reserve takes a place for a session client is about to open, or says
// why there is none: an HTTP status and the message.
func (l *sessionLimits) reserve(client string) (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total >= l.max {
		return http.StatusServiceUnavailable, fmt.Sprintf(
			"too many sessions: this server holds at most %d sessions in all; end sessions no longer used (HTTP DELETE), or retry once idle ones expire (after %v without a request)", l.max, l.idle)
	}
	if client != "" && l.byClient[client] >= l.perClient {
		return http.StatusTooManyRequests, fmt.Sprintf(
			"too many sessions from %s: this server holds at most %d sessions per client; reuse or end (HTTP DELETE) the ones open", client, l.perClient)
	}
	l.total++
	if client != "" {
		l.byClient[client]++
	}
	return 0, ""
}

func (l *sessionLimits) release(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if client != "" {
		if l.byClient[client]--; l.byClient[client] <= 0 {
			delete(l.byClient, client)
		}
	}
}

// watch keeps a reserved place until the session opened with it closes;
// a request that opened none (not an initialize, or one that failed)
// gives its place back at once.
func (l *sessionLimits) watch(id, client string) {
	if id != "" {
		for ss := range l.server.Sessions() {
			if ss.ID() == id {
				go func() {
					_ = ss.Wait()
					l.release(client)
				}()
				return
			}
		}
	}
	l.release(client)
}

// refuse answers an initialize past a bound with a JSON-RPC error under
// the request's id, which the SDK's clients surface to their caller.
func (l *sessionLimits) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	var id json.RawMessage
	if body, err := io.ReadAll(r.Body); err == nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if msgs := requestsIn(body); len(msgs) > 0 {
			if _, ok := idKey(msgs[0].ID); ok {
				id = msgs[0].ID
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.Itoa(int(max(1, min(l.idle, time.Minute)/time.Second))))
	w.WriteHeader(status)
	w.Write(errorReply(id, -32000, msg))
}
