package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// RPCError is an error response of the server.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("server error %d: %s", e.Code, e.Message) }

// JSON-RPC and LSP error codes the bridge looks at.
const (
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeRequestCancelled = -32800
)

// errNotSent marks a call's failure before the server got the request:
// the stream had ended, or writing the request failed.
var errNotSent = errors.New("the request was not sent")

// ErrClosed is returned by calls on a connection whose stream ended.
var ErrClosed = errors.New("connection to the language server closed")

// message is any JSON-RPC 2.0 message; which fields are set tells its kind.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

type reply struct {
	result json.RawMessage
	err    *RPCError
}

// Handler receives what the server sends on its own initiative.
// Notify is called in order, on the reading goroutine, and must not block;
// Request runs on a goroutine of its own and its result is sent back.
type Handler struct {
	Notify  func(method string, params json.RawMessage)
	Request func(method string, params json.RawMessage) (any, *RPCError)
}

// Conn is a JSON-RPC 2.0 connection over an LSP stream. Requests are
// multiplexed: any number may wait at once and none waits behind another.
type Conn struct {
	w   io.Writer
	wmu sync.Mutex
	r   *bufio.Reader
	h   Handler

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	done    chan struct{}
	err     error // why the stream ended
}

// NewConn returns a connection reading r and writing w; Run must be called
// to read.
func NewConn(r io.Reader, w io.Writer, h Handler) *Conn {
	return &Conn{w: w, r: bufio.NewReaderSize(r, 64<<10), h: h, pending: map[int64]chan reply{}, done: make(chan struct{})}
}

// Done is closed when the stream has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the stream ended (nil while it runs).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Run reads messages until the stream ends or breaks, then fails every
// waiting call.
func (c *Conn) Run() {
	var err error
	for {
		var body []byte
		body, err = ReadMessage(c.r)
		if err != nil {
			break
		}
		var m message
		if jerr := json.Unmarshal(body, &m); jerr != nil {
			err = fmt.Errorf("%w: %v", ErrFraming, jerr)
			break
		}
		c.dispatch(&m)
	}
	if err == io.EOF {
		err = ErrClosed
	}
	c.mu.Lock()
	c.err = err
	pending := c.pending
	c.pending = map[int64]chan reply{}
	c.mu.Unlock()
	close(c.done)
	for _, ch := range pending {
		close(ch)
	}
}

func (c *Conn) dispatch(m *message) {
	switch {
	case m.Method != "" && len(m.ID) > 0:
		id := m.ID
		go func() {
			var result any
			var rerr *RPCError
			if c.h.Request != nil {
				result, rerr = c.h.Request(m.Method, m.Params)
			} else {
				rerr = &RPCError{Code: CodeMethodNotFound, Message: "not handled: " + m.Method}
			}
			out := map[string]any{"jsonrpc": "2.0", "id": id}
			if rerr != nil {
				out["error"] = rerr
			} else {
				out["result"] = result
			}
			_ = c.send(out)
		}()
	case m.Method != "":
		if c.h.Notify != nil {
			c.h.Notify(m.Method, m.Params)
		}
	case len(m.ID) > 0:
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		if err != nil {
			return // not an id of ours
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- reply{result: m.Result, err: m.Error}
		}
	}
}

func (c *Conn) send(m map[string]any) error {
	m["jsonrpc"] = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return WriteMessage(c.w, body)
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	m := map[string]any{"method": method}
	if params != nil {
		m["params"] = params
	}
	return c.send(m)
}

// CancelledError is returned by Call when ctx ended before the answer; the
// request was cancelled with $/cancelRequest.
type CancelledError struct {
	Method string
	ID     int64
	Cause  error
}

func (e *CancelledError) Error() string {
	return fmt.Sprintf("%s (request %d) cancelled: %v", e.Method, e.ID, e.Cause)
}

func (e *CancelledError) Unwrap() error { return e.Cause }

// Call sends a request and decodes its result into result (unless nil).
// When ctx ends first, the server is sent $/cancelRequest and Call returns
// a *CancelledError at once: a late answer is dropped.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("decoding %s result: %w", method, err)
	}
	return nil
}

// CallRaw is Call returning the undecoded result.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", errNotSent, err)
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	m := map[string]any{"id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	if err := c.send(m); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("sending %s: %w: %w", method, errNotSent, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, c.Err()
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	case <-ctx.Done():
		c.forget(id)
		_ = c.Notify("$/cancelRequest", map[string]any{"id": id})
		return nil, &CancelledError{Method: method, ID: id, Cause: ctx.Err()}
	}
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}
