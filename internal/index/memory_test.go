package index

import (
	"math"
	"runtime/debug"
	"testing"
)

// capHeap, when the environment asks for it, sets a soft memory limit
// above what the runtime holds, lifts it when the last of several holders
// is done, and leaves a limit it did not set (GOMEMLIMIT) alone; unset or
// "off", it does nothing.
func TestCapHeap(t *testing.T) {
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	defer debug.SetMemoryLimit(limit())
	debug.SetMemoryLimit(math.MaxInt64)

	t.Setenv(HeapCapEnv, "1.5")
	lift1 := capHeap()
	capped := limit()
	if capped == math.MaxInt64 || capped <= 0 {
		t.Fatalf("no cap set: limit %d", capped)
	}
	lift2 := capHeap() // a second Index at the same time keeps the first cap
	if got := limit(); got != capped {
		t.Errorf("second holder changed the cap: %d, want %d", got, capped)
	}
	lift1()
	lift1() // idempotent
	if got := limit(); got != capped {
		t.Errorf("cap lifted while a holder remains: %d", got)
	}
	lift2()
	if got := limit(); got != math.MaxInt64 {
		t.Errorf("cap not lifted: %d", got)
	}

	debug.SetMemoryLimit(1 << 40) // the user's GOMEMLIMIT
	capHeap()()
	if got := limit(); got != 1<<40 {
		t.Errorf("user's limit replaced: %d", got)
	}
	debug.SetMemoryLimit(math.MaxInt64)

	for _, v := range []string{"off", "", "0.5"} {
		t.Setenv(HeapCapEnv, v)
		lift := capHeap()
		if got := limit(); got != math.MaxInt64 {
			t.Errorf("%s=%q still set a cap: %d", HeapCapEnv, v, got)
		}
		lift()
	}
}

// loosenGC raises GOGC for the rest of an indexing run, to GCEnv's value
// when set, puts the previous value back when the last of several runs is
// done, and leaves the collector alone when GOGC is set.
func TestLoosenGC(t *testing.T) {
	percent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")

	restore1 := loosenGC()
	if got := percent(); got != indexGCPercent {
		t.Fatalf("GOGC %d while indexing, want %d", got, indexGCPercent)
	}
	restore2 := loosenGC()
	restore1()
	restore1() // idempotent
	if got := percent(); got != indexGCPercent {
		t.Errorf("GOGC %d while a run remains, want %d", got, indexGCPercent)
	}
	restore2()
	if got := percent(); got != 100 {
		t.Errorf("GOGC %d after the runs, want 100 back", got)
	}

	t.Setenv(GCEnv, "300")
	restore := loosenGC()
	if got := percent(); got != 300 {
		t.Errorf("%s=300: GOGC %d", GCEnv, got)
	}
	restore()

	t.Setenv("GOGC", "100") // the user's choice stands
	loosenGC()()
	debug.SetGCPercent(80)
	restore = loosenGC()
	if got := percent(); got != 80 {
		t.Errorf("GOGC set in the environment, yet changed to %d", got)
	}
	restore()
}
