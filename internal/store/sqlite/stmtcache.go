package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// Every read statement used to be compiled afresh on each call: SQLite's
// parser and code generator were an eighth of a find_symbol's CPU over MCP.
// stmtCache keeps the statements readers run, prepared on the read pool
// (database/sql then keeps one compiled copy per connection it runs on), so
// a statement is compiled once per connection. Statements are keyed by
// their text; the texts built at run time (IN lists of one length or
// another, optional filters) make the set larger but still finite, and
// past maxCachedStmts new texts are simply run uncached.
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// maxCachedStmts bounds the statements a store keeps prepared.
const maxCachedStmts = 512

// get returns the prepared statement for query, or nil when it cannot or
// should not be cached (the caller then runs the text directly).
//
// Preparing takes a connection of the read pool, and the caller holds
// one already: when every other is held too, by readers that may be here
// as well, waiting for one would wait for ever (it did, under the load
// test with 100 clients). So the lock is not held while preparing, and the
// prepare does not wait for a connection when the pool is full: it gives
// up at once and the text runs uncached this time.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.stmts[query]
	full := len(c.stmts) >= maxCachedStmts
	c.mu.Unlock()
	if ok {
		return st
	}
	if full {
		return nil
	}
	// With no idle connection, the prepare may still open one while the
	// pool is below its bound. A serial client holds the pool's only
	// connection on every call: skipping then would never cache anything.
	if st := db.Stats(); st.Idle == 0 && st.MaxOpenConnections > 0 && st.OpenConnections >= st.MaxOpenConnections {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, prepareWait)
	defer cancel()
	st, err := db.PrepareContext(pctx, query)
	if err != nil {
		return nil // the direct run reports the error
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.stmts[query]; ok {
		st.Close() // prepared meanwhile by another reader
		return old
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = st
	return st
}

// prepareWait bounds how long preparing a statement waits for a free
// connection of the read pool (see get).
const prepareWait = 2 * time.Millisecond

// close releases every statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts = nil
}

// query runs a read statement in the reader's transaction, prepared once
// per connection.
func (r *reader) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if r.stmts != nil {
		if st := r.stmts.get(ctx, r.db, query); st != nil {
			return r.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
		}
	}
	return r.tx.QueryContext(ctx, query, args...)
}

// readQuery runs a read statement on the read pool outside any reader's
// transaction (the test recording's reads, which belong to no snapshot),
// prepared once per connection like a reader's.
func (s *Store) readQuery(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := s.stmts.get(ctx, s.rdb, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return s.rdb.QueryContext(ctx, query, args...)
}

// readQueryRow is readQuery for a single row.
func (s *Store) readQueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st := s.stmts.get(ctx, s.rdb, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.rdb.QueryRowContext(ctx, query, args...)
}

// queryRow is query for a single row.
func (r *reader) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if r.stmts != nil {
		if st := r.stmts.get(ctx, r.db, query); st != nil {
			return r.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
		}
	}
	return r.tx.QueryRowContext(ctx, query, args...)
}
