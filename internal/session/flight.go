package session

import (
	"context"
	"errors"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// flight is one indexing run of a root; the calls that find the root
// unindexed or stale while it runs wait for it.
type flight struct {
	done chan struct{}
	err  error
}

// refreshFailure is a refresh of a stale root that failed (a broken
// go.mod, say): the snapshot it started from keeps serving, marked stale
// with the error, and the refresh is tried again once a file changes.
type refreshFailure struct {
	snapshot int64     // the snapshot that kept serving
	at       time.Time // when the failed run started
	err      string
}

// indexOnce indexes root, or waits for the run already indexing it.
func (s *Session) indexOnce(ctx context.Context, root string, progress func(Progress)) error {
	if s.index == nil {
		return graph.Errorf(graph.CodeIndexNotReady, "%s is not indexed yet; run `sextant index %s`", root, root)
	}
	s.mu.Lock()
	f, running := s.indexing[root]
	if !running {
		f = &flight{done: make(chan struct{})}
		s.indexing[root] = f
		go func() {
			// The run belongs to no single caller: it goes on if the caller
			// that started it gives up, so the next call finds it done.
			f.err = s.index(context.WithoutCancel(ctx), root, progress)
			s.mu.Lock()
			delete(s.indexing, root)
			s.mu.Unlock()
			close(f.done)
		}()
	}
	s.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return graph.Wrap(graph.CodeIndexNotReady, ctx.Err(), root+" is still being indexed; call again shortly")
	}
	if f.err != nil {
		var ge *graph.Error
		if errors.As(f.err, &ge) {
			return ge
		}
		return graph.Wrap(graph.CodeIndexingFailed, f.err, "indexing "+root+" failed")
	}
	return nil
}
