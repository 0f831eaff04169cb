package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file holds every trick the server plays on the wire, and its one
// switch. None changes what a message means; each saves encoding work on
// one side of the connection:
//
//   - Prebuilt results (stdio): a tool's result is encoded once by the
//     handler and spliced into its response frame, instead of being
//     re-validated and compacted by encoding/json at every level the SDK
//     marshals it through.
//   - Framed responses (stdio): a successful response is framed around its
//     result as it is, byte for byte the SDK's frame, without marshalling
//     the message again.
//   - ASCII JSON (stdio and HTTP): every character outside ASCII is written
//     as its \u escape, which the Go SDK's client decodes on its fast path.
//
// WireEnv turns all three off: SEXTANT_WIRE=plain writes every message as
// the SDK encodes it, for a client that misbehaves on them or to measure
// what they save. TestWireSwitch holds that the messages decode the same
// either way, on stdio and over HTTP. The call sites are New (server.go),
// ServeIO (stdio.go) and NewHTTPHandler (http.go).

// WireEnv is the environment variable of the wire switch: "plain" turns
// the fast paths off; anything else, or unset, leaves them on. It is read
// when a server, a stdio connection or an HTTP handler is made.
const WireEnv = "SEXTANT_WIRE"

// fastWire reports whether the wire fast paths are on.
func fastWire() bool { return os.Getenv(WireEnv) != "plain" }

// registerPrebuilt makes the prebuilt results of s (nil when the fast
// paths are off), so that ServeIO, which receives only the server, finds
// them.
func registerPrebuilt(s *mcp.Server) *prebuiltResults {
	if !fastWire() {
		return nil
	}
	pb := newPrebuiltResults()
	servers.Store(s, pb)
	return pb
}

// result returns the stand-in result a handler returns for the answer
// (text and structured content) on a session whose connection writes
// prebuilt results, else nil: the handler then returns the plain result.
func (p *prebuiltResults) result(ss *mcp.ServerSession, text string, structured []byte) *mcp.CallToolResult {
	if !p.framed(ss) {
		return nil
	}
	b, err := contentBytes(text, structured)
	if err != nil {
		return nil
	}
	return p.standIn(ss, b)
}

// stdioWire is the wire of one stdio connection: the fast paths, or none.
type stdioWire struct {
	fast     bool
	prebuilt *prebuiltResults // nil for a server New did not make
}

func newStdioWire(s *mcp.Server) stdioWire {
	if !fastWire() {
		return stdioWire{}
	}
	pb, _ := servers.Load(s)
	prebuilt, _ := pb.(*prebuiltResults)
	return stdioWire{fast: true, prebuilt: prebuilt}
}

// writer wraps the connection's output: ASCII JSON.
func (wr stdioWire) writer(w io.Writer) io.Writer {
	if !wr.fast {
		return w
	}
	return &asciiWriter{w: w}
}

// transport wraps t, whose messages go to w (locked): framed responses
// and prebuilt results.
func (wr stdioWire) transport(t mcp.Transport, w io.Writer) mcp.Transport {
	if !wr.fast {
		return t
	}
	return responseWriter{Transport: t, w: w, prebuilt: wr.prebuilt}
}

// serving registers ss as a session whose connection writes prebuilt
// results, until the returned func runs.
func (wr stdioWire) serving(ss *mcp.ServerSession) (done func()) {
	if wr.prebuilt == nil {
		return func() {}
	}
	return wr.prebuilt.framing(ss)
}

// httpWire wraps a streamable HTTP handler: ASCII JSON.
func httpWire(h http.Handler) http.Handler {
	if !fastWire() {
		return h
	}
	return asciiJSON(h)
}

// Prebuilt results.
//
// A successful tool result reaches the client, through the SDK, as
// json.Marshal of an mcp.CallToolResult. encoding/json re-validates and
// compacts the output of every json.Marshaler it meets, byte by byte: the
// text content, the structured content (a json.RawMessage) and the whole
// result once more. For a 500-use find_references page (about 100 KB) that
// was 1.7 ms of the server's 7 ms, for bytes that json.Marshal had
// produced compact a moment before.
//
// On stdio, where responseConn frames each response itself, the handler
// builds the result's content and structured content once (contentBytes:
// the bytes the SDK would write for them) and hands the SDK a stand-in
// result whose one text content names them; responseConn splices the
// prebuilt bytes in place of the stand-in's content. Whatever else the
// SDK puts in the result (the _meta it adds for newer protocol versions)
// stays as the SDK wrote it: CallToolResult's content and structured
// content are adjacent fields. Other transports (streamable HTTP) never
// see a stand-in: the handler makes one only for a session ServeIO
// registered.

// prebuiltMarker starts the text of a stand-in result; a decimal number
// follows.
const prebuiltMarker = "sextant-prebuilt-result:"

// standInContent is how the SDK encodes the start of a stand-in's
// content; `"}]` ends it after the number.
const standInContent = `"content":[{"type":"text","text":"` + prebuiltMarker

// maxStandIn bounds the size of a result searched for a stand-in's
// content: the stand-in and what the SDK adds around it.
const maxStandIn = 4 << 10

// maxPrebuilt bounds the results kept for a response not yet written. A
// content stays only while its response is on its way; one whose response
// never comes (its session ended, say) is dropped once this many newer
// ones exist.
const maxPrebuilt = 256

// prebuiltResults holds the prebuilt results of one server.
type prebuiltResults struct {
	mu       sync.Mutex
	sessions map[*mcp.ServerSession]bool // sessions whose connection writes prebuilt results
	results  map[uint64][]byte
	next     uint64
}

func newPrebuiltResults() *prebuiltResults {
	return &prebuiltResults{sessions: map[*mcp.ServerSession]bool{}, results: map[uint64][]byte{}}
}

// servers maps each *mcp.Server made by New to its prebuiltResults (see
// registerPrebuilt).
var servers sync.Map

// framing registers ss as a session whose connection writes prebuilt
// results, until the returned func runs.
func (p *prebuiltResults) framing(ss *mcp.ServerSession) (done func()) {
	p.mu.Lock()
	p.sessions[ss] = true
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.sessions, ss)
		p.mu.Unlock()
	}
}

// framed reports whether ss writes prebuilt results, so that a handler
// builds them only for such a session.
func (p *prebuiltResults) framed(ss *mcp.ServerSession) bool {
	if p == nil || ss == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessions[ss]
}

// standIn returns the stand-in result for the prebuilt content b when ss
// writes prebuilt results, else nil.
func (p *prebuiltResults) standIn(ss *mcp.ServerSession, b []byte) *mcp.CallToolResult {
	if p == nil || ss == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.sessions[ss] {
		return nil
	}
	p.next++
	n := p.next
	p.results[n] = b
	if n > maxPrebuilt {
		delete(p.results, n-maxPrebuilt)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: prebuiltMarker + strconv.FormatUint(n, 10)}}}
}

// take returns result with the prebuilt content a stand-in names spliced
// in, and forgets it; ok is false for any other result.
func (p *prebuiltResults) take(result []byte) (spliced []byte, ok bool) {
	if p == nil || len(result) > maxStandIn {
		return nil, false
	}
	at := bytes.Index(result, []byte(standInContent))
	if at < 0 {
		return nil, false
	}
	rest := result[at+len(standInContent):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || !bytes.HasPrefix(rest[end:], []byte(`"}]`)) {
		return nil, false
	}
	n, err := strconv.ParseUint(string(rest[:end]), 10, 64)
	if err != nil {
		return nil, false
	}
	after := rest[end+len(`"}]`):]
	p.mu.Lock()
	content, ok := p.results[n]
	delete(p.results, n)
	p.mu.Unlock()
	if !ok {
		return nil, false
	}
	spliced = make([]byte, 0, at+len(content)+len(after))
	spliced = append(spliced, result[:at]...)
	spliced = append(spliced, content...)
	spliced = append(spliced, after...)
	return spliced, true
}

// contentBytes returns what json.Marshal writes for the content and
// structured content of a successful CallToolResult of one text content
// and the structured content structured (compact JSON from json.Marshal,
// as handler makes it), from "content" to the end of the structured
// content: TestPrebuiltIsTheSDKs holds them equal.
func contentBytes(text string, structured []byte) ([]byte, error) {
	quoted, err := json.Marshal(text)
	if err != nil {
		return nil, err
	}
	const head, mid = `"content":[{"type":"text","text":`, `}],"structuredContent":`
	b := make([]byte, 0, len(head)+len(quoted)+len(mid)+len(structured))
	b = append(b, head...)
	b = append(b, quoted...)
	b = append(b, mid...)
	b = append(b, structured...)
	return b, nil
}

// Framed responses.

// responseWriter is the stdio transport with one shortcut: a successful
// response is framed around its result as it is. The SDK's connection
// would marshal the message again, and encoding/json re-validates and
// compacts a json.RawMessage byte by byte (the result holds the
// structured content and the text, tens of KB for find_references),
// although the SDK produced that result with json.Marshal a moment before.
// Requests, notifications and errors still go through the SDK.
type responseWriter struct {
	mcp.Transport
	w        io.Writer        // the writer the SDK's connection writes to, locked
	prebuilt *prebuiltResults // results the handler built, written in place of their stand-ins
}

func (t responseWriter) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &responseConn{Connection: c, w: t.w, prebuilt: t.prebuilt}, nil
}

type responseConn struct {
	mcp.Connection
	w        io.Writer
	prebuilt *prebuiltResults
}

func (c *responseConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || !resp.ID.IsValid() {
		return c.Connection.Write(ctx, msg)
	}
	result, prebuilt := c.prebuilt.take(resp.Result)
	if !prebuilt {
		result = resp.Result
	}
	if err := ctx.Err(); err != nil { // as the SDK's connection does
		return err
	}
	id, err := marshalID(resp.ID)
	if err != nil {
		if prebuilt {
			msg = &jsonrpc.Response{ID: resp.ID, Result: result}
		}
		return c.Connection.Write(ctx, msg)
	}
	const head, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	frame := make([]byte, 0, len(head)+len(id)+len(mid)+len(result)+2)
	frame = append(frame, head...)
	frame = append(frame, id...)
	frame = append(frame, mid...)
	frame = append(frame, result...)
	frame = append(frame, "}\n"...)
	if _, err := c.w.Write(frame); err != nil {
		c.Connection.Close() // a failed write ends the connection, as in the SDK
		return err
	}
	return nil
}

// marshalID encodes a request id as the SDK's encoder does (no HTML
// escaping), so that a shortcut frame is byte for byte the SDK's.
func marshalID(id jsonrpc.ID) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(id.Raw()); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// ASCII JSON.
//
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
