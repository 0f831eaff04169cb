package mcpserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// readBody reads a POST's body whole, at most max bytes (413 beyond)
// within timeout (408 beyond), before the SDK sees the request, and
// refuses a request whose id the answer could not carry exactly (ids.go).
// Later handlers read the buffered copy. The deadline is the connection's
// and is lifted once the body is in: a call may take longer, and net/http
// watches the idle connection for the client leaving (which cancels the
// call, abandon.go).
func readBody(next http.Handler, max int64, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(timeout)) // a writer without deadlines (a test recorder) reads as it can
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		if err != nil {
			refuseUnread(w)
			var tooLarge *http.MaxBytesError
			switch {
			case errors.As(err, &tooLarge):
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", max), http.StatusRequestEntityTooLarge)
			case errors.Is(err, os.ErrDeadlineExceeded):
				http.Error(w, fmt.Sprintf("request body not received within %v", timeout), http.StatusRequestTimeout)
			default:
				http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			}
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body.Close()
		if reply := refuseBadIDs(body); reply != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(reply)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// refuseUnread prepares the answer to a request refused before its body
// was read whole: the connection closes after the answer (what is left
// of the body must not pass for a request), and the connection's read
// deadline passes now, since net/http drains up to 256 KiB of an unread
// body before it answers, and would wait on a body that stalls.
func refuseUnread(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}
