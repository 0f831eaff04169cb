package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// sextantRun is one measured `sextant index`.
type sextantRun = harness.IndexRun

// contenders are the two programs measured side by side, as in
// sextant-bench.
type contenders = harness.Contenders

// indexResult is part (c): sextant index against the bare load, as
// users run it (Sextant) and with effect inference off (RefsEdges,
// SEXTANT_EFFECTS=off: symbols, references, call edges, implementations
// and the full-text index), which is what the references issue's budget
// of 2× counts; the effects issue budgets effect inference on top of it
// (bench/cmd/effects-bench).
type indexResult struct {
	Runs      int               `json:"runs"`
	Warmup    harness.Warmup    `json:"warmup"`
	Bare      []harness.BareRun `json:"bare"`
	Sextant   []sextantRun      `json:"sextant"`
	RefsEdges []sextantRun      `json:"refs_edges"`
	Median    struct {
		Bare      harness.Usage `json:"bare"`
		Sextant   harness.Usage `json:"sextant"`
		RefsEdges harness.Usage `json:"refs_edges"`
	} `json:"median"`
	// Ratios are sextant over bare, of the medians.
	Ratios          indexRatios `json:"ratios"`
	RefsEdgesRatios indexRatios `json:"refs_edges_ratios"`
}

type indexRatios struct {
	Wall     float64 `json:"wall"`
	CPU      float64 `json:"cpu"`
	MaxRSS   float64 `json:"maxrss"`
	TreePeak float64 `json:"tree_peak"`
}

func ratiosOf(s, b harness.Usage) indexRatios {
	return indexRatios{
		Wall:     harness.Ratio(float64(s.Wall), float64(b.Wall)),
		CPU:      harness.Ratio(float64(s.UserCPU+s.SysCPU), float64(b.UserCPU+b.SysCPU)),
		MaxRSS:   harness.Ratio(float64(s.MaxRSSKiB), float64(b.MaxRSSKiB)),
		TreePeak: harness.Ratio(float64(s.TreePeakKiB), float64(b.TreePeakKiB)),
	}
}

// indexRuns warms the caches with one untimed run of each contender, then
// runs them alternately (ABC, CBA) and returns the database of the last
// sextant run.
func indexRuns(ctx context.Context, o options, c contenders, ir *indexResult) (string, error) {
	w, err := c.Warm(ctx)
	if err != nil {
		return "", err
	}
	ir.Warmup = w
	last := ""
	for i := range o.Runs {
		for _, who := range harness.Alternate(i, []string{"bare", "sextant", "refs-edges"}) {
			if who == "bare" {
				run, err := c.Bare(ctx)
				if err != nil {
					return "", err
				}
				logf("run %d bare:    %s, maxrss %s, %d packages", i+1, run.Wall.Round(time.Millisecond), mib(run.MaxRSSKiB), run.Report.Packages)
				ir.Bare = append(ir.Bare, run)
				continue
			}
			if who == "refs-edges" {
				run, err := c.Index(ctx, fmt.Sprintf("refs-edges-%d", i+1), nil, "SEXTANT_EFFECTS=off")
				if err != nil {
					return "", err
				}
				logf("run %d sextant, effects off: %s, maxrss %s", i+1, run.Wall.Round(time.Millisecond), mib(run.MaxRSSKiB))
				ir.RefsEdges = append(ir.RefsEdges, run)
				harness.RemoveDB(run.DB)
				continue
			}
			run, err := c.Index(ctx, fmt.Sprintf("run-%d", i+1), nil)
			if err != nil {
				return "", err
			}
			logf("run %d sextant: %s, maxrss %s, %d packages, %d symbols", i+1, run.Wall.Round(time.Millisecond), mib(run.MaxRSSKiB), run.Summary.Packages, run.Summary.Symbols)
			ir.Sextant = append(ir.Sextant, run)
			if last != "" {
				harness.RemoveDB(last)
			}
			last = run.DB
		}
	}
	ir.Runs = o.Runs
	var bare, sx, re []harness.Usage
	for _, r := range ir.Bare {
		bare = append(bare, r.Usage)
	}
	for _, r := range ir.Sextant {
		sx = append(sx, r.Usage)
	}
	for _, r := range ir.RefsEdges {
		re = append(re, r.Usage)
	}
	ir.Median.Bare, ir.Median.Sextant, ir.Median.RefsEdges = harness.MedianUsage(bare), harness.MedianUsage(sx), harness.MedianUsage(re)
	ir.Ratios = ratiosOf(ir.Median.Sextant, ir.Median.Bare)
	ir.RefsEdgesRatios = ratiosOf(ir.Median.RefsEdges, ir.Median.Bare)
	return last, nil
}

func mib(kib int64) string { return fmt.Sprintf("%.0f MiB", float64(kib)/1024) }
