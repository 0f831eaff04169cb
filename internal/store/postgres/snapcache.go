package postgres

import (
	"context"
	"sync"

	"github.com/sextant-dev/sextant/internal/graph"
)

// snapCache holds, per snapshot, rows that the queries of almost every
// request start from (a snapshot's files and packages), so that a request
// reads them from memory instead of paying a round trip to the server. A
// snapshot never changes once published, so an entry is valid as long as
// the snapshot exists; a repository's older entries are dropped when a
// newer snapshot of it is seen. It is safe for concurrent use.
type snapCache struct {
	mu     sync.Mutex
	snaps  map[int64]*snapRows
	latest map[string]int64 // repository → newest snapshot id cached
}

// snapRows are one snapshot's cached rows, each loaded on first use.
type snapRows struct {
	files    lazy[[]graph.File]    // by path
	packages lazy[[]graph.Package] // by path, then seq
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

// rows returns the entry of snapshot id of repository repo.
func (c *snapCache) rows(repo string, id int64) *snapRows {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snaps == nil {
		c.snaps, c.latest = map[int64]*snapRows{}, map[string]int64{}
	}
	if id < c.latest[repo] {
		return &snapRows{} // an older snapshot a reader still pins: not kept
	}
	e, ok := c.snaps[id]
	if !ok {
		e = &snapRows{}
		c.snaps[id] = e
		if old, had := c.latest[repo]; had && old < id {
			delete(c.snaps, old)
		}
		if c.latest[repo] < id {
			c.latest[repo] = id
		}
	}
	return e
}
