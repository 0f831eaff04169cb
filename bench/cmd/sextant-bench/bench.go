package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// results is everything one run measured; it is written as JSON.
type results struct {
	harness.Header
	Index indexResult `json:"index"`
	// Symbols is how many symbols the query set was drawn from.
	Symbols   int             `json:"symbols"`
	InProcess latencies       `json:"in_process"`
	MCP       mcpResults      `json:"mcp"`
	Checks    []harness.Check `json:"checks"`
}

type indexResult struct {
	Runs int `json:"runs"`
	// SampleEvery is how often /proc was sampled for memory.
	SampleEvery time.Duration `json:"sample_every_ns"`
	// Warmup are the untimed first runs that fill the build cache (go list
	// compiles export data for every package) and the page cache.
	Warmup  harness.Warmup    `json:"warmup"`
	Bare    []harness.BareRun `json:"bare"`
	Sextant []sextantRun      `json:"sextant"`
	// Median holds the median of each figure over the runs, taken figure
	// by figure.
	Median struct {
		Bare    harness.Usage `json:"bare"`
		Sextant harness.Usage `json:"sextant"`
		// Phases are the median phase durations of sextant index.
		Phases map[string]time.Duration `json:"phases_ns"`
	} `json:"median"`
	// Ratios are sextant over bare, of the medians.
	Ratios struct {
		Wall     float64 `json:"wall"`
		CPU      float64 `json:"cpu"`
		MaxRSS   float64 `json:"maxrss"`
		SelfHWM  float64 `json:"self_hwm"`
		TreePeak float64 `json:"tree_peak"`
	} `json:"ratios"`
}

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

func benchmark(ctx context.Context, o options, root, work, corpus string) error {
	if o.Binaries != "" {
		return compareBinaries(ctx, o, root, work, corpus)
	}
	res := results{Header: o.Header(ctx, harness.Corpus{Module: o.Module, Dir: corpus})}
	if o.Corpus != "" {
		res.Corpus.Module = ""
	}

	hc, err := harness.NewContenders(ctx, root, work, corpus, o.Sample, o.db == "")
	if err != nil {
		return err
	}
	c := contenders{hc}
	if c.Sextant, err = o.SextantBinary(ctx, root, filepath.Join(work, "bin")); err != nil {
		return err
	}

	if err := harness.WaitQuiet(ctx, o.MaxLoad); err != nil {
		return err
	}
	res.Machine.LoadAvgStart = harness.LoadAvg()
	db := o.db
	if db == "" {
		if db, err = indexRuns(ctx, o, c, &res); err != nil {
			return err
		}
	}

	logf("query set: %d calls per tool (seed %d)", max(o.queries, o.mcpQueries), o.Seed)
	calls, nsyms, err := querySet(ctx, db, max(o.queries, o.mcpQueries), 0, o.Seed)
	if err != nil {
		return err
	}
	res.Symbols = nsyms
	logf("in-process: %d calls", 2*o.queries)
	stopProfile, err := startCPUProfile(o.queryProf)
	if err != nil {
		return err
	}
	res.InProcess, err = inProcess(ctx, db, corpus, firstOf(calls, o.queries))
	if err := errors.Join(err, stopProfile()); err != nil {
		return err
	}
	logf("MCP over stdio: %d calls", 2*o.mcpQueries)
	if res.MCP, err = overMCP(ctx, c.Sextant, db, corpus, firstOf(calls, o.mcpQueries)); err != nil {
		return err
	}
	res.Checks = checks(&res)
	res.Machine.LoadAvgEnd = harness.LoadAvg()
	if busy := max(harness.FirstLoad(res.Machine.LoadAvgStart), harness.FirstLoad(res.Machine.LoadAvgEnd)); busy > float64(res.Machine.CPUs)/2 {
		res.Notes = append(res.Notes, fmt.Sprintf("the machine was busy with other work (1-minute load average up to %.1f on %d CPUs): absolute figures are inflated; the ratios, from alternated runs, less so", busy, res.Machine.CPUs))
	}

	printReport(os.Stdout, &res)
	return writeJSON(o, root, &res)
}

// indexRuns warms the caches, then runs both contenders alternately and
// records their figures in r. It returns the database of the last sextant
// run; the others are removed.
func indexRuns(ctx context.Context, o options, c contenders, res *results) (string, error) {
	// Warm-up: the first load compiles export data for every package into
	// the build cache, which is minutes of work that neither contender
	// would repeat on a developer's machine.
	w, err := c.Warm(ctx)
	if err != nil {
		return "", err
	}
	res.Index.Warmup = w
	res.Notes = append(res.Notes,
		fmt.Sprintf("warm module and build caches: one untimed bare load (%s) and one untimed sextant index (%s) ran before the measured runs",
			w.Bare.Wall.Round(time.Millisecond), w.Sextant.Wall.Round(time.Millisecond)),
		"runs alternate in ABBA order (bare, sextant, sextant, bare, ...) so drift affects both alike; each sextant run writes a fresh database",
		"peak RSS (maxrss) is ru_maxrss from wait4: the largest single process of the child's tree, which is the Go process itself when the go list children are smaller (compare self_hwm and bare's own getrusage)")

	last := ""
	for i := range o.Runs {
		for _, who := range harness.Alternate(i, []string{"bare", "sextant"}) {
			if who == "bare" {
				run, err := c.Bare(ctx)
				if err != nil {
					return "", err
				}
				logf("run %d bare:    %s, maxrss %s, %d packages", i+1, run.Wall.Round(time.Millisecond), mib(run.MaxRSSKiB), run.Report.Packages)
				res.Index.Bare = append(res.Index.Bare, run)
				continue
			}
			name := fmt.Sprintf("run-%d", i+1)
			run, err := c.index(ctx, name)
			if err != nil {
				return "", err
			}
			logf("run %d sextant: %s, maxrss %s, %d packages, %d symbols", i+1, run.Wall.Round(time.Millisecond), mib(run.MaxRSSKiB), run.Summary.Packages, run.Summary.Symbols)
			res.Index.Sextant = append(res.Index.Sextant, run)
			if last != "" {
				harness.RemoveDB(filepath.Join(c.DBDir, last+".db"))
			}
			last = name
		}
	}
	res.Index.Runs, res.Index.SampleEvery = o.Runs, o.Sample
	res.Index.summarize()
	return filepath.Join(c.DBDir, last+".db"), nil
}

// summarize fills the medians and ratios from the runs.
func (ir *indexResult) summarize() {
	var bare, sx []harness.Usage
	for _, r := range ir.Bare {
		bare = append(bare, r.Usage)
	}
	phases := map[string][]time.Duration{}
	for _, r := range ir.Sextant {
		sx = append(sx, r.Usage)
		for k, d := range r.Phases {
			phases[k] = append(phases[k], d)
		}
	}
	ir.Median.Bare, ir.Median.Sextant = harness.MedianUsage(bare), harness.MedianUsage(sx)
	ir.Median.Phases = map[string]time.Duration{}
	for k, ds := range phases {
		ir.Median.Phases[k] = harness.Median(ds)
	}
	b, s := ir.Median.Bare, ir.Median.Sextant
	ir.Ratios.Wall = harness.Ratio(float64(s.Wall), float64(b.Wall))
	ir.Ratios.CPU = harness.Ratio(float64(s.UserCPU+s.SysCPU), float64(b.UserCPU+b.SysCPU))
	ir.Ratios.MaxRSS = harness.Ratio(float64(s.MaxRSSKiB), float64(b.MaxRSSKiB))
	ir.Ratios.SelfHWM = harness.Ratio(float64(s.SelfHWMKiB), float64(b.SelfHWMKiB))
	ir.Ratios.TreePeak = harness.Ratio(float64(s.TreePeakKiB), float64(b.TreePeakKiB))
}

// Targets of the acceptance criteria.
const (
	maxIndexTimeRatio = 1.5
	maxIndexRSSRatio  = 1.5
	maxP50ms          = 2
	maxP99ms          = 20
	maxServeMiB       = 150
)

// checks judges the figures against the targets.
func checks(r *results) []harness.Check {
	var out []harness.Check
	if len(r.Index.Sextant) > 0 {
		b, s := r.Index.Median.Bare, r.Index.Median.Sextant
		out = append(out,
			harness.AtMost("index wall time ÷ bare load", r.Index.Ratios.Wall, maxIndexTimeRatio, "x",
				fmt.Sprintf("%s / %s", secs(s.Wall), secs(b.Wall))),
			harness.AtMost("index peak RSS ÷ bare load", r.Index.Ratios.MaxRSS, maxIndexRSSRatio, "x",
				fmt.Sprintf("%s / %s", mib(s.MaxRSSKiB), mib(b.MaxRSSKiB))))
	}
	for _, path := range []struct {
		name string
		l    latencies
	}{{"in-process", r.InProcess}, {"MCP", r.MCP.latencies}} {
		for _, tool := range []string{"find_symbol", "get_symbol"} {
			l := path.l.Tools[tool].All
			out = append(out,
				harness.AtMost(fmt.Sprintf("%s p50 (%s, n=%d)", tool, path.name, l.N), ms(l.P50), maxP50ms, "ms", ""),
				harness.AtMost(fmt.Sprintf("%s p99 (%s, n=%d)", tool, path.name, l.N), ms(l.P99), maxP99ms, "ms", ""))
		}
	}
	out = append(out,
		harness.AtMost("serve RSS after the MCP calls (VmRSS)", float64(r.MCP.After.RSSKiB)/1024, maxServeMiB, "MiB", ""),
		harness.AtMost("serve peak RSS (ru_maxrss)", float64(r.MCP.MaxRSSKiB)/1024, maxServeMiB, "MiB", ""))
	return out
}
