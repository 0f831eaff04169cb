// Command sextant-bench is Sextant's benchmark harness. In one run it
//
//  1. fetches a pinned Go module (golang.org/x/tools@v0.52.0 by default)
//     with `go mod download -json` and copies it to a writable work
//     directory, then downloads its dependencies there;
//  2. builds the sextant binary and bareload (bench/cmd/bareload) from this
//     module;
//  3. warms the build and page caches with one untimed run of each;
//  4. runs `bareload DIR` (a bare go/packages load with Sextant's own load
//     configuration) and `sextant index --db FRESH.db DIR` alternately,
//     -runs times each, measuring wall time, CPU and peak RSS of each child
//     process and its process tree;
//  5. opens the last index in-process and times find_symbol and get_symbol
//     over a seeded query set built from the index's own symbols;
//  6. starts `sextant serve` on that index, times the same kind of calls
//     over MCP (stdio), and reads the server's resident memory;
//  7. prints a table with each figure next to its target, and writes every
//     figure as JSON.
//
// Run it from the module root:
//
//	go run ./bench/cmd/sextant-bench
//
// With -profile DIR it instead indexes the corpus in-process under
// runtime/pprof and writes a CPU profile and heap profiles to DIR, for
// `go tool pprof`. See bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// options are the command-line flags.
type options struct {
	module     string
	corpus     string
	work       string
	keep       bool
	runs       int
	queries    int
	mcpQueries int
	seed       uint64
	sample     time.Duration
	sextant    string
	out        string
	profile    string
	queryProf  string
	db         string
	maxLoad    float64
	binaries   string
}

func main() {
	var o options
	flag.StringVar(&o.module, "module", "golang.org/x/tools@v0.52.0", "corpus: the pinned module to index, MODULE@VERSION")
	flag.StringVar(&o.corpus, "corpus", "", "index this existing directory instead of fetching -module (it must be writable and have its dependencies downloaded)")
	flag.StringVar(&o.work, "work", "", "work directory for the corpus copy, binaries and databases (default: a new temporary directory, removed at the end unless -keep)")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory")
	flag.IntVar(&o.runs, "runs", 3, "measured runs of each contender (bare load and sextant index), alternated")
	flag.IntVar(&o.queries, "queries", 2000, "in-process calls per tool (find_symbol, get_symbol), split evenly over the modes (at least 1)")
	flag.IntVar(&o.mcpQueries, "mcp-queries", 1000, "calls per tool over MCP stdio")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the query set")
	flag.DurationVar(&o.sample, "sample", 20*time.Millisecond, "how often child memory is sampled from /proc")
	flag.StringVar(&o.sextant, "sextant", "", "use this sextant binary instead of building ./cmd/sextant")
	flag.StringVar(&o.out, "out", "", "write the results as JSON here; - for stdout (default bench/results/DATE-CORPUS-COMMIT.json)")
	flag.Float64Var(&o.maxLoad, "max-load", 0, "before measuring, wait (up to 15 minutes) until the 1-minute load average is at most this; 0 does not wait")
	flag.StringVar(&o.binaries, "binaries", "", "compare sextant binaries, NAME=PATH,NAME=PATH: each indexes and answers the MCP calls in every round, alternated, and each figure is divided by the first binary's of the same round")
	flag.StringVar(&o.db, "db", "", "skip the index runs and time queries on this existing database, an index of -corpus")
	flag.StringVar(&o.queryProf, "query-cpuprofile", "", "write a CPU profile of the in-process query phase to this file")
	flag.StringVar(&o.profile, "profile", "", "instead of the benchmark, index the corpus in-process with CPU and heap profiles written to this directory")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: go run ./bench/cmd/sextant-bench [flags]\n\nIndex a pinned module with Sextant and with a bare go/packages load, side by side,\nthen time find_symbol and get_symbol on the index, in-process and over MCP.\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if o.db != "" && o.corpus == "" {
		fmt.Fprintln(os.Stderr, "sextant-bench: -db needs -corpus, the directory that database indexes")
		os.Exit(2)
	}
	if o.binaries != "" && (o.db != "" || o.sextant != "" || o.profile != "") {
		fmt.Fprintln(os.Stderr, "sextant-bench: -binaries goes without -db, -sextant and -profile")
		os.Exit(2)
	}
	if flag.NArg() > 0 || o.runs < 1 || o.queries < 1 || o.mcpQueries < 1 || o.sample <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	harness.Main("sextant-bench", func(ctx context.Context) error { return run(ctx, o) })
}

func run(ctx context.Context, o options) error {
	root, err := harness.ModuleRoot(ctx)
	if err != nil {
		return err
	}
	work, cleanup, err := harness.WorkDir(o.work, "sextant-bench", o.keep)
	if err != nil {
		return err
	}
	defer cleanup()
	logf("work directory %s", work)

	corpus, err := prepareCorpus(ctx, o, work)
	if err != nil {
		return err
	}
	if o.profile != "" {
		return profileIndex(ctx, corpus, o.profile, work)
	}
	return benchmark(ctx, o, root, work, corpus)
}

// logf reports progress on stderr, time-stamped, so a long run shows
// where it is.
var logf = harness.Logf
