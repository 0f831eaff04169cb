package httpguard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:8080": true, "127.9.9.9": true, "localhost": true, "LOCALHOST:1": true,
		"[::1]:8080": true, "::1": true, "[::1]": true,
		"0.0.0.0": false, "evil.example": false, "localhost.evil.example:80": false, "127.0.0.1.evil.example": false,
		"[::]:80": false, "": false, "192.168.1.5:80": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestLoopbackHost(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	deny := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) })
	h := LoopbackHost(ok, deny)
	for _, c := range []struct {
		local, host string
		want        int
	}{
		{"127.0.0.1:80", "127.0.0.1:80", http.StatusOK},
		{"127.0.0.1:80", "localhost:80", http.StatusOK},
		{"127.0.0.1:80", "evil.example:80", http.StatusForbidden},
		{"[::1]:80", "evil.example", http.StatusForbidden},
		{"192.168.1.5:80", "sextant.lan:80", http.StatusOK}, // beyond loopback: the token guards it
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = c.host
		addr, _ := net.ResolveTCPAddr("tcp", c.local)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("on %s with Host %s: %d, want %d", c.local, c.host, w.Code, c.want)
		}
	}
}

func TestCrossSite(t *testing.T) {
	for _, c := range []struct {
		site, origin string
		want         bool
	}{
		{"", "", false},
		{"none", "", false},
		{"same-origin", "http://127.0.0.1:8080", false},
		{"cross-site", "", true},
		{"same-site", "http://127.0.0.1:9", true},
		{"", "http://127.0.0.1:8080", false},
		{"", "http://evil.example", true},
		{"", "null", true},
	} {
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/", nil)
		if c.site != "" {
			r.Header.Set("Sec-Fetch-Site", c.site)
		}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := CrossSite(r); got != c.want {
			t.Errorf("Sec-Fetch-Site %q, Origin %q: %v, want %v", c.site, c.origin, got, c.want)
		}
	}
}
