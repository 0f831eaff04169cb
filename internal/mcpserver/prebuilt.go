package mcpserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// servers maps each *mcp.Server made by New to its prebuiltResults, so
// ServeIO, which receives only the server, finds them.
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
