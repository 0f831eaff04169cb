package index

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
)

// Indexing's peak memory is set by the garbage collector's headroom rather
// than by what it holds. Loading ends with about as much heap as a bare
// go/packages load; then the call graph's SSA bodies join the type
// information for a while (a live heap of about 340 MiB on
// golang.org/x/tools, against 190 MiB after loading), and with the default
// GOGC the heap grows to about twice that before a collection: the peak
// RSS was 2.4x the bare load's.
//
// With HeapCapEnv set to a factor F, Index caps the Go heap, once the last
// unit is loaded, at F times the memory the runtime held after loading (a
// soft limit, debug.SetMemoryLimit), so the collector runs more often
// while the live heap is large, and lifts the cap when it returns. It
// trades CPU for memory, and the trade is steep when the live heap comes
// close to the cap: on x/tools, F = 1.4 or 1.5 took the peak RSS from
// ~650 to ~470 MiB for 20-30% more CPU (and once, on a machine at load 18,
// 80% more), which is why it is not the default.

// HeapCapEnv is the environment variable that turns the cap on: a factor
// such as 1.5; unset, "off" or anything else leaves the collector alone.
const HeapCapEnv = "SEXTANT_INDEX_HEAP_CAP"

var heapCap held

// held is a process-wide runtime setting that concurrent Index runs (a
// server indexing two roots) hold together: the first to hold it applies
// it, the last to let go puts back what was there.
type held struct {
	mu      sync.Mutex
	active  int
	restore func()
}

// hold applies the setting with apply unless it is held already, and
// returns the function that lets go of this hold (which may be called
// more than once). apply returns the function that undoes it, or nil
// when it left the setting alone; then nothing is held.
func (h *held) hold(apply func() (restore func())) (release func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.active == 0 {
		if h.restore = apply(); h.restore == nil {
			return func() {}
		}
	}
	h.active++
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.active--; h.active == 0 {
				h.restore()
				h.restore = nil
			}
		})
	}
}

// capHeap sets the soft memory limit for the rest of an Index run when
// HeapCapEnv asks for it, unless the user set a limit (GOMEMLIMIT). The
// returned function lifts it. With several Index runs at once, the first
// sets the limit and the last lifts it.
func capHeap() (lift func()) {
	factor, err := strconv.ParseFloat(os.Getenv(HeapCapEnv), 64)
	if err != nil || factor <= 1 {
		return func() {}
	}
	return heapCap.hold(func() func() {
		if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 {
			return nil // the user's limit stands
		}
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return nil
		}
		prev := debug.SetMemoryLimit(int64(factor * float64(s[0].Value.Uint64())))
		return func() { debug.SetMemoryLimit(prev) }
	})
}

// After loading, the collector marks a live heap that is mostly type
// information, syntax and SSA bodies, all kept to the end of the run, and
// at the default GOGC it does so about twice more (prometheus: two cycles
// of about a second of CPU each over 800 MiB), while a bare load ends
// before that heap exists. At indexGCPercent the heap may grow half as far
// again before a cycle, so one cycle usually does. In alternated runs
// (bench/results/2026-11-30-index-alternated-4df2ed5.txt): on prometheus
// the collector's CPU fell from 2.8 to 1.75 s (gctrace), the index's by
// 10-15%, for a peak RSS a few percent higher; on golang.org/x/tools, 3%
// less wall time for a peak 60 MiB (9%) higher.
const indexGCPercent = 150

// GCEnv is the environment variable that sets the GOGC of an Index run
// once the last unit is loaded, in place of indexGCPercent ("100" for the
// default collector). An explicit GOGC in the environment leaves the
// collector alone.
const GCEnv = "SEXTANT_INDEX_GOGC"

var loosened held

// loosenGC sets GOGC for the rest of an Index run (see indexGCPercent)
// and returns the function that puts the previous value back. With
// several Index runs at once, the first sets it and the last restores it.
func loosenGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	percent := indexGCPercent
	if v, err := strconv.Atoi(os.Getenv(GCEnv)); err == nil && v > 0 {
		percent = v
	}
	return loosened.hold(func() func() {
		prev := debug.SetGCPercent(percent)
		return func() { debug.SetGCPercent(prev) }
	})
}
