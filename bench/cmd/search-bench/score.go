package main

import (
	"fmt"
	"io"
	"math"
)

// score is one method's figures on a set of questions.
type score struct {
	Questions int     `json:"questions"`
	Top1      int     `json:"top1"`
	Top5      int     `json:"top5"`
	Top1Pct   float64 `json:"top1_pct"`
	Top5Pct   float64 `json:"top5_pct"`
	// MRR is the mean reciprocal rank of the answer, 0 for a miss
	// beyond the limit.
	MRR float64 `json:"mrr"`
}

func (s *score) add(rank int) {
	s.Questions++
	if rank == 1 {
		s.Top1++
	}
	if rank >= 1 && rank <= 5 {
		s.Top5++
	}
	if rank > 0 {
		s.MRR += 1 / float64(rank)
	}
}

func (s *score) finish() {
	if s.Questions == 0 {
		return
	}
	round := func(x float64) float64 { return math.Round(x*1000) / 10 }
	s.Top1Pct = round(float64(s.Top1) / float64(s.Questions))
	s.Top5Pct = round(float64(s.Top5) / float64(s.Questions))
	s.MRR = math.Round(s.MRR/float64(s.Questions)*1000) / 1000
}

// summaryKeys are the groups of questions reported: per set, generated
// and written alone and together; Go modules as SET/KIND, the others per
// language as SET/LANGUAGE/KIND.
func summaryKeys(set, lang, kind string) []string {
	if lang != "go" {
		set += "/" + lang
	}
	return []string{set + "/" + kind, set + "/all"}
}

// summarySets are the sets of summaryKeys, in the order reported.
var summarySets = []string{"measured", "measured/typescript", "measured/python", "tuning", "tuning/typescript", "tuning/python"}

// summarize scores each method on each group of questions.
func summarize(mods []moduleResult, methods []string) map[string]map[string]*score {
	out := map[string]map[string]*score{}
	for _, m := range mods {
		for _, q := range m.Questions {
			for _, k := range summaryKeys(m.Set, m.language(), q.Kind) {
				if out[k] == nil {
					out[k] = map[string]*score{}
				}
				for _, meth := range methods {
					if out[k][meth] == nil {
						out[k][meth] = &score{}
					}
					out[k][meth].add(q.Ranks[meth])
				}
			}
		}
	}
	for _, g := range out {
		for _, s := range g {
			s.finish()
		}
	}
	return out
}

// report prints the summary as a table per group.
func report(w io.Writer, r *results, methods []string) {
	for _, set := range summarySets {
		for _, kind := range []string{"generated", "written", "all"} {
			g := r.Summary[set+"/"+kind]
			if g == nil {
				continue
			}
			fmt.Fprintf(w, "\n%s, %s questions (%d)\n", set, kind, g[methods[0]].Questions)
			fmt.Fprintf(w, "%-28s %12s %12s %6s\n", "method", "top-1", "top-5", "MRR")
			for _, m := range methods {
				s := g[m]
				fmt.Fprintf(w, "%-28s %5d %5.1f%% %5d %5.1f%% %6.3f\n", m, s.Top1, s.Top1Pct, s.Top5, s.Top5Pct, s.MRR)
			}
		}
	}
	for name, l := range r.Latency {
		fmt.Fprintf(w, "search_code %s over MCP: p50 %.2f ms, p90 %.2f ms (%d calls)\n", name, float64(l.P50)/1e6, float64(l.P90)/1e6, l.N)
	}
	for name, l := range r.DefaultLatency {
		fmt.Fprintf(w, "search_code %s over MCP on %s, default arguments: p50 %.2f ms, p90 %.2f ms (%d calls; target p50 <= 5 ms)\n", name, r.LatencyModule, float64(l.P50)/1e6, float64(l.P90)/1e6, l.N)
	}
	for name, e := range r.AfterEdit {
		fmt.Fprintf(w, "search_code %s after an edit of %s, the snapshot amended: the first p50 %.2f ms, p90 %.2f ms; the next p50 %.2f ms (%d edits)\n",
			name, e.File, float64(e.First.P50)/1e6, float64(e.First.P90)/1e6, float64(e.Next.P50)/1e6, e.First.N)
	}
}
