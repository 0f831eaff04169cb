package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// results is everything one run measured; it is written as JSON.
type results struct {
	harness.Header
	Gopls  string        `json:"gopls"`
	Index  indexResult   `json:"index"`
	Parity *parityResult `json:"parity,omitempty"`
	MCP    *mcpCompare   `json:"gopls_mcp,omitempty"`
	Checks []check       `json:"checks"`
}

// check is one figure against its target; Pass is nil for a figure
// reported without a target.
type check struct {
	Part   string `json:"part"`
	Name   string `json:"name"`
	Value  string `json:"value"`
	Target string `json:"target"`
	Pass   *bool  `json:"pass,omitempty"`
}

func (c check) verdict() string {
	switch {
	case c.Pass == nil:
		return "-"
	case *c.Pass:
		return "PASS"
	}
	return "MISS"
}

func judged(part, name, value, target string, pass bool) check {
	return check{Part: part, Name: name, Value: value, Target: target, Pass: &pass}
}

// Targets of the acceptance criteria.
const (
	maxIndexRatio = 2.0
	minSpeedup    = 20.0
	maxTokenRatio = 1.0 / 3
	maxCallersP50 = 20 * time.Millisecond
)

func checks(r *results) []check {
	var out []check
	if p := r.Parity; p != nil {
		out = append(out,
			judged("a", fmt.Sprintf("find_references = gopls references (%d symbols, %d kinds)", len(p.Symbols), len(p.Kinds)),
				fmt.Sprintf("%d/%d queries (%d of gopls's own differences listed); %d/%d gopls positions, %d extra", p.Refs.Matched, p.Refs.Queries, len(p.Refs.Explained), p.Refs.Common, p.Refs.Gopls, p.Refs.Sextant-p.Refs.Common),
				"all", p.Refs.Matched == p.Refs.Queries),
			judged("a", "find_implementations = gopls implementation (interfaces)",
				fmt.Sprintf("%d/%d queries; %d/%d gopls results, %d extra", p.Impls.Matched, p.Impls.Queries, p.Impls.Common, p.Impls.Gopls, p.Impls.Sextant-p.Impls.Common),
				"all", p.Impls.Matched == p.Impls.Queries))
	}
	if m := r.MCP; m != nil {
		sx, gp := m.Latency["find_references"], m.Latency[m.GoplsTool]
		part := "b"
		if m.Fallback {
			part = "b*"
		}
		out = append(out,
			judged(part, fmt.Sprintf("find_references p50 speed-up over %s", m.GoplsTool),
				fmt.Sprintf("%.0f× (%s vs %s, n=%d)", m.SpeedupP50, msec(sx.P50), msec(gp.P50), sx.N), "≥ 20×", m.SpeedupP50 >= minSpeedup),
			check{Part: part, Name: "the same, timed until the response is read off the pipe (before the client decodes it)",
				Value: fmt.Sprintf("%.0f× (%s vs %s)", m.WireSpeedupP50, msec(m.WireLatency["find_references"].P50),
					msec(m.WireLatency[m.GoplsTool].P50)), Target: "-"},
			judged(part, "recall of gopls's (file, line) references",
				fmt.Sprintf("%.2f%% (%d/%d)", 100*m.Recall, m.Recalled, m.GoplsLines), "100%", m.Recalled == m.GoplsLines),
			judged(part, "output tokens ÷ gopls's (chars/4, whole answer)",
				fmt.Sprintf("%.2f (%d / %d)", m.TokenRatio, m.SextantTokens, m.GoplsTokens), "≤ 0.33 at equal recall",
				m.TokenRatio <= maxTokenRatio && m.Recalled == m.GoplsLines))
		for _, d := range []string{"get_callers depth 1", "get_callers depth 5"} {
			l := m.Latency[d]
			c := check{Part: part, Name: d + " p50 (MCP)", Value: fmt.Sprintf("%s (p99 %s, n=%d)", msec(l.P50), msec(l.P99), l.N), Target: "-"}
			if d == "get_callers depth 5" {
				c = judged(part, c.Name, c.Value, "≤ 20 ms", l.N > 0 && l.P50 <= maxCallersP50)
			}
			out = append(out, c)
		}
	}
	if ir := r.Index; len(ir.Sextant) > 0 {
		b, s := ir.Median.Bare, ir.Median.Sextant
		out = append(out,
			judged("c", "index wall time ÷ bare go/packages load: references and edges (SEXTANT_EFFECTS=off)",
				fmt.Sprintf("%.2f× (%s / %s)", ir.RefsEdgesRatios.Wall, secs(ir.Median.RefsEdges.Wall), secs(b.Wall)), "≤ 2×",
				len(ir.RefsEdges) > 0 && ir.RefsEdgesRatios.Wall <= maxIndexRatio),
			check{Part: "c", Name: "the same, as users run it (effect rows too; their budget is effects-bench's)",
				Value: fmt.Sprintf("%.2f× (%s / %s)", ir.Ratios.Wall, secs(s.Wall), secs(b.Wall)), Target: "-"},
			check{Part: "c", Name: "index peak RSS ÷ bare load (ru_maxrss)", Value: fmt.Sprintf("%.2f× (%s / %s)", ir.Ratios.MaxRSS, mib(s.MaxRSSKiB), mib(b.MaxRSSKiB)), Target: "-"},
			check{Part: "c", Name: "index CPU ÷ bare load", Value: fmt.Sprintf("%.2f× (%s / %s)", ir.Ratios.CPU, secs(s.UserCPU+s.SysCPU), secs(b.UserCPU+b.SysCPU)), Target: "-"})
	}
	return out
}

func printReport(w io.Writer, r *results) {
	m := r.Machine
	fmt.Fprintf(w, "\nSextant references and call graph vs %s\n", r.Gopls)
	fmt.Fprintf(w, "%s, %s, %d CPUs (%s), kernel %s; load average %s at the start, %s at the end\n", m.GoVersion, m.OS, m.CPUs, m.CPU, m.Kernel, m.LoadAvgStart, m.LoadAvgEnd)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if ir := r.Index; len(ir.Sextant) > 0 {
		last := ir.Sextant[len(ir.Sextant)-1]
		fmt.Fprintf(w, "\n(c) %s: median of %d alternated runs each after one warm-up; sextant: %d packages, %d files, %d symbols, db %.0f MiB\n",
			r.Corpus.Module, ir.Runs, last.Summary.Packages, last.Summary.Files, last.Summary.Symbols, float64(last.DBBytes)/(1<<20))
	}
	if p := r.Parity; p != nil {
		fmt.Fprintf(w, "\n(a) parity on %s: %d symbols %v; gopls first call %s\n", r.Corpus.Module, len(p.Symbols), p.Kinds, msec(p.GoplsLoad))
		for _, d := range append(append([]string(nil), p.Refs.Differences...), p.Impls.Differences...) {
			fmt.Fprintf(w, "  diff: %s\n", d)
		}
		for _, d := range p.Refs.Explained {
			fmt.Fprintf(w, "  gopls's own: %s\n", d)
		}
	}
	if mc := r.MCP; mc != nil {
		fmt.Fprintf(w, "\n(b) %s (%s), %d symbols × %d calls per tool; %s args %v; gopls first call %s\n",
			mc.Module, mc.Dir, len(mc.Queries), mc.Repeat, mc.GoplsTool, mc.GoplsToolArgs, msec(mc.GoplsFirst))
		if mc.Index != nil {
			fmt.Fprintf(w, "  indexed once in %s (%d packages, %d symbols, ru_maxrss %s)\n", secs(mc.Index.Wall), mc.Index.Summary.Packages, mc.Index.Summary.Symbols, mib(mc.Index.MaxRSSKiB))
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  symbol\tkind\trefs\tgopls refs\tsextant p50\tgopls p50\tsextant tok\tgopls tok\tmissed\t")
		for _, q := range mc.Queries {
			if q.Error != "" {
				fmt.Fprintf(tw, "  %s\t%s\terror: %s\t\t\t\t\t\t\t\n", q.Qualified, q.Kind, q.Error)
				continue
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t\n", q.Qualified, q.Kind, q.SextantTotal, q.GoplsCount,
				msec(q.SextantP50), msec(q.GoplsP50), q.SextantTokens, q.GoplsTokens, len(q.Missed))
		}
		tw.Flush()
		for _, q := range mc.Queries {
			for _, p := range q.Missed {
				fmt.Fprintf(w, "  missed (%s): %s\n", q.Qualified, p)
			}
		}
		for _, e := range mc.Errors {
			fmt.Fprintf(w, "  error: %s\n", e)
		}
	}
	fmt.Fprintf(w, "\nTargets\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  part\tfigure\tvalue\ttarget\tverdict\t")
	for _, c := range r.Checks {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\n", c.Part, c.Name, c.Value, c.Target, c.verdict())
	}
	tw.Flush()
}

func writeJSON(o options, root string, r *results) error {
	return harness.WriteJSON(root, o.Out, "xref", r)
}

func msec(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.2f s", ms/1000)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
