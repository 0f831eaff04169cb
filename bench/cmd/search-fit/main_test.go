package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/rank"
)

// feature returns a feature vector with the named features set.
func feature(t *testing.T, set map[string]float64) []float64 {
	t.Helper()
	names := rank.FeatureNames()
	f := make([]float64, len(names))
	for n, x := range set {
		i := slices.Index(names, n)
		if i < 0 {
			t.Fatalf("no feature %q", n)
		}
		f[i] = x
	}
	return f
}

func TestRankOf(t *testing.T) {
	w, err := weights(rank.FeatureNames(), "")
	if err != nil {
		t.Fatal(err)
	}
	// Three hits, two definitions of one name: ranks count names.
	q := question{
		features: [][]float64{feature(t, map[string]float64{"text": 3}), feature(t, map[string]float64{"text": 2}), feature(t, map[string]float64{"text": 1})},
		names:    []string{"p\x00A", "p\x00A", "p\x00B"},
		answer:   []bool{false, false, true},
	}
	if r := rankOf(q, w); r != 2 {
		t.Errorf("rank %d, want 2 (B after the two definitions of A)", r)
	}
	wk := slices.Clone(w)
	wk[slices.Index(rank.FeatureNames(), "kind")] = 10
	q.features[2] = feature(t, map[string]float64{"text": 1, "kind": 1})
	if r := rankOf(q, wk); r != 1 {
		t.Errorf("rank %d under a kind weight of 10, want 1", r)
	}
	// Uses count for the best rank.RefPool hits only, as search_code
	// weighs them.
	var pool question
	for i := range rank.RefPool + 1 {
		pool.features = append(pool.features, feature(t, map[string]float64{"text": float64(100 - i)}))
		pool.names = append(pool.names, "p\x00"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
		pool.answer = append(pool.answer, i == rank.RefPool)
	}
	pool.features[rank.RefPool] = feature(t, map[string]float64{"text": float64(100 - rank.RefPool), "uses": 1000})
	if r := rankOf(pool, w); r != 0 {
		t.Errorf("rank %d for a hit past the pool whose uses would lift it, want 0 (past the limit)", r)
	}
	pool.features[0], pool.features[rank.RefPool] = pool.features[rank.RefPool], pool.features[0]
	pool.answer[0], pool.answer[rank.RefPool] = true, false
	pool.features[0][0] = 100
	if r := rankOf(pool, w); r != 1 {
		t.Errorf("rank %d for the best hit, want 1", r)
	}
}

func TestWeights(t *testing.T) {
	names := rank.FeatureNames()
	w, err := weights(names, "kind=2.5,uses=0")
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		want := rank.Weight(n)
		switch n {
		case "kind":
			want = 2.5
		case "uses":
			want = 0
		}
		if w[i] != want {
			t.Errorf("%s = %v, want %v", n, w[i], want)
		}
	}
	for _, bad := range []string{"nosuch=1", "kind=x", "kind"} {
		if _, err := weights(names, bad); err == nil {
			t.Errorf("weights(%q): no error", bad)
		}
	}
}

// TestLoadAndFit: questions joined to their trace lines by TraceKey,
// those of other sets left out; a fit finds the weight that ranks the
// answers first.
func TestLoadAndFit(t *testing.T) {
	dir := t.TempDir()
	type q struct {
		Kind     string `json:"kind"`
		Question string `json:"question"`
		Package  string `json:"package"`
		Answer   string `json:"answer"`
	}
	type m struct {
		Module    string `json:"module"`
		Set       string `json:"set"`
		Questions []q    `json:"questions"`
	}
	res := struct {
		Modules []m `json:"modules"`
	}{Modules: []m{
		{"a@v1", "tuning", []q{{"written", "look up a flag", "p", "Lookup"}, {"generated", "parse the flags", "p", "Parse"}}},
		{"b@v1", "tuning", []q{{"written", "print the usage", "p", "Usage"}}},
		{"c@v1", "measured", []q{{"written", "not in the trace", "p", "X"}}},
	}}
	data, _ := json.Marshal(res)
	results := filepath.Join(dir, "results.json")
	os.WriteFile(results, data, 0o644)
	// In each trace line the answer wins on kind and loses on text.
	var lines []rank.TraceLine
	for _, mod := range res.Modules[:2] {
		for _, qq := range mod.Questions {
			lines = append(lines, rank.TraceLine{Question: rank.TraceKey(qq.Question), Features: rank.FeatureNames(), Hits: []rank.TraceHit{
				{Package: "p", QualifiedName: "Other", Features: feature(t, map[string]float64{"text": 2})},
				{Package: "p", QualifiedName: qq.Answer, Features: feature(t, map[string]float64{"text": 1, "kind": 1.5})},
			}})
		}
	}
	tracePath := writeTraceFile(t, dir, lines)
	qs, err := load(results, tracePath, "tuning")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 {
		t.Fatalf("%d questions, want the 3 of the tuning modules", len(qs))
	}
	w, _ := weights(rank.FeatureNames(), "kind=0")
	if o := objective(qs, w); o != 0.5 {
		t.Errorf("objective %v with no kind weight, want 0.5 (every answer second)", o)
	}
	w = fitWeights(qs, rank.FeatureNames(), w)
	if o := objective(qs, w); o != 1 {
		t.Errorf("objective %v after the fit (weights %v), want 1", o, w)
	}
	if _, err := load(results, tracePath, "measured"); err == nil {
		t.Error("measured: no error for a question the trace lacks")
	}
}

// TestLoadAlike: questions alike without their stop words share a trace
// key; each takes its own line, in the order they were asked.
func TestLoadAlike(t *testing.T) {
	dir := t.TempDir()
	res := `{"modules":[{"module":"a@v1","set":"tuning","questions":[
		{"kind":"generated","question":"the data in to the pointer v","package":"p","answer":"Decode"},
		{"kind":"generated","question":"data in to the pointer v","package":"p","answer":"Decoder.Decode"}]}]}`
	results := filepath.Join(dir, "results.json")
	os.WriteFile(results, []byte(res), 0o644)
	if rank.TraceKey("the data in to the pointer v") != rank.TraceKey("data in to the pointer v") {
		t.Fatal("the two questions' keys differ; the test needs them alike")
	}
	var lines []rank.TraceLine
	for _, answer := range []string{"Decode", "Decoder.Decode"} {
		lines = append(lines, rank.TraceLine{Question: rank.TraceKey("data in to the pointer v"), Features: rank.FeatureNames(), Hits: []rank.TraceHit{
			{Package: "p", QualifiedName: answer, Features: feature(t, map[string]float64{"text": 2})},
			{Package: "p", QualifiedName: "Other", Features: feature(t, map[string]float64{"text": 1})},
		}})
	}
	tracePath := writeTraceFile(t, dir, lines)
	qs, err := load(results, tracePath, "tuning")
	if err != nil {
		t.Fatal(err)
	}
	w, _ := weights(rank.FeatureNames(), "")
	for i, q := range qs {
		if r := rankOf(q, w); r != 1 {
			t.Errorf("question %d: rank %d, want 1 (its own line, which ranks its answer first)", i, r)
		}
	}
}

// writeTraceFile writes lines as a trace in dir and returns its path.
func writeTraceFile(t *testing.T, dir string, lines []rank.TraceLine) string {
	t.Helper()
	var trace []byte
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		trace = append(append(trace, b...), '\n')
	}
	path := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(path, trace, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
