package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// arrivalTransport is an MCP transport that notes when each response has
// been read off the connection and framed, before the client decodes its
// result. The calls of the comparison are one at a time, so the last
// arrival is the answer to the call in flight: the time from the call to
// it is the server's latency as the pipe delivers it, and the rest of the
// round trip is the client's own work on the answer (the Go SDK client
// decodes a result several times, which costs in proportion to its bytes).
type arrivalTransport struct {
	mcp.Transport
	last atomic.Int64 // UnixNano of the last response read
}

func (t *arrivalTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &arrivalConn{Connection: c, t: t}, nil
}

// since returns the time from start to the last response read, or 0 when
// none has been read since start.
func (t *arrivalTransport) since(start time.Time) time.Duration {
	d := time.Unix(0, t.last.Load()).Sub(start)
	if d < 0 {
		return 0
	}
	return d
}

type arrivalConn struct {
	mcp.Connection
	t *arrivalTransport
}

func (c *arrivalConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if _, ok := m.(*jsonrpc.Response); ok && err == nil {
		c.t.last.Store(time.Now().UnixNano())
	}
	return m, err
}
