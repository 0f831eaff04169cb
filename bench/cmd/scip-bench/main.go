// Command scip-bench measures Sextant on TypeScript and Python, the
// languages it indexes through SCIP, side by side in one run:
//
//	(a) parity: on a pinned TypeScript library (colinhacks/zod, the zod
//	    package: 287 .ts files) and a pinned Python one (pallets/click: 79
//	    .py files), for at least -symbols symbols of each picked
//	    deterministically from the index (functions, classes, methods,
//	    interfaces and types, constants, spread over the files),
//	    find_references must return the positions typescript-language-server
//	    and pyright give for textDocument/references (without the
//	    declaration), both asked through Sextant's own server (the
//	    lsp_references tool of the same `sextant serve`), and, for
//	    TypeScript, find_implementations what textDocument/implementation
//	    answers (pyright 1.1.407 does not answer it). Every difference is
//	    listed with its cause, classified by rules (see classify);
//	(b) speed: `sextant index` against the SCIP indexers' own runs alone
//	    (the same commands, through internal/scipindexer), alternated; the
//	    import's peak RSS (the sextant process alone, not the indexer it
//	    starts) against the largest SCIP file; find_symbol and
//	    find_references p50 over MCP on the TypeScript library and on a
//	    Go repository of similar size (this module's own tree at its
//	    HEAD); and lsp_references p50 of the same symbols on the same
//	    server, the alternative an agent has today.
//
// The corpora are git checkouts at the pinned commits, given with -ts
// and -py and checked (HEAD at the commit, no tracked file changed, enough
// source files):
//
//	git clone https://github.com/colinhacks/zod /tmp/zod && git -C /tmp/zod checkout 1fb56a5c18c27102dbc92260a4007c7732a0ccca
//	git clone https://github.com/pallets/click /tmp/click && git -C /tmp/click checkout 8b19813f2bfca99f1018a587a8cf54fc959f2e5d
//	npm ci --prefix e2e/lsp
//	go run ./bench/cmd/scip-bench -ts /tmp/zod -py /tmp/click
//
// The indexers and language servers are the pinned ones of e2e/lsp
// (`npm ci --prefix e2e/lsp`), put first on PATH for every program the
// run starts. Every figure is printed next to its target with PASS or
// MISS, and written as JSON to bench/results/. See bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// options are the command-line flags: the shared ones and its own.
type options struct {
	*harness.Flags
	ts, py, goDir string
	nodeBin       string
	symbols       int
	implSymbols   int
	calls         int
	reuse         bool
	warm          bool
	// projectPyright keeps the Python corpus's own pyright configuration
	// (see wholeProject).
	projectPyright bool
}

func main() {
	o := options{Flags: harness.NewFlags("scip-bench")}
	flag.StringVar(&o.ts, "ts", "", "git checkout of "+harness.Zod.Repo+" at "+harness.Zod.Commit+" (required)")
	flag.StringVar(&o.py, "py", "", "git checkout of "+harness.Click.Repo+" at "+harness.Click.Commit+" (required)")
	flag.StringVar(&o.goDir, "go", "", "Go repository of the latency comparison (default: this module's tree at HEAD, from git archive)")
	flag.StringVar(&o.nodeBin, "node-bin", "", "directory holding scip-typescript, scip-python, typescript-language-server and pyright-langserver (default e2e/lsp/node_modules/.bin)")
	flag.IntVar(&o.symbols, "symbols", 48, "symbols of each language compared with its language server")
	flag.IntVar(&o.implSymbols, "impl-symbols", 48, "more TypeScript classes, types, interfaces and methods whose implementations alone are compared")
	flag.IntVar(&o.calls, "calls", 200, "find_symbol and find_references calls of the latency comparison, per repository")
	o.WorkFlags(true, "")
	o.RunsFlag(2, "measured rounds of the index comparison (the indexers alone, then sextant index; alternated)")
	o.SeedFlag("")
	o.SampleFlag()
	o.SextantFlag("")
	o.OutFlag("scip", "")
	o.SkipFlag("comma-separated parts to skip: index, parity, latency, python, typescript")
	flag.BoolVar(&o.warm, "warm", true, "index each corpus once, untimed, before the measured rounds")
	flag.BoolVar(&o.projectPyright, "project-pyright", false, "give pyright the Python corpus's own configuration (click's reads src and tests/typing on Linux alone), not every file on every platform")
	flag.BoolVar(&o.reuse, "reuse", false, "with -skip index and -work: use the index an earlier run left in the work directory, when there is one")
	o.Usage("Measure find_references and find_implementations on TypeScript and Python against\ntheir language servers, and SCIP indexing and query speed.\n")
	flag.Parse()
	if flag.NArg() > 0 || o.Runs < 1 || o.symbols < 1 || o.calls < 1 {
		o.Fail("")
	}
	if o.ts == "" && !o.Skips("typescript") || o.py == "" && !o.Skips("python") {
		o.Fail("-ts and -py name the corpora (see -h for how to get them)")
	}
	o.Run(false, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

// logf reports progress on stderr, time-stamped.
var logf = harness.Logf

func run(ctx context.Context, env harness.Env, o options) error {
	root, work := env.Root, env.Work
	logf("work directory %s", work)
	bin := o.nodeBin
	if bin == "" {
		bin = filepath.Join(root, "e2e", "lsp", "node_modules", ".bin")
	}
	for _, cmd := range []string{"scip-typescript", "scip-python", "typescript-language-server", "pyright-langserver"} {
		if _, err := os.Stat(filepath.Join(bin, cmd)); err != nil {
			return fmt.Errorf("%s not in %s: run npm ci --prefix e2e/lsp, or give -node-bin: %w", cmd, bin, err)
		}
	}
	// Every program the run starts (sextant, the indexers, the servers,
	// the indexers run alone from this process) finds the pinned ones.
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	os.Setenv("PATH", abs+string(os.PathListSeparator)+os.Getenv("PATH"))

	sextant, err := o.SextantBinary(ctx, root, filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	res := &results{Header: o.Header(ctx, harness.Corpus{})}
	res.Tools = toolVersions(bin)
	res.Machine.LoadAvgStart = harness.LoadAvg()
	for _, c := range []struct {
		corpus harness.Pinned
		dir    string
	}{{harness.Zod, o.ts}, {harness.Click, o.py}} {
		if o.Skips(c.corpus.Language) {
			continue
		}
		lr, err := runLanguage(ctx, o, sextant, work, c.corpus, c.dir)
		if err != nil {
			return fmt.Errorf("%s: %w", c.corpus.Repo, err)
		}
		res.Languages = append(res.Languages, lr)
	}
	if !o.Skips("latency") && !o.Skips("typescript") {
		g, err := goLatency(ctx, o, sextant, root, work)
		if err != nil {
			return fmt.Errorf("go latency: %w", err)
		}
		res.Go = g
	}
	res.Machine.LoadAvgEnd = harness.LoadAvg()
	res.Checks = checks(res)
	printReport(os.Stdout, res)
	return harness.WriteJSON(root, o.Out, "scip", res)
}

// runLanguage is every part of the run on one corpus.
func runLanguage(ctx context.Context, o options, sextant, work string, c harness.Pinned, dir string) (*languageResult, error) {
	corpusRoot, files, err := c.Check(ctx, dir)
	if err != nil {
		return nil, err
	}
	if c.Language == "python" && !o.projectPyright {
		// A copy, so that pyright reads what Sextant indexes (see
		// wholeProject).
		whole := filepath.Join(work, "corpus", c.Language)
		if err := wholeProject(ctx, corpusRoot, whole); err != nil {
			return nil, fmt.Errorf("copying %s: %w", corpusRoot, err)
		}
		corpusRoot = whole
	}
	lr := &languageResult{Language: c.Language, Corpus: c, Dir: corpusRoot, SourceFiles: files}
	logf("%s: %s at %s, %d %s files under %s", c.Language, c.Repo, c.Commit[:12], files, c.Ext, corpusRoot)
	db := filepath.Join(work, "db", c.Language+".db")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Stat(db); err == nil && o.reuse && o.Skips("index") {
		logf("%s: reusing %s", c.Language, db)
		lr.Summary.Files = files
	} else if o.Skips("index") {
		run, err := indexOnce(ctx, o, sextant, corpusRoot, db)
		if err != nil {
			return nil, err
		}
		lr.Summary = run.Summary
	} else if err := indexRounds(ctx, o, sextant, corpusRoot, db, lr); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := serveParts(ctx, o, sextant, corpusRoot, db, lr); err != nil {
		return nil, err
	}
	logf("%s: parity and latency in %s", c.Language, time.Since(start).Round(time.Second))
	return lr, nil
}
