package main

import (
	"fmt"
	"io"
	"path"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// printReport writes the human-readable summary: the index figures side
// by side, the latency tables, and every target with its verdict.
func printReport(w io.Writer, r *results) {
	m := r.Machine
	corpus := r.Corpus.Module
	if corpus == "" {
		corpus = r.Corpus.Dir
	}
	fmt.Fprintf(w, "\nSextant benchmark: %s\n", corpus)
	fmt.Fprintf(w, "%s, %s, %d CPUs (%s), %.0f GiB RAM, kernel %s\n", m.GoVersion, m.OS, m.CPUs, m.CPU, float64(m.MemTotalKiB)/(1<<20), m.Kernel)
	fmt.Fprintf(w, "load average (1, 5, 15 min): %s at the start, %s at the end\n", m.LoadAvgStart, m.LoadAvgEnd)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if len(r.Index.Sextant) > 0 {
		printIndex(w, r)
	}

	fmt.Fprintf(w, "\nQuery latency on that index (%d symbols; seeded query set)\n", r.Symbols)
	printLatencies(w, "in-process, through internal/query (no transport)", r.InProcess)
	printLatencies(w, "over MCP stdio, Go SDK client to `sextant serve` (round trip)", r.MCP.latencies)
	fmt.Fprintf(w, "  serve: initialize %s; VmRSS idle %s, after the calls %s; VmHWM %s; ru_maxrss %s; protocol errors %d\n",
		msec(r.MCP.Connect), mib(r.MCP.Idle.RSSKiB), mib(r.MCP.After.RSSKiB), mib(r.MCP.After.HWMKiB), mib(r.MCP.MaxRSSKiB), r.MCP.ProtocolErrors)

	fmt.Fprintf(w, "\nTargets\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  figure\tvalue\ttarget\tverdict\t")
	for _, c := range r.Checks {
		v := c.Format(c.Value)
		if c.Detail != "" {
			v += " (" + c.Detail + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t≤ %s\t%s\t\n", c.Name, v, c.Format(c.Limit), c.Verdict())
	}
	tw.Flush()
}

// printIndex writes the side-by-side indexing figures.
func printIndex(w io.Writer, r *results) {
	last := r.Index.Sextant[len(r.Index.Sextant)-1]
	fmt.Fprintf(w, "\nbare load: %d packages (test variants included); sextant: %d packages, %d files, %d symbols, %d diagnostics; database %s\n",
		r.Index.Bare[0].Report.Packages, last.Summary.Packages, last.Summary.Files, last.Summary.Symbols, last.Summary.Diagnostics, mibBytes(last.DBBytes))
	b, s := r.Index.Median.Bare, r.Index.Median.Sextant
	fmt.Fprintf(w, "Indexing, median of %d runs each\n", r.Index.Runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  figure\tbare load\tsextant index\tratio\t")
	fmt.Fprintf(tw, "  wall time\t%s\t%s\t%.2f×\t\n", secs(b.Wall), secs(s.Wall), r.Index.Ratios.Wall)
	fmt.Fprintf(tw, "  CPU time, user+sys, go list included\t%s\t%s\t%.2f×\t\n", secs(b.UserCPU+b.SysCPU), secs(s.UserCPU+s.SysCPU), r.Index.Ratios.CPU)
	fmt.Fprintf(tw, "  peak RSS, largest process of the tree (ru_maxrss)\t%s\t%s\t%.2f×\t\n", mib(b.MaxRSSKiB), mib(s.MaxRSSKiB), r.Index.Ratios.MaxRSS)
	fmt.Fprintf(tw, "  peak RSS, the process itself (VmHWM, sampled)\t%s\t%s\t%.2f×\t\n", mib(b.SelfHWMKiB), mib(s.SelfHWMKiB), r.Index.Ratios.SelfHWM)
	fmt.Fprintf(tw, "  peak RSS, whole tree (sum of VmRSS, sampled every %s)\t%s\t%s\t%.2f×\t\n", r.Index.SampleEvery, mib(b.TreePeakKiB), mib(s.TreePeakKiB), r.Index.Ratios.TreePeak)
	tw.Flush()
	br := r.Index.Bare[len(r.Index.Bare)-1].Report
	fmt.Fprintf(w, "  bare load's own getrusage (last run): self %s, go list children %s\n", mib(br.MaxRSSSelfKiB), mib(br.MaxRSSChildKiB))
	ph := r.Index.Median.Phases
	fmt.Fprintf(w, "  sextant phases (median): startup %s, load %s, extract+write %s, publish+exit %s\n",
		secs(ph["startup"]), secs(ph["load"]), secs(ph["extract"]), secs(ph["publish"]))
	fmt.Fprint(w, "  runs (wall, maxrss):")
	for i := range r.Index.Bare {
		fmt.Fprintf(w, "  bare %s %s", secs(r.Index.Bare[i].Wall), mib(r.Index.Bare[i].MaxRSSKiB))
	}
	for i := range r.Index.Sextant {
		fmt.Fprintf(w, "  sextant %s %s", secs(r.Index.Sextant[i].Wall), mib(r.Index.Sextant[i].MaxRSSKiB))
	}
	fmt.Fprintln(w)
}

func printLatencies(w io.Writer, title string, l latencies) {
	fmt.Fprintf(w, "  %s; first call %s (untimed); mean CPU per call:", title, msec(l.FirstCall))
	for _, k := range sortedKeys(l.CPUPerCall) {
		fmt.Fprintf(w, " %s %s", k, msec(l.CPUPerCall[k]))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  tool / mode\tn\tp50\tp90\tp99\tmax\tmean\t  outcomes")
	for _, tool := range sortedKeys(l.Tools) {
		st := l.Tools[tool]
		row := func(name string, x harness.Latency, outcomes string) {
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%s\t  %s\n", name, x.N, msec(x.P50), msec(x.P90), msec(x.P99), msec(x.Max), msec(x.Mean), outcomes)
		}
		row(tool, st.All, "")
		for _, mode := range sortedKeys(st.Modes) {
			row(mode, st.Modes[mode], outcomeText(st.Outcomes[mode]))
		}
	}
	tw.Flush()
}

func outcomeText(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// writeJSON writes the results where -out says.
func writeJSON(o options, root string, r *results) error {
	if err := harness.WriteJSON(root, o.Out, corpusName(o), r); err != nil || o.Out == "-" {
		return err
	}
	fmt.Printf("\nresults: %s\n", harness.ResultFile(root, o.Out, corpusName(o)))
	return nil
}

// corpusName names the corpus in a result file's name.
func corpusName(o options) string {
	if o.Corpus != "" {
		return "corpus"
	}
	return strings.ReplaceAll(path.Base(o.Module), "@", "-")
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func msec(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.3f ms", ms(d))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", ms(d))
	}
	return fmt.Sprintf("%.1f ms", ms(d))
}

func mib(kib int64) string { return fmt.Sprintf("%.0f MiB", float64(kib)/1024) }

func mibBytes(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
