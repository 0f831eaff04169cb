package sqlite

import (
	"context"
	"database/sql"
	"sync"
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
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[query]; ok {
		return st
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil // the direct run reports the error
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = st
	return st
}

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

// queryRow is query for a single row.
func (r *reader) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if r.stmts != nil {
		if st := r.stmts.get(ctx, r.db, query); st != nil {
			return r.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
		}
	}
	return r.tx.QueryRowContext(ctx, query, args...)
}
