package webui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/sextant-dev/sextant/internal/httpguard"
)

// CSP is the Content-Security-Policy of every answer: nothing but the
// server's own script, style and images, no inline script or style, no
// framing, forms only to itself.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// MinTokenLen bounds a token from below: 16 characters of base64 are 96
// bits, not to be guessed.
const MinTokenLen = 16

var errShortToken = errors.New("the UI token must be at least 16 characters")

// NewToken returns an unguessable token: 256 random bits, URL-safe.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// CookieName is the cookie holding the token for a server on port: one
// per port, since browsers share cookies across a host's ports.
func CookieName(port string) string { return "sextant_ui_" + port }

// guard wraps the pages in the checks every request passes, in order:
// the security headers on every answer; a loopback Host on a loopback
// address and no cross-origin write (the MCP transport's rules,
// internal/httpguard); reads only (GET, HEAD); the token, from the
// address printed or the cookie. The printed address's token sets the
// cookie and sends the browser on to the address without it. Any other
// request a browser says comes from another site or origin is refused,
// since the pages themselves are what is secret; the token's own request
// may (a terminal, a file --open wrote), as knowing the token is the
// authority, and it answers nothing but the cookie.
func guard(next http.Handler, token string) http.Handler {
	want := []byte(token)
	readOnly := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			refuse(w, http.StatusMethodNotAllowed, "read-only: GET and HEAD only")
			return
		}
		_, port, _ := net.SplitHostPort(r.Host)
		name := CookieName(port)
		if t := r.URL.Query().Get("token"); t != "" {
			if subtle.ConstantTimeCompare([]byte(t), want) != 1 {
				refuse(w, http.StatusUnauthorized, "wrong token: open the address sextant ui printed")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: name, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del("token")
			// One leading slash: "//host/" would send the browser away.
			u := (&url.URL{Path: "/" + strings.TrimLeft(r.URL.Path, "/\\"), RawQuery: q.Encode()}).String()
			if httpguard.CrossSite(r) {
				// A redirect would stay in the cross-site chain and be
				// refused; a page of this origin moving on is same-origin.
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprintf(w, "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=%s\"><link rel=\"icon\" href=\"/static/favicon.svg\" type=\"image/svg+xml\"><title>sextant</title><a href=\"%s\">continue</a>\n", html.EscapeString(u), html.EscapeString(u))
				return
			}
			http.Redirect(w, r, u, http.StatusSeeOther)
			return
		}
		if httpguard.CrossSite(r) {
			refuse(w, http.StatusForbidden, "cross-origin request refused")
			return
		}
		c, err := r.Cookie(name)
		if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), want) != 1 {
			refuse(w, http.StatusUnauthorized, "no token: open the address sextant ui printed")
			return
		}
		next.ServeHTTP(w, r)
	})
	deny := func(msg string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { refuse(w, http.StatusForbidden, msg) })
	}
	checked := httpguard.LoopbackHost(httpguard.CrossOrigin(readOnly, deny("cross-origin request refused")), deny("a Host that is not loopback refused"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", CSP)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		hd.Set("Cache-Control", "no-store")
		checked.ServeHTTP(w, r)
	})
}

// refuse answers a request the guard turns away, in plain text.
func refuse(w http.ResponseWriter, code int, msg string) {
	http.Error(w, msg, code)
}
