package mcpserver

import (
	"io"
	"net/http"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Every JSON message the server writes is ASCII: a character outside
// ASCII, which in JSON text can only stand inside a string, is written
// as its \u escape (two, as a UTF-16 surrogate pair, above U+FFFF). The
// message means the same to any JSON reader, and costs a few bytes more
// where code or its comments are not ASCII (and where an answer marks a
// cut line with "…"). It saves the Go SDK's client, and with it agents
// built on it, half of its work: its decoder (segmentio/encoding) leaves
// its fast path for the whole message at the first byte outside ASCII.
// On a find_references answer of 177 uses (38 KB, 54 of them cut)
// decoding the result took 1.6 ms as written before and 0.65 ms escaped.

// appendASCII appends src to dst with every complete non-ASCII UTF-8
// sequence escaped, and returns the bytes of src left over: the start of
// a sequence that src cuts short, which the next write completes. A byte
// that starts no valid sequence is written as the replacement character
// U+FFFD, as JSON readers take it.
func appendASCII(dst, src []byte) (out, rest []byte) {
	const hex = "0123456789abcdef"
	escape := func(dst []byte, r rune) []byte {
		return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	for len(src) > 0 {
		// Copy the ASCII run at once.
		i := 0
		for i < len(src) && src[i] < utf8.RuneSelf {
			i++
		}
		dst = append(dst, src[:i]...)
		src = src[i:]
		if len(src) == 0 {
			break
		}
		if !utf8.FullRune(src) {
			return dst, src
		}
		r, size := utf8.DecodeRune(src)
		src = src[size:]
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			dst = escape(escape(dst, r1), r2)
		} else {
			dst = escape(dst, r) // RuneError for a bad byte: U+FFFD
		}
	}
	return dst, nil
}

// isASCII reports whether b has no byte outside ASCII.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiWriter writes JSON text to w with non-ASCII characters escaped
// (see appendASCII). It is not safe for concurrent use: the writers it
// serves serialise their messages.
type asciiWriter struct {
	w     io.Writer
	carry []byte // a UTF-8 sequence cut by the end of the last Write
	buf   []byte
}

// Write writes p escaped, and reports all of p written when the escaped
// bytes were.
func (a *asciiWriter) Write(p []byte) (int, error) {
	if len(a.carry) == 0 && isASCII(p) {
		return a.w.Write(p)
	}
	src := p
	if len(a.carry) > 0 {
		src = append(a.carry, p...)
	}
	var rest []byte
	a.buf, rest = appendASCII(a.buf[:0], src)
	a.carry = append(a.carry[:0], rest...)
	if _, err := a.w.Write(a.buf); err != nil {
		return 0, err
	}
	if cap(a.buf) > 1<<20 {
		a.buf = nil // do not keep one huge answer's buffer for the session
	}
	return len(p), nil
}

// asciiResponse escapes the JSON bodies and event streams of a streamable
// HTTP response (see appendASCII); other bodies (plain-text errors) are
// written as they are.
type asciiResponse struct {
	http.ResponseWriter
	a      asciiWriter
	json   bool
	looked bool
}

func (r *asciiResponse) Write(p []byte) (int, error) {
	if !r.looked {
		r.looked = true
		ct := r.Header().Get("Content-Type")
		r.json = strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "text/event-stream")
		r.a.w = r.ResponseWriter
	}
	if !r.json {
		return r.ResponseWriter.Write(p)
	}
	return r.a.Write(p)
}

func (r *asciiResponse) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *asciiResponse) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// asciiJSON serves next with asciiResponse.
func asciiJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&asciiResponse{ResponseWriter: w}, r)
	})
}
