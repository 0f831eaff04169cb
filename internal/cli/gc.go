package cli

import (
	"runtime/debug"
	"sync"
)

// servingGCPercent is the collector's GOGC while `sextant serve` answers
// calls and no indexing runs. A serving process keeps a small live heap
// (the name tables, caches) and allocates briefly per call (the SDK's JSON
// decoding and encoding, rows), so at the default 100 it collected every
// few calls and marked the whole live heap each time: a fifth of serve's
// CPU per find_symbol call. At 400 the cycles are four times rarer; the
// heap may grow to five times the live one (x/tools: 46 → 70 MiB resident
// after 2,000 calls). Indexing, whose live heap is hundreds of MiB, runs at
// the default (see indexingGC). An explicit GOGC in the environment wins.
const servingGCPercent = 400

// gcPolicy switches GOGC between serving and indexing.
var gcPolicy struct {
	mu      sync.Mutex
	serving int // the serving percent, 0 when not serving (or GOGC is set)
	runs    int // indexing runs in progress
}

// servingGC sets the serving GOGC unless the environment sets one.
func servingGC(getenv func(string) string) {
	if getenv("GOGC") != "" {
		return
	}
	gcPolicy.mu.Lock()
	defer gcPolicy.mu.Unlock()
	gcPolicy.serving = servingGCPercent
	if gcPolicy.runs == 0 {
		debug.SetGCPercent(servingGCPercent)
	}
}

// indexingGC puts GOGC back to the default for the duration of an
// indexing run (until done is called), so that indexing inside serve
// peaks no higher than `sextant index` does.
func indexingGC() (done func()) {
	gcPolicy.mu.Lock()
	gcPolicy.runs++
	if gcPolicy.runs == 1 && gcPolicy.serving != 0 {
		debug.SetGCPercent(100)
	}
	gcPolicy.mu.Unlock()
	return func() {
		gcPolicy.mu.Lock()
		gcPolicy.runs--
		if gcPolicy.runs == 0 && gcPolicy.serving != 0 {
			debug.SetGCPercent(gcPolicy.serving)
		}
		gcPolicy.mu.Unlock()
	}
}
