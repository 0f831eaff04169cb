package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// testEffects holds a store to the EffectRecords contract: records are
// invisible until Publish, read back field for field in function-key and
// AllEffects order (open, then pure, last), replaced by the next snapshot
// while a reader that pinned the previous one keeps seeing its own, and
// an unknown effect is a write error.
func testEffects(t *testing.T, s graph.Store) {
	ctx := context.Background()
	repo := ensure(t, s, "fx")
	first := []graph.EffectRecord{
		{Function: "kB", Effect: graph.EffectOpen, Direct: true, Certain: true, Path: "b.go", Line: 3, Col: 2,
			Detail: "dynamic call with no known callee"},
		{Function: "kB", Effect: graph.EffectFS, Certain: true, Path: "b.go", Line: 4, Col: 9, Next: "kA"},
		{Function: "kA", Effect: graph.EffectFS, Direct: true, Certain: true, Path: "a.go", Line: 7, Col: 12,
			Callee: "os.ReadFile", Detail: "calls os.ReadFile"},
		{Function: "kA", Effect: graph.EffectNet, Direct: true, Path: "a.go", Line: 8, Col: 1,
			Callee: "net/http.Request.FormValue", Detail: "calls net/http.Request.FormValue"},
		{Function: "kC", Effect: graph.EffectPure, Certain: true},
		{Function: "kD", Effect: graph.EffectSpawn, Direct: true, Certain: true, Path: "d.go", Line: 1, Col: 1, Detail: "go statement"},
	}
	w := begin(t, s, repo)
	addNames(t, w, repo, "A", "B", "C")
	if err := w.AddEffects(ctx, first[:2]); err != nil {
		t.Fatalf("AddEffects: %v", err)
	}
	if err := w.AddEffects(ctx, first[2:]); err != nil {
		t.Fatalf("AddEffects: %v", err)
	}
	before := read(t, s)
	if recs, err := before.EffectRecords(ctx, []string{"kA", "kB"}); err != nil || len(recs) != 0 {
		t.Errorf("EffectRecords before Publish = %v, %v; want none", recs, err)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatalf("Publish: %v", err)
	}

	pinned := read(t, s)
	got, err := pinned.EffectRecords(ctx, []string{"kC", "kB", "kA", "kA", "unknown"})
	if err != nil {
		t.Fatalf("EffectRecords: %v", err)
	}
	want := []graph.EffectRecord{first[2], first[3], first[1], first[0], first[4]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EffectRecords =\n%v\nwant\n%v", got, want)
	}

	// Many keys: chunked lookups keep the order.
	var many []string
	for i := range 1200 {
		many = append(many, fmt.Sprintf("k%04d", i))
	}
	many = append(many, "kD", "kA")
	if got, err := pinned.EffectRecords(ctx, many); err != nil || len(got) != 3 || got[0].Function != "kA" ||
		got[2].Function != "kD" {
		t.Errorf("EffectRecords of %d keys = %v, %v; want kA's two records then kD's", len(many), got, err)
	}

	// The next snapshot replaces the records; the pinned reader keeps its own.
	w = begin(t, s, repo)
	addNames(t, w, repo, "A")
	if err := w.AddEffects(ctx, []graph.EffectRecord{{Function: "kA", Effect: graph.EffectPure, Certain: true}}); err != nil {
		t.Fatalf("AddEffects: %v", err)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if got, err := read(t, s).EffectRecords(ctx, []string{"kA", "kB"}); err != nil || len(got) != 1 || got[0].Effect != graph.EffectPure {
		t.Errorf("EffectRecords after the next snapshot = %v, %v; want kA pure only", got, err)
	}
	if got, err := pinned.EffectRecords(ctx, []string{"kB"}); err != nil || len(got) != 2 {
		t.Errorf("pinned reader's EffectRecords = %v, %v; want kB's two records", got, err)
	}

	// An unknown effect fails the write.
	w = begin(t, s, repo)
	defer w.Abort()
	if err := w.AddEffects(ctx, []graph.EffectRecord{{Function: "kA", Effect: "teleport"}}); err == nil {
		t.Errorf("AddEffects with an unknown effect succeeded")
	}
}
