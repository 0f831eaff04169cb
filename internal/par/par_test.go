package par

import (
	"sync"
	"sync/atomic"
	"testing"
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
