package mcpserver

import (
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/internal/httpguard"
)

// HTTPOptions are the limits of the streamable HTTP handler. Zero values
// take the defaults below.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer TOKEN); others get 401.
	Token string
	// MaxBodyBytes bounds a request body (413 beyond it).
	MaxBodyBytes int64
	// MaxResponseBytes bounds the body of the answer to one POST; a
	// longer answer is cut off by aborting the connection. Tool answers
	// are bounded well below it (MaxResultBytes); this is the backstop.
	MaxResponseBytes int64
	// MaxConcurrent bounds the POSTs one client (its MCP session, or its
	// remote host when it has none) has in progress; more wait their
	// turn. Sessionless requests from loopback are not limited.
	MaxConcurrent int
	// SessionTimeout closes a session that sent nothing for this long, so
	// clients that vanish without ending their session do not pile up.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions open at once, and
	// MaxSessionsPerClient those one remote host opened (local clients
	// share the loopback host, so they count only in all). An initialize
	// past the bound in all closes an idle session to make room (503 only
	// when every session has a call in flight); one past a host's bound
	// is refused with 429.
	MaxSessions, MaxSessionsPerClient int
	// BodyTimeout bounds the time a request's body takes to arrive; a
	// slower one is refused with 408 and its connection closed.
	BodyTimeout time.Duration
	// HeaderTimeout bounds the time a request's headers take to arrive,
	// and IdleTimeout the time a kept-alive connection waits for the
	// next request (NewHTTPServer).
	HeaderTimeout, IdleTimeout time.Duration
}

// The default HTTP limits.
const (
	DefaultMaxBodyBytes         = 2 << 20
	DefaultMaxResponseBytes     = 32 << 20
	DefaultMaxConcurrent        = 8
	DefaultSessionTimeout       = 30 * time.Minute
	DefaultMaxSessions          = 1024
	DefaultMaxSessionsPerClient = 64
	DefaultBodyTimeout          = 30 * time.Second
	DefaultHeaderTimeout        = 10 * time.Second
	DefaultIdleTimeout          = 2 * time.Minute
)

// Handler returns the streamable HTTP handler serving s with the default
// limits and no token.
func Handler(s *mcp.Server) http.Handler { return NewHTTPHandler(s, HTTPOptions{}) }

// NewHTTPHandler returns the streamable HTTP handler serving s at any path
// it is mounted on. In order, a request must: carry the token (when one
// is set); not be a cross-origin browser request (Origin and
// Sec-Fetch-Site, http.CrossOriginProtection); and, when it arrives on a
// loopback address, name a loopback Host (DNS rebinding); both rules are
// internal/httpguard's, which the browser UI applies too.
// Bodies (in size and time), answers, each client's concurrent POSTs and
// the sessions (in all and per client) are bounded. A request refused
// before its body is read closes its connection.
func NewHTTPHandler(s *mcp.Server, o HTTPOptions) http.Handler {
	o = o.withDefaults()
	getServer := func(*http.Request) *mcp.Server { return s }
	// A call whose client closed its connection is cancelled: by the
	// SDK for the stateless protocol, by cancelOnClose (abandon.go) for
	// sessions.
	stateful := cancelOnClose(limitSessions(mcp.NewStreamableHTTPHandler(getServer,
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: o.MaxBodyBytes, SessionTimeout: o.SessionTimeout}), s, o)) // sessions.go
	stateless := mcp.NewStreamableHTTPHandler(getServer,
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: o.MaxBodyBytes, Stateless: true, PropagateRequestCancellation: true})
	// Protocol 2026-07-28 has no sessions, and the SDK serves it only
	// statelessly; earlier versions keep their sessions. The version
	// header (required from 2026-07-28 on) picks the handler.
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	h = httpWire(h) // see wire.go
	h = limitResponse(h, o.MaxResponseBytes)
	h = limitPerClient(h, o.MaxConcurrent)
	h = readBody(h, o.MaxBodyBytes, o.BodyTimeout) // see body.go
	h = httpguard.LoopbackHost(h, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuseUnread(w) // see body.go
		http.Error(w, "Forbidden: invalid Host header", http.StatusForbidden)
	}))
	h = httpguard.CrossOrigin(h, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuseUnread(w)
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	if o.Token != "" {
		h = requireToken(h, o.Token)
	}
	return h
}

// NewHTTPServer returns the http.Server for a handler of NewHTTPHandler,
// with the connection-level limits of o.
func NewHTTPServer(h http.Handler, o HTTPOptions) *http.Server {
	o = o.withDefaults()
	// No ReadTimeout: it would also cut the long-lived event streams, and
	// cancel calls whose answers take longer than it. Bodies have their
	// own deadline (readBody).
	return &http.Server{Handler: h, ReadHeaderTimeout: o.HeaderTimeout, IdleTimeout: o.IdleTimeout}
}

// withDefaults fills the zero limits of o with the defaults.
func (o HTTPOptions) withDefaults() HTTPOptions {
	orDefault(&o.MaxBodyBytes, DefaultMaxBodyBytes)
	orDefault(&o.MaxResponseBytes, DefaultMaxResponseBytes)
	orDefault(&o.MaxConcurrent, DefaultMaxConcurrent)
	orDefault(&o.MaxSessions, DefaultMaxSessions)
	orDefault(&o.MaxSessionsPerClient, DefaultMaxSessionsPerClient)
	orDefault(&o.SessionTimeout, DefaultSessionTimeout)
	orDefault(&o.BodyTimeout, DefaultBodyTimeout)
	orDefault(&o.HeaderTimeout, DefaultHeaderTimeout)
	orDefault(&o.IdleTimeout, DefaultIdleTimeout)
	return o
}

func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// requireToken refuses requests without the bearer token, comparing in
// constant time, before their bodies are read.
func requireToken(next http.Handler, token string) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			refuseUnread(w) // see body.go
			w.Header().Set("WWW-Authenticate", `Bearer realm="sextant"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limitPerClient lets each client have at most n POSTs in progress; the
// others wait (or give up when their request is cancelled). A client is
// its MCP session, or without one its remote host (loopback exempt). GETs
// (the long-lived event stream) and DELETEs are not counted.
func limitPerClient(next http.Handler, n int) http.Handler {
	var (
		mu    sync.Mutex
		slots = map[string]*clientSlots{}
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		key := r.Header.Get("Mcp-Session-Id")
		if key == "" {
			// Without a session (initialize, and every request of the
			// sessionless 2026-07-28 protocol) the client is its host.
			// Local processes all share the loopback host, so on
			// loopback they are not told apart and not limited here.
			host, _, _ := net.SplitHostPort(r.RemoteAddr)
			if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
				next.ServeHTTP(w, r)
				return
			}
			key = "host " + host
		}
		mu.Lock()
		c := slots[key]
		if c == nil {
			c = &clientSlots{sem: make(chan struct{}, n)}
			slots[key] = c
		}
		c.users++
		mu.Unlock()
		defer func() {
			mu.Lock()
			if c.users--; c.users == 0 {
				delete(slots, key)
			}
			mu.Unlock()
		}()
		select {
		case c.sem <- struct{}{}:
		case <-r.Context().Done():
			http.Error(w, "request cancelled while waiting for a slot", http.StatusServiceUnavailable)
			return
		}
		defer func() { <-c.sem }()
		next.ServeHTTP(w, r)
	})
}

type clientSlots struct {
	sem   chan struct{}
	users int // requests holding or waiting for a slot; the entry goes when none
}

var errResponseTooLarge = errors.New("answer larger than the HTTP response limit")

// limitResponse stops a POST's answer from growing past max bytes.
func limitResponse(next http.Handler, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&cappedWriter{ResponseWriter: w, left: max}, r)
	})
}

type cappedWriter struct {
	http.ResponseWriter
	left int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		// Nothing of the message is written: the peer sees the stream
		// end without it, never a cut message that parses.
		c.left = 0
		return 0, errResponseTooLarge
	}
	c.left -= int64(len(p))
	return c.ResponseWriter.Write(p)
}

func (c *cappedWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *cappedWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
