package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// compareResults is a -binaries run: every binary indexes the corpus and
// answers the same MCP calls, round by round in alternated order, and
// each figure of every binary after the first is divided by the first's
// of the same round.
type compareResults struct {
	harness.Comparison
	Bare []harness.BareRun `json:"bare"`
	// Index and MCP are each binary's runs, by name, one per round.
	Index map[string][]sextantRun `json:"index"`
	MCP   map[string][]mcpResults `json:"mcp"`
}

// compareBinaries measures the -binaries against each other on corpus.
// The in-process figures are left out: they time this checkout's code,
// whichever binary wrote the index.
func compareBinaries(ctx context.Context, o options, root, work, corpus string) error {
	bins, err := harness.ParseBinaries(o.Binaries)
	if err != nil {
		return err
	}
	res := compareResults{Index: map[string][]sextantRun{}, MCP: map[string][]mcpResults{}}
	res.Comparison = harness.Comparison{
		Header:   o.Header(ctx, harness.Corpus{Module: o.Module, Dir: corpus}),
		Binaries: bins,
		Rounds:   o.Runs,
	}
	res.Notes = []string{
		"each round indexes with the bare load and every binary, then times the same MCP calls against every binary's own index; the order alternates round by round (ABC, CBA)",
		"ratios divide each binary's figure by the first binary's of the same round; the spread is over the rounds",
		"in-process latencies are not measured: they time this checkout's code, whichever binary wrote the index",
	}
	hc, err := harness.NewContenders(ctx, root, work, corpus, o.Sample, true)
	if err != nil {
		return err
	}
	c := contenders{hc}
	with := func(b harness.Binary) contenders { d := c; d.Sextant = b.Path; return d }
	if err := harness.WaitQuiet(ctx, o.MaxLoad); err != nil {
		return err
	}
	res.Machine.LoadAvgStart = harness.LoadAvg()

	logf("warm-up (untimed): bare load and each binary")
	if _, err := c.Bare(ctx); err != nil {
		return err
	}
	for _, b := range bins {
		if _, err := with(b).index(ctx, b.Name+"-warmup"); err != nil {
			return fmt.Errorf("%s: %w", b.Name, err)
		}
		harness.RemoveDB(filepath.Join(c.DBDir, b.Name+"-warmup.db"))
	}
	who := append([]harness.Binary{{Name: "bare"}}, bins...)
	dbs := map[string]string{}
	for i := range o.Runs {
		for _, b := range harness.Alternate(i, who) {
			if b.Name == "bare" {
				run, err := c.Bare(ctx)
				if err != nil {
					return err
				}
				logf("round %d bare: %s", i+1, run.Wall.Round(time.Millisecond))
				res.Bare = append(res.Bare, run)
				continue
			}
			name := fmt.Sprintf("%s-run-%d", b.Name, i+1)
			run, err := with(b).index(ctx, name)
			if err != nil {
				return fmt.Errorf("%s: %w", b.Name, err)
			}
			logf("round %d %s: %s, maxrss %s, %d symbols", i+1, b.Name, run.Wall.Round(time.Millisecond), mib(run.MaxRSSKiB), run.Summary.Symbols)
			res.Index[b.Name] = append(res.Index[b.Name], run)
			if prev := dbs[b.Name]; prev != "" {
				harness.RemoveDB(prev)
			}
			dbs[b.Name] = filepath.Join(c.DBDir, name+".db")
		}
	}

	// One query set for every binary, drawn from the first one's index,
	// read from a copy: opening a store upgrades its schema, which an
	// older binary of the comparison could then no longer read.
	probe := filepath.Join(c.DBDir, "queries.db")
	if err := harness.CopyDB(dbs[bins[0].Name], probe); err != nil {
		return err
	}
	calls, _, err := querySet(ctx, probe, o.mcpQueries, o.changeQueries, o.Seed)
	harness.RemoveDB(probe)
	if err != nil {
		return err
	}
	for i := range o.Runs {
		for _, b := range harness.Alternate(i, bins) {
			m, err := overMCP(ctx, b.Path, dbs[b.Name], corpus, calls)
			if err != nil {
				return fmt.Errorf("%s: %w", b.Name, err)
			}
			logf("round %d %s over MCP: find_symbol p50 %s, get_symbol p50 %s", i+1, b.Name,
				msec(m.Tools["find_symbol"].All.P50), msec(m.Tools["get_symbol"].All.P50))
			res.MCP[b.Name] = append(res.MCP[b.Name], m)
		}
	}
	names := make([]string, len(compareFigures))
	for i, f := range compareFigures {
		names[i] = f.name
	}
	res.Divide(names, func(f int, bin string, round int) float64 {
		return compareFigures[f].get(res.Index[bin][round], res.MCP[bin][round])
	})
	res.Machine.LoadAvgEnd = harness.LoadAvg()
	res.Print(os.Stdout, names)
	return harness.WriteJSON(root, o.Out, "compare-"+corpusName(o), &res)
}

// compareFigures are the figures a comparison divides, read from one
// round of one binary.
var compareFigures = []struct {
	name string
	get  func(sextantRun, mcpResults) float64
}{
	{"index wall", func(s sextantRun, _ mcpResults) float64 { return float64(s.Wall) }},
	{"index CPU", func(s sextantRun, _ mcpResults) float64 { return float64(s.UserCPU + s.SysCPU) }},
	{"index peak RSS", func(s sextantRun, _ mcpResults) float64 { return float64(s.MaxRSSKiB) }},
	{"find_symbol p50 (MCP)", func(_ sextantRun, m mcpResults) float64 { return float64(m.Tools["find_symbol"].All.P50) }},
	{"find_symbol p99 (MCP)", func(_ sextantRun, m mcpResults) float64 { return float64(m.Tools["find_symbol"].All.P99) }},
	{"get_symbol p50 (MCP)", func(_ sextantRun, m mcpResults) float64 { return float64(m.Tools["get_symbol"].All.P50) }},
	{"get_symbol p99 (MCP)", func(_ sextantRun, m mcpResults) float64 { return float64(m.Tools["get_symbol"].All.P99) }},
	{"find_references p50 (MCP)", func(_ sextantRun, m mcpResults) float64 { return float64(m.Tools["find_references"].All.P50) }},
	{"get_impact p50 (MCP)", func(_ sextantRun, m mcpResults) float64 { return float64(m.Tools["get_impact"].All.P50) }},
	{"server CPU per call", func(_ sextantRun, m mcpResults) float64 { return float64(m.CPUPerCall["all"]) }},
	{"serve RSS after the calls", func(_ sextantRun, m mcpResults) float64 { return float64(m.After.RSSKiB) }},
}
