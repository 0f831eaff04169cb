package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// indexerRun is one run of a corpus's SCIP indexers alone: every project
// Sextant's discovery finds, one after the other as `sextant index` runs
// them, through the same runner (the same command lines, environment,
// deadline and process tree), their output removed unread.
type indexerRun struct {
	Wall time.Duration `json:"wall_ns"`
	// CPU is user and system time of the indexers and their children,
	// from this process's RUSAGE_CHILDREN.
	CPU      time.Duration `json:"cpu_ns"`
	Projects int           `json:"projects"`
	// SCIPBytes is the size of every project's index; LargestSCIP the
	// largest, which bounds what one import holds.
	SCIPBytes   int64 `json:"scip_bytes"`
	LargestSCIP int64 `json:"largest_scip_bytes"`
}

// runIndexers runs the indexers of every project under root alone.
func runIndexers(ctx context.Context, root string) (indexerRun, error) {
	projects, err := scipindexer.Discover(root)
	if err != nil {
		return indexerRun{}, err
	}
	cfg, err := scipindexer.LoadConfig(root)
	if err != nil {
		return indexerRun{}, err
	}
	runner := scipindexer.NewRunner(cfg)
	r := indexerRun{Projects: len(projects)}
	cpu0 := childCPU()
	start := time.Now()
	for _, p := range projects {
		out, err := runner.Index(ctx, root, p)
		if err != nil {
			return r, fmt.Errorf("%s on %s: %w", p.Language, p.Dir, err)
		}
		r.SCIPBytes += out.Size
		r.LargestSCIP = max(r.LargestSCIP, out.Size)
		out.Remove()
	}
	r.Wall = time.Since(start)
	r.CPU = childCPU() - cpu0
	return r, nil
}

// indexRound is one round of the index comparison.
type indexRound struct {
	Indexers indexerRun       `json:"indexers"`
	Sextant  harness.IndexRun `json:"sextant"`
	// Ratio is sextant's wall time over the indexers'; CPURatio the same
	// for CPU (sextant's includes the indexers it starts).
	Ratio    float64 `json:"ratio"`
	CPURatio float64 `json:"cpu_ratio"`
}

// indexRounds runs o.Runs rounds of the indexers alone and `sextant
// index`, alternated (indexers first on even rounds, sextant first on
// odd ones), and leaves the last index at db. An untimed first index
// (-warm) warms the page cache and Node's compile cache for both.
func indexRounds(ctx context.Context, o options, sextant, root, db string, lr *languageResult) error {
	if o.warm {
		logf("%s: warm-up index (untimed)", lr.Language)
		if _, err := indexOnce(ctx, o, sextant, root, db); err != nil {
			return err
		}
	}
	for i := range o.Runs {
		var round indexRound
		indexers := func() error {
			logf("%s: round %d: the indexers alone", lr.Language, i+1)
			r, err := runIndexers(ctx, root)
			round.Indexers = r
			return err
		}
		index := func() error {
			logf("%s: round %d: sextant index", lr.Language, i+1)
			r, err := indexOnce(ctx, o, sextant, root, db)
			round.Sextant = r
			return err
		}
		steps := []func() error{indexers, index}
		if i%2 == 1 {
			steps = []func() error{index, indexers}
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		round.Ratio = harness.Ratio(float64(round.Sextant.Wall), float64(round.Indexers.Wall))
		round.CPURatio = harness.Ratio(float64(round.Sextant.UserCPU+round.Sextant.SysCPU), float64(round.Indexers.CPU))
		logf("%s: round %d: indexers %s (%s CPU), sextant index %s (%s CPU): %.2f×; sextant's own peak RSS %d MiB, largest SCIP file %d MiB",
			lr.Language, i+1, round.Indexers.Wall.Round(time.Millisecond), round.Indexers.CPU.Round(time.Millisecond),
			round.Sextant.Wall.Round(time.Millisecond), (round.Sextant.UserCPU + round.Sextant.SysCPU).Round(time.Millisecond),
			round.Ratio, round.Sextant.SelfHWMKiB>>10, round.Indexers.LargestSCIP>>20)
		lr.Index = append(lr.Index, round)
		lr.Summary = round.Sextant.Summary
	}
	return nil
}

// indexOnce runs `sextant index --json` of root into db and measures it.
func indexOnce(ctx context.Context, o options, sextant, root, db string) (harness.IndexRun, error) {
	harness.RemoveDB(db)
	c := harness.Contenders{Sextant: sextant, Corpus: root, DBDir: dbDir(db), Sample: o.Sample}
	return c.Index(ctx, dbName(db), nil)
}

func dbDir(db string) string { return filepath.Dir(db) }

func dbName(db string) string { return strings.TrimSuffix(filepath.Base(db), ".db") }
