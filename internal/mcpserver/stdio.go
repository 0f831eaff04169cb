package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one JSON-RPC message on stdio. A longer line is
// answered with an error and skipped without being buffered whole.
const MaxLineBytes = 8 << 20

// ServeStdio serves s over stdin and stdout until the client disconnects or
// ctx is done.
func ServeStdio(ctx context.Context, s *mcp.Server) error {
	return ServeIO(ctx, s, os.Stdin, nopCloser{os.Stdout})
}

// ServeIO serves s over newline-delimited JSON-RPC on r and w. The SDK ends
// a session at the first line that is not a JSON-RPC message; here such a
// line gets the JSON-RPC error a peer expects (-32700 parse error for text
// that is not JSON, -32600 invalid request for JSON that is not a message,
// a batch, or a line over MaxLineBytes, id null unless the line
// named one) and the session goes on. A request whose id is in use by a
// request in progress, or is a number the answer could not carry exactly
// (1.5), gets -32600 under its id as written (ids.go). Blank lines are
// ignored.
func ServeIO(ctx context.Context, s *mcp.Server, r io.ReadCloser, w io.WriteCloser) error {
	wire := newStdioWire(s) // see wire.go
	lw := &lockedWriter{w: wire.writer(w), closer: w}
	calls := &inflight{} // see ids.go
	ss, err := s.Connect(ctx, calls.transport(wire.transport(
		&mcp.IOTransport{Reader: &lineFilter{r: r, br: bufio.NewReaderSize(r, 64<<10), w: lw, calls: calls}, Writer: lw, MaxLineLength: MaxLineBytes + 1},
		lw)), nil)
	if err != nil {
		return err
	}
	defer wire.serving(ss)()
	// As Server.Run: the session ends when the client leaves or ctx ends.
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-ended
		return ctx.Err()
	case err := <-ended:
		return err
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// lockedWriter serialises the SDK's writes and the filter's error replies,
// so that each message reaches the peer whole.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.closer.Close() }

// lineFilter passes the SDK only lines that decode as JSON-RPC messages
// whose ids it can answer (ids.go).
type lineFilter struct {
	r       io.Closer
	br      *bufio.Reader
	w       io.Writer
	calls   *inflight
	pending []byte
}

func (f *lineFilter) Close() error { return f.r.Close() }

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, tooLong, err := f.readLine()
		if len(line) > 0 || tooLong {
			reply := check(line, tooLong)
			if reply == nil {
				reply = f.calls.admit(line)
			}
			if reply != nil {
				if _, werr := f.w.Write(reply); werr != nil {
					return 0, werr
				}
			} else {
				f.pending = append(line, '\n')
			}
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine returns the next line without its end, trimmed of surrounding
// space; a line over MaxLineBytes is read to its end and dropped.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := f.br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxLineBytes+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(buf), tooLong, err
	}
}

// check returns the error reply for a line that is not a JSON-RPC message,
// or nil for one that is.
func check(line []byte, tooLong bool) []byte {
	if tooLong {
		return errorReply(nil, -32600, fmt.Sprintf("Invalid Request: message larger than %d bytes", MaxLineBytes))
	}
	if !json.Valid(line) {
		return errorReply(nil, -32700, "Parse error: the line is not JSON; send one JSON-RPC message per line")
	}
	if line[0] == '[' {
		// JSON-RPC batches left MCP in 2025-06-18, and the SDK ends the
		// session on one: refuse it here instead.
		return errorReply(nil, -32600, "Invalid Request: batches are not supported; send one message per line")
	}
	if err := message(line); err != nil {
		return errorReply(idOf(line), -32600, "Invalid Request: "+err.Error())
	}
	return nil
}

// message checks that data is a request, a notification or a response:
// a method, or an id with a result or an error. (The SDK decodes an
// object with only an id as a response to nothing, and drops it, leaving
// the peer waiting.)
func message(data []byte) error {
	var shape struct {
		Method *string
		ID     json.RawMessage
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(data, &shape); err != nil {
		return errors.New("not a JSON-RPC message object")
	}
	if shape.Method == nil && (shape.ID == nil || (shape.Result == nil && shape.Error == nil)) {
		return errors.New("neither a method nor a result or error")
	}
	_, err := jsonrpc.DecodeMessage(data)
	return err
}

// idOf returns the line's id when it is a usable JSON-RPC id.
func idOf(line []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	switch id := m.ID.(type) {
	case string:
		return id
	case float64:
		if id == float64(int64(id)) {
			return int64(id)
		}
	}
	return nil
}

func errorReply(id any, code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg},
	})
	return append(b, '\n')
}
