// Package httpguard holds the rules by which Sextant's local HTTP servers
// (the MCP transport and the browser UI) refuse a request before reading
// it: a browser request from another origin (CSRF), and a request that
// arrived on a loopback address naming a Host that is not loopback (DNS
// rebinding: a page of evil.example whose name now resolves to 127.0.0.1).
// Both servers use these, so the rules are written once. Standard library
// only.
package httpguard

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// IsLoopback reports whether host (a listening address's host, or a Host
// header, with or without a port) is a loopback address or localhost.
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CrossOrigin passes to next only requests that are not cross-origin
// browser requests (Origin and Sec-Fetch-Site, as
// http.CrossOriginProtection judges them; safe methods always pass, as
// they must not change anything), and the others to deny.
func CrossOrigin(next, deny http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(deny)
	return cop.Handler(next)
}

// LoopbackHost passes to next a request that arrived on a loopback
// address only if its Host is loopback too; the others go to deny. A
// request that arrived on another address (a server listening beyond
// loopback, behind its token) passes.
func LoopbackHost(next, deny http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			if IsLoopback(local.String()) && !IsLoopback(r.Host) {
				deny.ServeHTTP(w, r)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// CrossSite reports whether a browser says r comes from another origin:
// Sec-Fetch-Site cross-site or same-site (another port of the same host
// is the same site), or else an Origin whose host is not the request's.
// Unlike CrossOrigin it judges safe methods too, for a server whose reads
// are themselves what is secret (the UI's pages). A request without
// either header (not from a browser's page) passes.
func CrossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	case "same-origin", "none":
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}
