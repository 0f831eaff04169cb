package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// results is the whole run, as written to bench/results.
type results struct {
	harness.Header
	// Tools are the versions of the pinned indexers and servers.
	Tools     map[string]string `json:"tools"`
	Languages []*languageResult `json:"languages"`
	Go        *goResult         `json:"go,omitempty"`
	Checks    []harness.Check   `json:"checks"`
}

// languageResult is every figure of one corpus.
type languageResult struct {
	Language    string               `json:"language"`
	Corpus      harness.Pinned       `json:"corpus"`
	Dir         string               `json:"dir"`
	SourceFiles int                  `json:"source_files"`
	Summary     harness.IndexSummary `json:"summary"`
	Index       []indexRound         `json:"index,omitempty"`
	Parity      []*parityTool        `json:"parity,omitempty"`
	Symbols     []paritySymbol       `json:"symbols,omitempty"`
	// LSPReferences is lsp_references (every page) of the parity symbols,
	// once the server has settled; LSPFirstCall the call that started it.
	// ParityFindReferences is find_references (every page) of the same.
	LSPReferences harness.Latency `json:"lsp_references"`
	LSPFirstCall  time.Duration   `json:"lsp_first_call_ns"`
	// WarmUp is how long the server's answer for WarmUpProbe took to
	// settle (see warmUp), with each answer's count.
	WarmUp       time.Duration `json:"warm_up_ns"`
	WarmUpProbe  string        `json:"warm_up_probe"`
	WarmUpCounts []int         `json:"warm_up_counts"`
	// ChangedOnSecondAsk are the parity symbols whose server answer
	// changed when asked again after every other (see parity).
	ChangedOnSecondAsk   []string        `json:"changed_on_second_ask,omitempty"`
	ParityFindReferences harness.Latency `json:"parity_find_references"`
	Latency              *latencies      `json:"latency,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// checks judges every figure against its target.
func checks(res *results) []harness.Check {
	var cs []harness.Check
	var ts *languageResult
	for _, lr := range res.Languages {
		if lr.Language == "typescript" {
			ts = lr
		}
		for _, p := range lr.Parity {
			if p.Server == 0 && p.Sextant == 0 {
				continue
			}
			cs = append(cs,
				harness.AtMost(fmt.Sprintf("%s %s: server's locations missed", lr.Language, p.Tool), 100-p.FoundPc, 1, "%",
					fmt.Sprintf("%d of %d found over %d symbols", p.Found, p.Server, p.Symbols)),
				harness.AtMost(fmt.Sprintf("%s %s: extra locations", lr.Language, p.Tool), p.ExtraPc, 1, "%",
					fmt.Sprintf("%d beyond the server's %d", p.Extra, p.Server)))
		}
		if len(lr.Index) > 0 {
			var ratios []float64
			var hwm, scip int64
			for _, r := range lr.Index {
				ratios = append(ratios, r.Ratio)
				hwm = max(hwm, r.Sextant.SelfHWMKiB)
				scip = max(scip, r.Indexers.LargestSCIP)
			}
			med := median(ratios)
			cs = append(cs,
				harness.AtMost(lr.Language+": index wall time ÷ the indexers' own run", med, 1.2, "x",
					fmt.Sprintf("median of %d rounds %v", len(ratios), ratios)),
				harness.AtMost(lr.Language+": import peak RSS (sextant alone)", float64(hwm)/1024, 2*float64(scip)/(1<<20)+200, "MiB",
					fmt.Sprintf("largest SCIP file %.1f MiB; limit 2× that + 200 MiB", float64(scip)/(1<<20))))
		}
	}
	if ts != nil && ts.Latency != nil && res.Go != nil && res.Go.Latency != nil {
		cs = append(cs,
			harness.AtMost("typescript find_symbol p50 ÷ Go's", harness.Ratio(ms(ts.Latency.FindSymbol.P50), ms(res.Go.Latency.FindSymbol.P50)), 2, "x",
				fmt.Sprintf("%.2f ms vs %.2f ms", ms(ts.Latency.FindSymbol.P50), ms(res.Go.Latency.FindSymbol.P50))),
			harness.AtMost("typescript find_references p50 ÷ Go's", harness.Ratio(ms(ts.Latency.FindReferences.P50), ms(res.Go.Latency.FindReferences.P50)), 2, "x",
				fmt.Sprintf("%.2f ms vs %.2f ms", ms(ts.Latency.FindReferences.P50), ms(res.Go.Latency.FindReferences.P50))))
	}
	return cs
}

// printReport prints the figures, every difference, then the checks.
func printReport(w io.Writer, res *results) {
	fmt.Fprintf(w, "\nscip-bench, load average %s → %s\n", res.Machine.LoadAvgStart, res.Machine.LoadAvgEnd)
	for _, lr := range res.Languages {
		fmt.Fprintf(w, "\n== %s: %s %s (%s), %s: %d files, %d symbols indexed\n", lr.Language, lr.Corpus.Repo, lr.Corpus.Tag, lr.Corpus.Commit[:12], lr.Corpus.Root, lr.Summary.Files, lr.Summary.Symbols)
		for i, r := range lr.Index {
			fmt.Fprintf(w, "index round %d: indexers alone %s wall, %s CPU (%d projects, SCIP %.1f MiB, largest %.1f MiB); sextant index %s wall, %s CPU, own peak RSS %d MiB: %.2f× wall, %.2f× CPU\n",
				i+1, r.Indexers.Wall.Round(time.Millisecond), r.Indexers.CPU.Round(time.Millisecond), r.Indexers.Projects,
				float64(r.Indexers.SCIPBytes)/(1<<20), float64(r.Indexers.LargestSCIP)/(1<<20),
				r.Sextant.Wall.Round(time.Millisecond), (r.Sextant.UserCPU + r.Sextant.SysCPU).Round(time.Millisecond), r.Sextant.SelfHWMKiB>>10, r.Ratio, r.CPURatio)
		}
		for _, p := range lr.Parity {
			fmt.Fprintf(w, "%s vs %s: %d symbols, server %d locations (+%d outside the root), sextant %d; found %d (%.1f%%), extra %d (%.1f%%); without the differences by design found %.1f%%, extra %.1f%%\n",
				p.Tool, p.Request, p.Symbols, p.Server, p.OutsideRoot, p.Sextant, p.Found, p.FoundPc, p.Extra, p.ExtraPc, p.FoundPcNotByDesign, p.ExtraPcNotByDesign)
			causes := make([]string, 0, len(p.Causes))
			for c := range p.Causes {
				causes = append(causes, c)
			}
			slices.Sort(causes)
			for _, c := range causes {
				fmt.Fprintf(w, "  %4d  %s\n", p.Causes[c], c)
			}
			for _, d := range p.Differences {
				fmt.Fprintf(w, "    %s %s (%s) %s  %q  [%s]\n", map[string]string{"server": "+", "sextant": "-"}[d.Side], d.Symbol, d.Kind, d.At, d.Text, d.Cause)
			}
			for _, e := range p.Errors {
				fmt.Fprintf(w, "  error: %s\n", e)
			}
		}
		if lr.LSPReferences.N > 0 {
			fmt.Fprintf(w, "server warm-up: first call %s; references of %s settled after %s %v\n", lr.LSPFirstCall.Round(time.Millisecond), lr.WarmUpProbe, lr.WarmUp.Round(time.Millisecond), lr.WarmUpCounts)
			if len(lr.ChangedOnSecondAsk) > 0 {
				fmt.Fprintf(w, "server answers that changed when asked again: %v\n", lr.ChangedOnSecondAsk)
			}
			fmt.Fprintf(w, "references of the parity symbols, every page: lsp_references p50 %.1f ms, find_references p50 %.2f ms\n",
				ms(lr.LSPReferences.P50), ms(lr.ParityFindReferences.P50))
		}
		if l := lr.Latency; l != nil {
			fmt.Fprintf(w, "query sets (%d calls each): find_symbol p50 %.2f ms, find_references p50 %.2f ms\n", l.Calls, ms(l.FindSymbol.P50), ms(l.FindReferences.P50))
		}
	}
	if g := res.Go; g != nil && g.Latency != nil {
		fmt.Fprintf(w, "\n== go: %s %s, %d .go files, %d symbols: find_symbol p50 %.2f ms, find_references p50 %.2f ms\n",
			g.Repo, g.Commit, g.Files, g.Summary.Symbols, ms(g.Latency.FindSymbol.P50), ms(g.Latency.FindReferences.P50))
	}
	fmt.Fprintln(w)
	for _, c := range res.Checks {
		fmt.Fprintf(w, "%-60s %12s (limit %s)  %s  %s\n", c.Name, c.Format(c.Value), c.Format(c.Limit), c.Verdict(), c.Detail)
	}
}

// median is the middle value, or the mean of the two middle ones of an
// even count (harness.Median takes the lower).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
