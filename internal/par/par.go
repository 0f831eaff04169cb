// Package par shares a fixed list of independent work items among the
// machine's processors: the one work-sharing loop of the indexer, the
// loader and change impact, so each bounds its goroutines the same way.
//
// Items are handed out one at a time from a shared counter, so a slow
// item holds up one goroutine, not a fixed share of the list. Standard
// library only.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i in [0, n), on at most GOMAXPROCS goroutines
// (never more than n), and returns when every call has returned. The
// calls run concurrently: f must be safe for that, and writes its result
// to a slot of its own (out[i] = ...).
func Each(n int, f func(i int)) {
	EachOn(runtime.GOMAXPROCS(0), n, f)
}

// EachOn is Each on at most workers goroutines (at least one).
func EachOn(workers, n int, f func(i int)) {
	workers = min(max(workers, 1), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
