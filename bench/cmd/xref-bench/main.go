// Command xref-bench measures the references and call-graph tools of
// Sextant against gopls, side by side in one run:
//
//	(a) parity: on golang.org/x/tools, for symbols of every kind picked
//	    deterministically from the index, find_references must return the
//	    positions gopls textDocument/references (without the declaration)
//	    returns, and find_implementations what textDocument/implementation
//	    returns for every interface and interface method among them;
//	(b) against `gopls mcp`: on github.com/prometheus/prometheus, for the
//	    20 most referenced functions, methods and types, the latency,
//	    output tokens and recall of find_references (over `sextant serve`)
//	    and of gopls's go_symbol_references, and the latency of
//	    get_callers at depth 1 and 5;
//	(c) indexing cost: `sextant index` (references, call edges and
//	    implementations included) against a bare go/packages load of the
//	    same packages, wall time and peak RSS, alternated runs on a warm
//	    cache.
//
// Every figure is printed next to its target with PASS or MISS, and
// written as JSON to bench/results/. Run it from the module root:
//
//	go run ./bench/cmd/xref-bench
//
// See bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// options are the command-line flags: the shared ones and its own.
type options struct {
	*harness.Flags
	promModule  string
	promCorpus  string
	promTimeout time.Duration
	repeat      int
	popular     int
	dump        string
	db          string
}

func main() {
	o := options{Flags: harness.NewFlags("xref-bench")}
	o.CorpusFlags("golang.org/x/tools@v0.52.0", "parity and indexing corpus, MODULE@VERSION", "use this existing writable copy of -module (dependencies downloaded) instead of fetching it")
	flag.StringVar(&o.promModule, "prom-module", "github.com/prometheus/prometheus@v0.316.0", "corpus of the comparison with gopls mcp, MODULE@VERSION (empty: use -module)")
	flag.StringVar(&o.promCorpus, "prom-corpus", "", "use this existing writable copy of -prom-module instead of fetching it")
	flag.DurationVar(&o.promTimeout, "prom-timeout", 20*time.Minute, "give up preparing -prom-module after this long and compare with gopls mcp on -module instead")
	o.WorkFlags(true, "work directory (default: a new temporary directory, removed at the end unless -keep)")
	o.RunsFlag(3, "measured index runs of each contender (bare load, sextant index), alternated")
	flag.IntVar(&o.repeat, "repeat", 5, "timed calls of each query per tool in the gopls mcp comparison")
	flag.IntVar(&o.popular, "symbols", 20, "symbols of the gopls mcp comparison")
	o.SampleFlag()
	o.SextantFlag("")
	o.BinariesFlag("compare sextant binaries on -module, NAME=PATH,NAME=PATH: each indexes (c) and answers (b) in every round, alternated, and each figure is divided by the first binary's of the same round; (a) and -prom-module are left out")
	o.GoplsFlag("")
	o.OutFlag("xref", "")
	o.SkipFlag("comma-separated parts to skip: index, parity, mcp")
	flag.StringVar(&o.db, "db", "", "with -skip index: an existing index of -corpus to use for the parity part instead of indexing it")
	flag.StringVar(&o.dump, "dump", "", "write each symbol's answers of the gopls mcp comparison (sextant and gopls text) to this directory")
	o.Usage("Measure find_references, find_implementations and get_callers against gopls,\nand indexing with references against a bare go/packages load.\n")
	flag.Parse()
	if o.Binaries != "" && (o.Sextant != "" || o.db != "" || o.Skip != "") {
		o.Fail("-binaries goes without -sextant, -db and -skip")
	}
	if flag.NArg() > 0 || o.Runs < 1 || o.repeat < 1 || o.popular < 1 {
		o.Fail("")
	}
	o.Run(false, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

func run(ctx context.Context, env harness.Env, o options) error {
	root, work := env.Root, env.Work
	logf("work directory %s", work)
	goplsBin, err := harness.FindGopls(o.Gopls)
	if err != nil {
		return err
	}

	res := &results{Header: o.Header(ctx, harness.Corpus{})}
	if out, err := exec.CommandContext(ctx, goplsBin, "version").Output(); err == nil {
		res.Gopls = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}

	// The big corpus downloads in the background while the small one is
	// measured.
	type prepared struct {
		dir string
		err error
	}
	promCh := make(chan prepared, 1)
	if !o.Skips("mcp") && o.Binaries == "" {
		pctx, cancel := context.WithTimeout(ctx, o.promTimeout)
		go func() {
			defer cancel()
			if o.promCorpus == "" && o.promModule == "" {
				promCh <- prepared{err: fmt.Errorf("-prom-module is empty")}
				return
			}
			d, err := harness.CorpusDir(pctx, o.promModule, o.promCorpus, work)
			promCh <- prepared{d, err}
		}()
	}

	corpus, err := harness.CorpusDir(ctx, o.Module, o.Corpus, work)
	if err != nil {
		return err
	}
	res.Corpus = harness.Corpus{Module: o.Module, Dir: corpus}
	c, err := harness.NewContenders(ctx, root, work, corpus, o.Sample, true)
	if err != nil {
		return err
	}
	if o.Binaries != "" {
		res.Machine.LoadAvgStart = harness.LoadAvg()
		return compareBinaries(ctx, o, root, c, goplsBin, res)
	}
	if c.Sextant, err = o.SextantBinary(ctx, root, filepath.Join(work, "bin")); err != nil {
		return err
	}
	sextant := c.Sextant
	res.Machine.LoadAvgStart = harness.LoadAvg()

	// (c) indexing, which also leaves the index (a) uses.
	var db string
	if o.Skips("index") && o.db != "" {
		db = o.db
	} else if o.Skips("index") && o.Skips("parity") {
		logf("index and parity skipped: %s is not indexed", corpus)
	} else if o.Skips("index") {
		logf("indexing %s once (index comparison skipped)", corpus)
		run, err := c.Index(ctx, "xtools", nil)
		if err != nil {
			return err
		}
		db = run.DB
	} else if db, err = indexRuns(ctx, o, c, &res.Index); err != nil {
		return err
	}

	// (a) parity with gopls.
	if !o.Skips("parity") {
		p, err := parity(ctx, goplsBin, db, corpus)
		if err != nil {
			return err
		}
		res.Parity = p
	}

	// (b) against gopls mcp.
	if !o.Skips("mcp") {
		logf("waiting for the %s corpus", o.promModule)
		var pr prepared
		select {
		case pr = <-promCh:
		case <-ctx.Done():
			return ctx.Err()
		}
		mc := mcpCompare{Module: o.promModule, Dir: pr.dir}
		mdb := ""
		if pr.err != nil {
			want := o.promModule
			if want == "" {
				want = "the comparison corpus"
			}
			note := fmt.Sprintf("FALLBACK: %s could not be prepared (%v); the gopls mcp comparison ran on %s instead", want, pr.err, o.Module)
			logf("%s", note)
			res.Notes = append(res.Notes, note)
			mc = mcpCompare{Module: o.Module, Dir: corpus, Fallback: true}
			mdb = db
		} else {
			logf("indexing %s", pr.dir)
			pc := c
			pc.Corpus = pr.dir
			run, err := pc.Index(ctx, "prom", nil)
			if err != nil {
				return err
			}
			mc.Index = &run
			mdb = run.DB
			logf("indexed %s in %s: %d packages, %d symbols", pr.dir, run.Wall.Round(time.Millisecond), run.Summary.Packages, run.Summary.Symbols)
		}
		if err := compareMCP(ctx, o, sextant, goplsBin, mdb, &mc); err != nil {
			return err
		}
		res.MCP = &mc
	}

	res.Machine.LoadAvgEnd = harness.LoadAvg()
	res.Checks = checks(res)
	printReport(os.Stdout, res)
	return writeJSON(o, root, res)
}

// logf reports progress on stderr, time-stamped.
var logf = harness.Logf
