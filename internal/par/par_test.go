package par

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ workers, n int }{
		{1, 0}, {1, 5}, {4, 0}, {4, 1}, {4, 3}, {4, 1000}, {0, 7}, {-2, 7},
	} {
		counts := make([]atomic.Int32, tc.n)
		EachOn(tc.workers, tc.n, func(i int) { counts[i].Add(1) })
		for i := range counts {
			if got := counts[i].Load(); got != 1 {
				t.Errorf("workers %d, n %d: index %d called %d times, want 1", tc.workers, tc.n, i, got)
			}
		}
	}
}

// TestEachBoundsGoroutines checks that no more than workers calls run at
// once, and that with enough items every worker takes part.
func TestEachBoundsGoroutines(t *testing.T) {
	const workers, n = 3, 30
	var mu sync.Mutex
	running, peak := 0, 0
	gate := make(chan struct{})
	var once sync.Once
	EachOn(workers, n, func(i int) {
		mu.Lock()
		running++
		peak = max(peak, running)
		if running == workers {
			once.Do(func() { close(gate) })
		}
		mu.Unlock()
		<-gate // every worker holds its first item until all have one
		mu.Lock()
		running--
		mu.Unlock()
	})
	if peak != workers {
		t.Errorf("peak concurrency %d, want %d", peak, workers)
	}
}

// Work that yields waits while the gate is held, by every holder, and
// goes on once it opens or its context ends.
func TestGate(t *testing.T) {
	var g Gate
	ctx := WithGate(context.Background(), &g)
	Yield(ctx) // open: at once
	Yield(context.Background())
	r1, r2 := g.Hold(), g.Hold()
	passed := make(chan struct{})
	go func() {
		Yield(ctx)
		close(passed)
	}()
	r1()
	r1() // a second release does nothing
	select {
	case <-passed:
		t.Fatal("passed a gate one holder still holds")
	case <-time.After(50 * time.Millisecond):
	}
	r2()
	select {
	case <-passed:
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting at an open gate")
	}
	release := g.Hold()
	defer release()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	Yield(cancelled) // its context ended: at once
}
