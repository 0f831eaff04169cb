// Command effects-bench measures what effect inference costs, in one run:
//
//  1. fetches a pinned module (golang.org/x/tools@v0.52.0 by default) with
//     harness.FetchModule, and builds the sextant binary of this module;
//  2. indexes it once, untimed, to warm the caches;
//  3. runs `sextant index` alternately with SEXTANT_EFFECTS=off (no effect
//     inference) and with effects, -runs times each, measuring wall time,
//     CPU and peak RSS of each process tree;
//  4. opens the last index with effects in-process and times explain_effects
//     on a seeded sample of its functions;
//  5. prints each figure next to its target (inference ≤ +30% index wall
//     time; explain_effects p50 ≤ 5 ms) and writes them as JSON.
//
// Run it from the module root: go run ./bench/cmd/effects-bench
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// options are the command-line flags: the shared ones and its own.
type options struct {
	*harness.Flags
	queries int
}

// indexRun is one measured `sextant index`.
type indexRun struct {
	Effects bool `json:"effects"`
	harness.Usage
}

// report is what the run writes.
type report struct {
	Module      string          `json:"module"`
	Date        string          `json:"date"`
	Runs        []indexRun      `json:"runs"`
	WallOff     time.Duration   `json:"median_wall_off_ns"`
	WallOn      time.Duration   `json:"median_wall_on_ns"`
	CPUOff      time.Duration   `json:"median_cpu_off_ns"`
	CPUOn       time.Duration   `json:"median_cpu_on_ns"`
	RSSOffKiB   int64           `json:"median_tree_peak_off_kib"`
	RSSOnKiB    int64           `json:"median_tree_peak_on_kib"`
	Explain     harness.Latency `json:"explain_effects"`
	Rows        map[string]int  `json:"rows"` // functions sampled by verdict: pure, open, effects, not_analysed
	EffectCount map[string]int  `json:"effect_count"`
	Checks      []harness.Check `json:"checks"`
}

func main() {
	o := options{Flags: harness.NewFlags("effects-bench")}
	o.CorpusFlags("golang.org/x/tools@v0.52.0", "", "")
	o.WorkFlags(false, "work directory (default: a temporary one, removed afterwards)")
	o.RunsFlag(2, "measured index runs with and without effects, alternated")
	flag.IntVar(&o.queries, "queries", 1000, "explain_effects calls")
	o.SeedFlag("seed of the function sample")
	o.OutFlag("", "write the figures as JSON to this file")
	flag.Parse()
	o.Run(true, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

func run(ctx context.Context, env harness.Env, o options) error {
	work, corpus := env.Work, env.Corpus
	bin, err := o.SextantBinary(ctx, env.Root, work)
	if err != nil {
		return err
	}
	c := harness.Contenders{Sextant: bin, Corpus: corpus, DBDir: work, Sample: 50 * time.Millisecond}
	index := func(name string, effects bool) (indexRun, error) {
		effectsEnv := "SEXTANT_EFFECTS=off"
		if effects {
			effectsEnv = "SEXTANT_EFFECTS=on"
		}
		r, err := c.Index(ctx, name, nil, effectsEnv)
		if err != nil {
			return indexRun{}, err
		}
		u := r.Usage
		harness.Logf("index %s: %v wall, %v CPU, %d MiB tree peak", name, u.Wall.Round(time.Millisecond),
			(u.UserCPU + u.SysCPU).Round(time.Millisecond), u.TreePeakKiB>>10)
		return indexRun{Effects: effects, Usage: u}, nil
	}
	if _, err := index("warmup", true); err != nil {
		return err
	}
	rep := report{Module: o.Module, Date: time.Now().UTC().Format(time.DateOnly)}
	for i := range o.Runs {
		// Alternate which goes first, so neither always runs warmer.
		for _, on := range harness.Alternate(i, []bool{false, true}) {
			name := "off"
			if on {
				name = "on"
			}
			r, err := index(name, on)
			if err != nil {
				return err
			}
			rep.Runs = append(rep.Runs, r)
		}
	}
	med := func(on bool, f func(indexRun) int64) int64 {
		var xs []int64
		for _, r := range rep.Runs {
			if r.Effects == on {
				xs = append(xs, f(r))
			}
		}
		return harness.Median(xs)
	}
	wall := func(r indexRun) int64 { return int64(r.Wall) }
	cpu := func(r indexRun) int64 { return int64(r.UserCPU + r.SysCPU) }
	rss := func(r indexRun) int64 { return r.TreePeakKiB }
	rep.WallOff, rep.WallOn = time.Duration(med(false, wall)), time.Duration(med(true, wall))
	rep.CPUOff, rep.CPUOn = time.Duration(med(false, cpu)), time.Duration(med(true, cpu))
	rep.RSSOffKiB, rep.RSSOnKiB = med(false, rss), med(true, rss)

	if err := explain(ctx, filepath.Join(work, "on.db"), corpus, o, &rep); err != nil {
		return err
	}
	rep.Checks = []harness.Check{
		harness.AtMost("index wall time with effects / without", float64(rep.WallOn)/float64(rep.WallOff), 1.30, "x",
			fmt.Sprintf("%v / %v", rep.WallOn.Round(time.Millisecond), rep.WallOff.Round(time.Millisecond))),
		harness.AtMost("index CPU with effects / without", float64(rep.CPUOn)/float64(rep.CPUOff), 1.30, "x",
			fmt.Sprintf("%v / %v", rep.CPUOn.Round(time.Millisecond), rep.CPUOff.Round(time.Millisecond))),
		harness.AtMost("index tree peak RSS with effects / without", float64(rep.RSSOnKiB)/float64(rep.RSSOffKiB), 1.30, "x",
			fmt.Sprintf("%d / %d MiB", rep.RSSOnKiB>>10, rep.RSSOffKiB>>10)),
		harness.AtMost("explain_effects p50, in-process", float64(rep.Explain.P50)/1e6, 5, "ms",
			fmt.Sprintf("p99 %.2f ms over %d calls", float64(rep.Explain.P99)/1e6, rep.Explain.N)),
	}
	for _, c := range rep.Checks {
		fmt.Printf("%-46s %10s  (limit %s) %s  %s\n", c.Name, c.Format(c.Value), c.Format(c.Limit), c.Verdict(), c.Detail)
	}
	fmt.Printf("sampled rows: %v\neffects among them: %v\n", rep.Rows, rep.EffectCount)
	if o.Out == "" {
		return nil // no result file unless asked for
	}
	return harness.WriteJSON(env.Root, o.Out, "", rep)
}

// explain times explain_effects in-process on a seeded sample of the
// index's functions and counts what their rows say.
func explain(ctx context.Context, db, corpus string, o options, rep *report) error {
	var syms []graph.Symbol
	err := harness.WithReader(ctx, db, func(r graph.Reader) error {
		var err error
		syms, _, err = r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring,
			Kinds: []graph.Kind{graph.KindFunc, graph.KindMethod}})
		return err
	})
	if err != nil {
		return err
	}
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	slices.SortFunc(syms, func(a, b graph.Symbol) int { return cmp.Compare(a.Key, b.Key) })
	rng := rand.New(rand.NewPCG(o.Seed, 0))
	svc, err := query.New(st, []string{corpus}, nil)
	if err != nil {
		return err
	}
	tl, _ := query.LookupTool("explain_effects")
	rep.Rows, rep.EffectCount = map[string]int{}, map[string]int{}
	var ds []time.Duration
	for i := 0; i <= o.queries; i++ {
		s := syms[rng.IntN(len(syms))]
		args, _ := json.Marshal(map[string]string{"stable_key": s.Key})
		start := time.Now()
		a, err := tl.Call(ctx, svc, args, nil)
		took := time.Since(start)
		if err != nil {
			return fmt.Errorf("explain_effects %s: %w", s.QualifiedName, err)
		}
		if i == 0 {
			continue // the first call opens the name tables
		}
		ds = append(ds, took)
		out := a.(*query.EffectsOutput)
		switch {
		case !out.Analysed:
			rep.Rows["not_analysed"]++
		case out.Pure:
			rep.Rows["pure"]++
		case out.Open != nil:
			rep.Rows["open"]++
		default:
			rep.Rows["closed_with_effects"]++
		}
		for _, e := range out.Results {
			rep.EffectCount[e.Effect]++
		}
	}
	rep.Explain = harness.Summarize(ds)
	return nil
}
