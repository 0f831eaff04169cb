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
