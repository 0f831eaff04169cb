package main

import (
	"fmt"
	"io"
	"time"
)

func report(w io.Writer, r *results) {
	if s := r.Search; s != nil {
		fmt.Fprintf(w, "search_code on %d questions (cobra and x/tools):\n", s.Questions)
		for _, row := range s.Rows {
			mark := "miss"
			if row.Rank > 0 {
				mark = fmt.Sprintf("#%d", row.Rank)
			}
			fmt.Fprintf(w, "  %-5s %-6s %-60q %v\n", mark, row.Corpus, row.Question, row.Top)
		}
		fmt.Fprintf(w, "  right symbol first: %d/%d = %.0f%% (target ≥ 60%%)  %s\n", s.First, s.Questions, s.FirstPct, verdict(s.FirstPct >= 60))
		fmt.Fprintf(w, "  in the top 5:       %d/%d = %.0f%% (target ≥ 90%%)  %s\n", s.Top5, s.Questions, s.Top5Pct, verdict(s.Top5Pct >= 90))
		fmt.Fprintf(w, "  search_code latency, %d calls: p50 %s, p90 %s, max %s\n", s.Latency.N, ms(s.Latency.P50), ms(s.Latency.P90), ms(s.Latency.Max))
	}
	if t := r.Tokens; t != nil {
		reportTokens(w, t)
	}
	if l := r.Latency; l != nil {
		reportLatency(w, l)
	}
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

// ms renders a duration in milliseconds.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
