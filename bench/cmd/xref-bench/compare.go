package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// compareResults is a -binaries run: in every round the bare load and
// each binary index -module (as users run it and with SEXTANT_EFFECTS=off),
// then each binary answers the gopls mcp comparison (b) on it, the order
// alternated round by round; each figure of every binary after the first
// is divided by the first's of the same round.
type compareResults struct {
	harness.Comparison
	Gopls     string                   `json:"gopls"`
	Bare      []harness.BareRun        `json:"bare"`
	Index     map[string][]sextantRun  `json:"index"`
	RefsEdges map[string][]sextantRun  `json:"refs_edges"`
	MCP       map[string][]*mcpCompare `json:"gopls_mcp"`
}

// compareFigures are the figures a comparison divides, read from one
// round of one binary: its index run, its run with effects off, and its
// answers over MCP.
var compareFigures = []struct {
	name string
	get  func(s, re sextantRun, m *mcpCompare) float64
}{
	{"index wall", func(s, _ sextantRun, _ *mcpCompare) float64 { return float64(s.Wall) }},
	{"index CPU", func(s, _ sextantRun, _ *mcpCompare) float64 { return float64(s.UserCPU + s.SysCPU) }},
	{"index peak RSS", func(s, _ sextantRun, _ *mcpCompare) float64 { return float64(s.MaxRSSKiB) }},
	{"index wall, effects off", func(_, re sextantRun, _ *mcpCompare) float64 { return float64(re.Wall) }},
	{"index CPU, effects off", func(_, re sextantRun, _ *mcpCompare) float64 { return float64(re.UserCPU + re.SysCPU) }},
	{"find_references p50 (MCP)", func(_, _ sextantRun, m *mcpCompare) float64 { return float64(m.Latency["find_references"].P50) }},
	{"find_references p50 at the wire", func(_, _ sextantRun, m *mcpCompare) float64 { return float64(m.WireLatency["find_references"].P50) }},
	{"get_callers depth 1 p50 (MCP)", func(_, _ sextantRun, m *mcpCompare) float64 { return float64(m.Latency["get_callers depth 1"].P50) }},
	{"get_callers depth 5 p50 (MCP)", func(_, _ sextantRun, m *mcpCompare) float64 { return float64(m.Latency["get_callers depth 5"].P50) }},
	{"find_references tokens", func(_, _ sextantRun, m *mcpCompare) float64 { return float64(m.SextantTokens) }},
	{"recall of gopls's lines", func(_, _ sextantRun, m *mcpCompare) float64 { return m.Recall }},
	{"gopls references p50 (the same gopls, a yardstick)", func(_, _ sextantRun, m *mcpCompare) float64 { return float64(m.Latency[m.GoplsTool].P50) }},
}

// compareBinaries measures the -binaries against each other on corpus.
// Parity (a) is left out: it calls this checkout's code in-process,
// whichever binary wrote the index.
func compareBinaries(ctx context.Context, o options, root string, c contenders, goplsBin string, res *results) error {
	bins, err := harness.ParseBinaries(o.Binaries)
	if err != nil {
		return err
	}
	cr := compareResults{Gopls: res.Gopls,
		Index: map[string][]sextantRun{}, RefsEdges: map[string][]sextantRun{}, MCP: map[string][]*mcpCompare{}}
	cr.Comparison = harness.Comparison{
		Header: res.Header, Binaries: bins, Rounds: o.Runs,
	}
	cr.Notes = []string{
		"each round indexes with the bare load and every binary (as users run it, then with SEXTANT_EFFECTS=off), then runs the gopls mcp comparison (b) against every binary's own index; the order alternates round by round (ABC, CBA)",
		"ratios divide each binary's figure by the first binary's of the same round; the spread is over the rounds",
		"parity (a) is not run: it calls this checkout's code in-process, whichever binary wrote the index",
	}
	with := func(b harness.Binary) contenders { d := c; d.Sextant = b.Path; return d }
	logf("warm-up (untimed): bare load and each binary")
	if _, err := c.Bare(ctx); err != nil {
		return err
	}
	for _, b := range bins {
		run, err := with(b).Index(ctx, b.Name+"-warmup", nil)
		if err != nil {
			return fmt.Errorf("%s: %w", b.Name, err)
		}
		harness.RemoveDB(run.DB)
	}
	type step struct {
		bin     harness.Binary
		effects bool
	}
	steps := []step{{bin: harness.Binary{Name: "bare"}}}
	for _, b := range bins {
		steps = append(steps, step{b, true}, step{b, false})
	}
	dbs := map[string]string{}
	for i := range o.Runs {
		for _, s := range harness.Alternate(i, steps) {
			b := s.bin
			switch {
			case b.Name == "bare":
				run, err := c.Bare(ctx)
				if err != nil {
					return err
				}
				logf("round %d bare: %s", i+1, run.Wall.Round(time.Millisecond))
				cr.Bare = append(cr.Bare, run)
			case !s.effects:
				run, err := with(b).Index(ctx, fmt.Sprintf("%s-refs-edges-%d", b.Name, i+1), nil, "SEXTANT_EFFECTS=off")
				if err != nil {
					return fmt.Errorf("%s: %w", b.Name, err)
				}
				logf("round %d %s, effects off: %s", i+1, b.Name, run.Wall.Round(time.Millisecond))
				cr.RefsEdges[b.Name] = append(cr.RefsEdges[b.Name], run)
				harness.RemoveDB(run.DB)
			default:
				run, err := with(b).Index(ctx, fmt.Sprintf("%s-run-%d", b.Name, i+1), nil)
				if err != nil {
					return fmt.Errorf("%s: %w", b.Name, err)
				}
				logf("round %d %s: %s, maxrss %s", i+1, b.Name, run.Wall.Round(time.Millisecond), mib(run.MaxRSSKiB))
				cr.Index[b.Name] = append(cr.Index[b.Name], run)
				if prev := dbs[b.Name]; prev != "" {
					harness.RemoveDB(prev)
				}
				dbs[b.Name] = run.DB
			}
		}
	}
	for i := range o.Runs {
		for _, b := range harness.Alternate(i, bins) {
			mc := &mcpCompare{Module: res.Corpus.Module, Dir: res.Corpus.Dir}
			if err := compareMCP(ctx, o, b.Path, goplsBin, dbs[b.Name], mc); err != nil {
				return fmt.Errorf("%s: %w", b.Name, err)
			}
			logf("round %d %s over MCP: find_references p50 %s", i+1, b.Name, msec(mc.Latency["find_references"].P50))
			cr.MCP[b.Name] = append(cr.MCP[b.Name], mc)
		}
	}
	names := make([]string, len(compareFigures))
	for i, f := range compareFigures {
		names[i] = f.name
	}
	cr.Divide(names, func(f int, bin string, round int) float64 {
		return compareFigures[f].get(cr.Index[bin][round], cr.RefsEdges[bin][round], cr.MCP[bin][round])
	})
	cr.Machine.LoadAvgEnd = harness.LoadAvg()
	cr.Print(os.Stdout, names)
	return harness.WriteJSON(root, o.Out, "xref-compare", &cr)
}
