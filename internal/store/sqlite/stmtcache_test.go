package sqlite

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestStmtCacheFullPool: with every connection of the read pool held by a
// reader, each reader's first statement still runs. Preparing a statement
// for the cache takes a connection of the pool; waiting for one there,
// every reader waited for the others for ever.
func TestStmtCacheFullPool(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	repo, err := s.EnsureRepository(ctx, "/src/pool", "pool")
	if err != nil {
		t.Fatal(err)
	}
	publishGeneration(t, s, repo, 1, 50)
	var readers []*reader
	for range maxReaders {
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		readers = append(readers, r.Catalog.(*reader))
	}
	done := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		for _, r := range readers {
			wg.Go(func() {
				if _, err := r.Repositories(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("readers holding every connection of the pool did not get through their first query")
	}
}

// TestStmtCacheSerialReader: a client that reads one call at a time holds
// the pool's only connection whenever it queries; its statements must be
// cached all the same (they were not: the cache waited for an idle
// connection that a serial client never leaves).
func TestStmtCacheSerialReader(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	repo, err := s.EnsureRepository(ctx, "/src/serial", "serial")
	if err != nil {
		t.Fatal(err)
	}
	publishGeneration(t, s, repo, 1, 5)
	for i := range 3 {
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Repositories(ctx); err != nil {
			t.Fatal(err)
		}
		r.Close()
		s.stmts.mu.Lock()
		n := len(s.stmts.stmts)
		s.stmts.mu.Unlock()
		if n == 0 {
			t.Fatalf("call %d: no statement cached", i+1)
		}
	}
}
