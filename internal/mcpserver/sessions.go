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
// a failed initialize, eviction).
//
// When the table is full, an initialize closes an idle session (no call
// in flight) to make room, rather than being refused: local clients share
// the loopback host and are not told apart, so a refusal would let one of
// them lock every other out until its sessions idle past the timeout.
// Sessions that sent nothing since their initialize go first (a flood of
// bare initializes evicts its own), then the least recently used. Only
// when every session has a call in flight is an initialize refused.
type sessionLimits struct {
	server         *mcp.Server
	max, perClient int
	idle           time.Duration // the session timeout, for the refusal's advice

	mu       sync.Mutex
	total    int                        // places taken: open sessions and initializes in progress
	byClient map[string]int             // remote hosts; loopback clients are not told apart
	open     map[string]*trackedSession // by session id
	clock    uint64                     // counts requests, to order sessions by last use
	evicted  map[string]bool            // sessions closed to make room, for their 404's message
	order    []string                   // evicted's ids, oldest first, at most max of them
}

// trackedSession is an open session, as the limits see it.
type trackedSession struct {
	id, client string
	ss         *mcp.ServerSession
	lastUsed   uint64 // the clock at its last request's start or end
	calls      int    // POSTs in progress
	used       bool   // whether it sent anything since its initialize
}

func limitSessions(next http.Handler, s *mcp.Server, o HTTPOptions) http.Handler {
	l := &sessionLimits{server: s, max: o.MaxSessions, perClient: o.MaxSessionsPerClient, idle: o.SessionTimeout,
		byClient: map[string]int{}, open: map[string]*trackedSession{}, evicted: map[string]bool{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			post := r.Method == http.MethodPost
			if evicted := l.begin(id, post); evicted {
				l.refuse(w, r, http.StatusNotFound, fmt.Sprintf(
					"session not found: this server closed it to make room for a new session, as it holds at most %d sessions and this one was idle (no call in progress, least recently used); initialize a new session", l.max))
				return
			}
			defer l.end(id, post)
			if r.Method != http.MethodDelete {
				next.ServeHTTP(w, r)
				return
			}
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(sw, r)
			if sw.status/100 == 2 {
				l.ended(id) // its place is free now, not once the session's end is noticed
			}
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		client := remoteHost(r)
		status, msg, victim := l.reserve(client)
		if status != 0 {
			l.refuse(w, r, status, msg)
			return
		}
		if victim != nil {
			victim.Close()
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
// why there is none: an HTTP status and the message. When the table is
// full it frees the place of an idle session, which it returns for the
// caller to close.
func (l *sessionLimits) reserve(client string) (int, string, *mcp.ServerSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if client != "" && l.byClient[client] >= l.perClient {
		return http.StatusTooManyRequests, fmt.Sprintf(
			"too many sessions from %s: this server holds at most %d sessions per client; reuse or end (HTTP DELETE) the ones open", client, l.perClient), nil
	}
	var victim *mcp.ServerSession
	if l.total >= l.max {
		e := l.idlest()
		if e == nil {
			return http.StatusServiceUnavailable, fmt.Sprintf(
				"too many sessions: this server holds at most %d sessions in all, and each has a call in progress; retry when one ends", l.max), nil
		}
		l.forget(e)
		l.remember(e.id)
		victim = e.ss
	}
	l.total++
	if client != "" {
		l.byClient[client]++
	}
	return 0, "", victim
}

// idlest is the session to close first: of those with no call in flight,
// one that sent nothing since its initialize, else the least recently
// used; nil when every session has a call in flight.
func (l *sessionLimits) idlest() *trackedSession {
	var best *trackedSession
	for _, e := range l.open {
		if e.calls > 0 {
			continue
		}
		if best == nil || (!e.used && best.used) || (e.used == best.used && e.lastUsed < best.lastUsed) {
			best = e
		}
	}
	return best
}

// forget frees the place of session e. Its lock is held.
func (l *sessionLimits) forget(e *trackedSession) {
	delete(l.open, e.id)
	l.total--
	if e.client != "" {
		if l.byClient[e.client]--; l.byClient[e.client] <= 0 {
			delete(l.byClient, e.client)
		}
	}
}

// remember notes that session id was closed to make room, so that its
// next request hears why; the oldest of more than max such ids is
// dropped (a client it was, long gone, hears "session not found" alone).
func (l *sessionLimits) remember(id string) {
	l.evicted[id] = true
	l.order = append(l.order, id)
	if len(l.order) > l.max {
		delete(l.evicted, l.order[0])
		l.order = l.order[1:]
	}
}

// begin and end bracket a request in session id: a POST is a call in
// flight, which keeps its session open; any request is a use. begin
// reports a session closed to make room, whose request must not go on.
func (l *sessionLimits) begin(id string, post bool) (evicted bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.evicted[id] {
		return true
	}
	if e := l.open[id]; e != nil {
		l.clock++
		e.lastUsed, e.used = l.clock, true
		if post {
			e.calls++
		}
	}
	return false
}

func (l *sessionLimits) end(id string, post bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.open[id]; e != nil {
		l.clock++
		e.lastUsed = l.clock
		if post {
			e.calls = max(0, e.calls-1)
		}
	}
}

// ended frees the place of session id, which its client ended (DELETE).
func (l *sessionLimits) ended(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.open[id]; e != nil {
		l.forget(e)
	}
}

// release gives back a place reserved for a session that did not open.
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
				e := &trackedSession{id: id, client: client, ss: ss}
				l.mu.Lock()
				l.clock++
				e.lastUsed = l.clock
				l.open[id] = e
				l.mu.Unlock()
				go func() {
					_ = ss.Wait()
					l.mu.Lock()
					defer l.mu.Unlock()
					if l.open[id] == e { // not already forgotten to make room
						l.forget(e)
					}
				}()
				return
			}
		}
	}
	l.release(client)
}

// refuse answers an initialize past a bound, or a request in a session
// closed to make room, with a JSON-RPC error under the request's id,
// which the SDK's clients surface to their caller.
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
	if status != http.StatusNotFound {
		w.Header().Set("Retry-After", strconv.Itoa(int(max(1, min(l.idle, time.Minute)/time.Second))))
	}
	w.WriteHeader(status)
	w.Write(errorReply(id, -32000, msg))
}

// statusWriter records the status of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
