package postgres

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
)

// snapCache holds, per snapshot, rows that the queries of almost every
// request start from (a snapshot's files and packages), so that a request
// reads them from memory instead of paying a round trip to the server.
// Rows of a snapshot older than its repository's newest one seen (one a
// reader still pins) are read but not kept.
type snapCache struct {
	snaps names.Snapshots[snapRows]

	// pinned is the snapshots the last reader pinned: what a pinning
	// batch, sent before it knows its own, expects them to be (see
	// reader.pin). Never modified once stored.
	pinned atomic.Pointer[[]pinned]
}

// snapRows are one snapshot's cached rows, each loaded on first use.
type snapRows struct {
	files    lazy[[]graph.File]    // by path
	packages lazy[[]graph.Package] // by path, then seq
	modules  lazy[[]graph.Module]  // by dir, then path; read with the pin (see reader.pin)
}

// lazy is a value loaded once, however many callers ask at the same time;
// a failed load is retried by the next caller.
type lazy[T any] struct {
	mu     sync.Mutex
	loaded bool
	v      T
}

func (l *lazy[T]) get(ctx context.Context, load func(context.Context) (T, error)) (T, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.loaded {
		v, err := load(ctx)
		if err != nil {
			return v, err
		}
		l.v, l.loaded = v, true
	}
	return l.v, nil
}

// value returns the value when it is loaded.
func (l *lazy[T]) value() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v, l.loaded
}

// set loads v, unless a value is loaded already.
func (l *lazy[T]) set(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.loaded {
		l.v, l.loaded = v, true
	}
}

// rows returns the entry of snapshot id of repository repo.
func (c *snapCache) rows(repo string, id int64) *snapRows {
	return c.snaps.Get(repo, id)
}
