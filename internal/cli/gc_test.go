package cli

import (
	"runtime/debug"
	"testing"
)

func currentGCPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestGCPolicy: serving raises GOGC, indexing runs (overlapping ones too)
// put the default back until the last ends, and an explicit GOGC in the
// environment is left alone.
func TestGCPolicy(t *testing.T) {
	t.Cleanup(func() {
		gcPolicy.serving, gcPolicy.runs = 0, 0
		debug.SetGCPercent(100)
	})
	debug.SetGCPercent(100)
	servingGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := currentGCPercent(); got != 100 {
		t.Fatalf("with GOGC set, serving changed GOGC to %d", got)
	}
	servingGC(func(string) string { return "" })
	if got := currentGCPercent(); got != servingGCPercent {
		t.Fatalf("serving: GOGC %d, want %d", got, servingGCPercent)
	}
	first := indexingGC()
	second := indexingGC()
	if got := currentGCPercent(); got != 100 {
		t.Fatalf("while indexing: GOGC %d, want 100", got)
	}
	first()
	if got := currentGCPercent(); got != 100 {
		t.Fatalf("with one run left: GOGC %d, want 100", got)
	}
	second()
	if got := currentGCPercent(); got != servingGCPercent {
		t.Fatalf("after indexing: GOGC %d, want %d", got, servingGCPercent)
	}
}
