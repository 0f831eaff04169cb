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

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// options are the command-line flags: the shared ones and its own.
type options struct {
	*harness.Flags
	queries    int
	mcpQueries int
	// changeQueries is how many find_references and get_impact calls a
	// comparison of binaries times.
	changeQueries int
	profile       string
	queryProf     string
	db            string
}

func main() {
	o := options{Flags: harness.NewFlags("sextant-bench")}
	o.CorpusFlags("golang.org/x/tools@v0.52.0", "", "index this existing directory instead of fetching -module (it must be writable and have its dependencies downloaded)")
	o.WorkFlags(true, "work directory for the corpus copy, binaries and databases (default: a new temporary directory, removed at the end unless -keep)")
	o.RunsFlag(3, "measured runs of each contender (bare load and sextant index), alternated")
	flag.IntVar(&o.queries, "queries", 2000, "in-process calls per tool (find_symbol, get_symbol), split evenly over the modes (at least 1)")
	flag.IntVar(&o.mcpQueries, "mcp-queries", 1000, "calls per tool over MCP stdio")
	flag.IntVar(&o.changeQueries, "change-queries", 100, "with -binaries: find_references and get_impact calls over MCP, each by a stable key")
	o.SeedFlag("")
	o.SampleFlag()
	o.SextantFlag("")
	o.OutFlag("CORPUS", "")
	o.MaxLoadFlag("")
	o.BinariesFlag("compare sextant binaries, NAME=PATH,NAME=PATH: each indexes and answers the MCP calls in every round, alternated, and each figure is divided by the first binary's of the same round")
	flag.StringVar(&o.db, "db", "", "skip the index runs and time queries on this existing database, an index of -corpus")
	flag.StringVar(&o.queryProf, "query-cpuprofile", "", "write a CPU profile of the in-process query phase to this file")
	flag.StringVar(&o.profile, "profile", "", "instead of the benchmark, index the corpus in-process with CPU and heap profiles written to this directory")
	o.Usage("Index a pinned module with Sextant and with a bare go/packages load, side by side,\nthen time find_symbol and get_symbol on the index, in-process and over MCP.\n")
	flag.Parse()
	if o.db != "" && o.Corpus == "" {
		o.Fail("-db needs -corpus, the directory that database indexes")
	}
	if o.Binaries != "" && (o.db != "" || o.Sextant != "" || o.profile != "") {
		o.Fail("-binaries goes without -db, -sextant and -profile")
	}
	if flag.NArg() > 0 || o.Runs < 1 || o.queries < 1 || o.mcpQueries < 1 || o.Sample <= 0 {
		o.Fail("")
	}
	o.Run(true, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

func run(ctx context.Context, env harness.Env, o options) error {
	logf("work directory %s", env.Work)
	if o.profile != "" {
		return profileIndex(ctx, env.Corpus, o.profile, env.Work)
	}
	return benchmark(ctx, o, env.Root, env.Work, env.Corpus)
}

// logf reports progress on stderr, time-stamped, so a long run shows
// where it is.
var logf = harness.Logf
