package index

import (
	"context"
	"io/fs"
	"math"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/sextant-dev/sextant/internal/load"
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

// The dependencies' types a unit checked reach the type cache before the
// next unit loads (it may import them), but only once the unit's own
// syntax, types and call graph are released: encoding them takes memory
// of its own, which would add to the unit's peak if it ran while the unit
// is extracted.
func TestTypeCacheWrittenBetweenUnits(t *testing.T) {
	hermetic(t)
	typeCache := t.TempDir()
	t.Setenv(load.TypeCacheEnv, typeCache)
	dir := realDir(t)
	writeFile(t, dir, "a/go.mod", "module example.com/a\n\ngo 1.22\n")
	writeFile(t, dir, "a/a.go", "package a\n\nimport \"strings\"\n\nfunc A(s string) string { return strings.ToUpper(s) }\n")
	writeFile(t, dir, "b/go.mod", "module example.com/b\n\ngo 1.22\n")
	writeFile(t, dir, "b/b.go", "package b\n\nimport \"strings\"\n\nfunc B(s string) string { return strings.ToLower(s) }\n")

	cached := func() int {
		n := 0
		_ = filepath.WalkDir(typeCache, func(path string, d fs.DirEntry, err error) error {
			// Entries, fanned out below the top, where the cache keeps its
			// own bookkeeping.
			if err == nil && d.Type().IsRegular() && filepath.Dir(path) != typeCache {
				n++
			}
			return nil
		})
		return n
	}
	unit := -1
	var atExtract, atNextLoad []int // files in the cache when each unit's extraction began, and when each later unit's load began
	progress := func(p Progress) {
		switch {
		case p.Phase == PhaseLoad:
			unit = p.Done
			if unit > 0 {
				atNextLoad = append(atNextLoad, cached())
			}
		case p.Phase == PhaseExtract && p.Message == "call graph":
			atExtract = append(atExtract, cached())
		}
	}
	if _, err := Index(context.Background(), &fakeStore{}, dir, Options{Progress: progress}); err != nil {
		t.Fatal(err)
	}
	if unit != 1 || len(atExtract) != 2 || len(atNextLoad) != 1 {
		t.Fatalf("saw %d units, %d extractions, %d later loads; want 2, 2, 1", unit+1, len(atExtract), len(atNextLoad))
	}
	if atExtract[0] != 0 {
		t.Errorf("the type cache held %d files when the first unit's extraction began, want none yet", atExtract[0])
	}
	if atNextLoad[0] == 0 {
		t.Errorf("the type cache was empty when the second unit's load began")
	}
}
