package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Parking. A reader's transaction ends with a ROLLBACK, a round trip of
// its own. Sent in the background when the reader closes, it saves that
// request the wait but not the work: while the next request runs, the
// server and the client wake for it, and on a loaded machine the next
// request waits for them (on moby, store-bench's find_references p50 was
// 1.8–2.0× SQLite's with it, 1.6× without). So a closed reader's
// connection is parked, its transaction still open, for parkFor: a Read
// in that time takes it and sends the ROLLBACK at the head of its
// pinning batch, in the round trip it makes anyway. A connection parked
// longer is rolled back in the background and returned to the pool, as
// before. A parked transaction holds its snapshots (see the package doc)
// and its tables' share locks at most parkFor longer.
const maxParked = 2

// parkFor is how long a connection stays parked (a variable for tests).
var parkFor = 250 * time.Millisecond

// parking holds the connections of closed readers whose transactions are
// still open. The zero value is ready.
type parking struct {
	mu     sync.Mutex
	conns  []*parked
	closed bool
}

type parked struct {
	conn  *pgxpool.Conn
	timer *time.Timer
}

// park keeps conn, whose transaction is open, for the next Read. It
// reports false, keeping nothing, when the parking is full or closed:
// the caller then ends the transaction itself.
func (p *parking) park(conn *pgxpool.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.conns) >= maxParked {
		return false
	}
	pc := &parked{conn: conn}
	pc.timer = time.AfterFunc(parkFor, func() {
		if p.remove(pc) {
			rollback(pc.conn)
		}
	})
	p.conns = append(p.conns, pc)
	return true
}

// remove takes pc out of the parking, reporting whether it was there.
func (p *parking) remove(pc *parked) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.conns {
		if c == pc {
			p.conns = append(p.conns[:i], p.conns[i+1:]...)
			return true
		}
	}
	return false
}

// take returns the connection parked last, whose transaction the caller
// must end, or nil.
func (p *parking) take() *pgxpool.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	if n == 0 {
		return nil
	}
	pc := p.conns[n-1]
	p.conns = p.conns[:n-1]
	pc.timer.Stop() // if it fired already, its remove finds nothing
	return pc.conn
}

// close ends the parked transactions, returning their connections to
// the pool, and parks nothing more.
func (p *parking) close() {
	p.mu.Lock()
	conns := p.conns
	p.conns, p.closed = nil, true
	p.mu.Unlock()
	for _, pc := range conns {
		pc.timer.Stop()
		rollback(pc.conn)
	}
}

// rollback ends conn's transaction and returns it to the pool. Through
// PgConn, so that RoundTrips counts only the round trips a request waits
// for. A connection whose state is unknown after a failure is closed, not
// returned (Release closes one left in a transaction or broken).
func rollback(conn *pgxpool.Conn) {
	if _, err := conn.Conn().PgConn().Exec(context.Background(), `ROLLBACK`).ReadAll(); err != nil {
		conn.Conn().Close(context.Background())
	}
	conn.Release()
}
