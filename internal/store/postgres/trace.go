package postgres

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// counter counts the round trips of a Store's requests: each statement
// and each batch (a Reader's pinning, a query with what it reads ahead)
// is one.
type counter struct{ n atomic.Int64 }

func (c *counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *counter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// RoundTrips returns how many round trips to the server the store's
// requests have waited for so far (statements and batches; not the
// ROLLBACK a Reader's Close sends in the background, nor the one-time
// preparation of a statement on a connection): a benchmark divides its
// growth by the calls made.
func (s *Store) RoundTrips() int64 { return s.trips.n.Load() }
