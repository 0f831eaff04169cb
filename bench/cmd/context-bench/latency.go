package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
)

// latencyResult is how fast the verified-source and summary tools answer
// in-process on the x/tools index, over functions picked at random.
type latencyResult struct {
	Calls   int                        `json:"calls"`
	Symbols int                        `json:"symbols"`
	Latency map[string]harness.Latency `json:"latency"`
}

// latency calls read_source and get_context_for_symbol (default budgets,
// by stable key) n times each on random functions and methods of the
// corpus, alternating the two tools, after one untimed round.
func latency(ctx context.Context, c *corpus, n int) (*latencyResult, error) {
	r, err := c.store.Read(ctx)
	if err != nil {
		return nil, err
	}
	var syms []graph.Symbol
	for _, k := range []graph.Kind{graph.KindFunc, graph.KindMethod} {
		s, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "", Mode: graph.MatchPrefix, Kinds: []graph.Kind{k}})
		if err != nil {
			r.Close()
			return nil, err
		}
		for _, sym := range s {
			if !sym.TestOnly {
				syms = append(syms, sym)
			}
		}
	}
	r.Close()
	if len(syms) == 0 {
		return nil, fmt.Errorf("no functions in the index")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	picks := make([]graph.Symbol, n)
	for i := range picks {
		picks[i] = syms[rng.IntN(len(syms))]
	}
	tools := []string{"read_source", "get_context_for_symbol"}
	times := map[string][]time.Duration{}
	for round := 0; round < 2; round++ {
		for i, s := range picks {
			if round == 0 && i >= 50 {
				break // warm-up
			}
			for _, tool := range tools {
				start := time.Now()
				if _, err := c.call(ctx, tool, map[string]any{"stable_key": s.Key}); err != nil {
					return nil, fmt.Errorf("%s %s: %w", tool, s.QualifiedName, err)
				}
				if round == 1 {
					times[tool] = append(times[tool], time.Since(start))
				}
			}
		}
	}
	res := &latencyResult{Calls: n, Symbols: len(syms), Latency: map[string]harness.Latency{}}
	for _, tool := range tools {
		res.Latency[tool] = harness.Summarize(times[tool])
	}
	return res, nil
}

func reportLatency(w io.Writer, l *latencyResult) {
	fmt.Fprintf(w, "\nlatency on the x/tools index, in-process, %d calls per tool on random functions (of %d):\n", l.Calls, l.Symbols)
	for _, tool := range []string{"read_source", "get_context_for_symbol"} {
		lat := l.Latency[tool]
		p50 := float64(lat.P50) / float64(time.Millisecond)
		fmt.Fprintf(w, "  %-24s p50 %.2f ms  p99 %.2f ms  (target p50 ≤ 5 ms)  %s\n", tool, p50, float64(lat.P99)/float64(time.Millisecond), verdict(p50 <= 5))
	}
}
