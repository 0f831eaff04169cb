package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/testrec"
)

// runTests is `sextant tests record`: the one command that runs the
// repository's code, so it is never run by serve or by a tool call.
func runTests(ctx context.Context, e env, argv []string) error {
	if len(argv) == 0 || argv[0] != "record" {
		return usageError{"usage: sextant tests record [flags] [DIR] (see sextant tests record -h)"}
	}
	fs := newFlagSet("tests record", e)
	dbPath := dbFlag(fs)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	pkgs := fs.String("packages", "", "record only these packages: comma-separated patterns relative to DIR (default ./...)")
	bench := fs.Bool("bench", false, "run each benchmark once too (-benchtime=1x)")
	testTimeout := fs.Duration("test-timeout", 5*time.Minute, "stop a test still running after this, with every process it started, and record it as timed out")
	timeout := fs.Duration("timeout", 0, "stop the whole recording after this (0: no bound); what is recorded stays, and the next run goes on")
	parallel := fs.Int("parallel", 0, "tests run at once (default GOMAXPROCS)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: sextant tests record [--db PATH] [--packages P,...] [--json] [DIR]

Run the tests of the Go module at DIR (default: the working directory)
once each with coverage, and record which declarations each top-level
test, example (and with --bench, benchmark) ran, so that get_impact names
exactly the tests that run a change. This RUNS THE REPOSITORY'S CODE (its
tests, TestMain and init functions), unlike every other command: run it
only on code you trust. DIR is indexed first when it is not yet.

Run it again to go on after an interrupt: a test recorded from the same
test binary is not run again.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv[1:]); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 1 {
		return usageError{"tests record takes one DIR"}
	}
	dir := "."
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	mod, err := query.CanonicalDir(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
		return usageError{fmt.Sprintf("%s has no go.mod: name a module's directory", dir)}
	}
	stop, err := startCPUProfile(e) // a CPU profile of the run
	if err != nil {
		return err
	}
	defer stop()
	st, err := openIndexStore(ctx, e, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	tr, ok := st.(graph.TestRecorder)
	if !ok {
		return errors.New("this database keeps no test recordings")
	}
	rp, root, err := indexedRepo(ctx, e, st, mod, postgres.IsURL(dbName(e, *dbPath)))
	if err != nil {
		return err
	}
	done := map[string]string{} // package + name: binary
	if _, runs, err := tr.TestRecording(ctx, rp.Name); err == nil {
		for _, r := range runs {
			done[r.Package+"\x00"+r.Name] = r.Binary
		}
	} else if !errors.Is(err, graph.ErrNotFound) {
		return err
	}
	var patterns []string
	for _, p := range strings.Split(*pkgs, ",") {
		if p = strings.TrimSpace(p); p != "" {
			patterns = append(patterns, p)
		}
	}
	rec := graph.TestRecording{Repository: rp.Name, VCSHead: rp.VCSHead, GoVersion: runtime.Version()}
	show := testProgress(e)
	sum, err := testrec.Record(ctx, testrec.Options{
		Dir: mod, RepoRoot: root, Repository: rp.Name, Packages: patterns, Benchmarks: *bench,
		TestTimeout: *testTimeout, Timeout: *timeout, Parallel: *parallel,
		Recorded: func(pkg, name, binary string) bool { b, ok := done[pkg+"\x00"+name]; return ok && b == binary },
		Write: func(runs []graph.TestRun, known []graph.Covered) error {
			rec.RecordedAt, rec.Known = time.Now(), known
			return tr.RecordTests(context.WithoutCancel(ctx), rec, runs)
		},
		Progress: show,
	})
	show(testrec.Progress{Done: -1})
	if err != nil {
		return err
	}
	if *asJSON {
		b, _ := json.MarshalIndent(map[string]any{"repository": rp.Name, "summary": sum}, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	} else {
		var st []string
		for _, k := range sortedStatus(sum.ByStatus) {
			st = append(st, fmt.Sprintf("%d %s", sum.ByStatus[k], k))
		}
		fmt.Fprintf(e.stdout, "%s: recorded %d tests of %d packages in %s (%s); %d recorded already\n",
			rp.Name, sum.Tests, sum.Packages, sum.Duration.Round(time.Millisecond), strings.Join(st, ", "), sum.Skipped)
		for _, d := range sum.Diagnostics {
			fmt.Fprintf(e.stdout, "  %s\n", query.EscapeControls(d))
		}
		if sum.Stopped != "" {
			fmt.Fprintf(e.stdout, "%s: stopped: %s\n", rp.Name, sum.Stopped)
		}
	}
	if sum.Stopped != "" {
		return reportedError{errors.New(sum.Stopped)}
	}
	return nil
}

func sortedStatus(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// indexedRepo returns the repository whose root holds dir, indexing dir
// first when no repository does, and the directory its paths are
// relative to. Into a shared graph, where a repository is registered by
// name (its directory means nothing on other machines), dir is indexed
// and published first, as publish does, so that the recording describes
// the snapshot it is published with.
func indexedRepo(ctx context.Context, e env, st graph.Store, dir string, shared bool) (graph.Repository, string, error) {
	if !shared {
		repos, err := graph.Repositories(ctx, st)
		if err != nil {
			return graph.Repository{}, "", err
		}
		var best graph.Repository
		for _, rp := range repos {
			if (rp.Root == dir || strings.HasPrefix(dir, rp.Root+string(filepath.Separator))) && len(rp.Root) > len(best.Root) {
				best = rp.Repository
			}
		}
		if best.Root != "" {
			return best, best.Root, nil
		}
	}
	show := progressPrinter(e)
	res, err := index.Index(ctx, st, dir, index.Options{Progress: adaptProgress(dir, show), Shared: shared, FirstMaxVTACalls: callgraph.DefaultMaxVTACalls})
	show(query.Progress{Root: dir, Phase: "done"})
	if err != nil {
		return graph.Repository{}, "", fmt.Errorf("indexing %s: %w", dir, err)
	}
	res.KeepTypes()
	rp := res.Repository
	// The commit is the published snapshot's: read it back.
	if repos, err := graph.Repositories(ctx, st); err == nil {
		for _, r := range repos {
			if r.Name == rp.Name {
				rp.VCSHead = r.VCSHead
			}
		}
	}
	return rp, dir, nil
}

// testProgress shows a recording's progress on stderr, with an estimate
// of the time left: redrawn in place on a terminal, a line every tenth
// otherwise. Done < 0 ends it.
func testProgress(e env) func(testrec.Progress) {
	tty := isTerminal(e.stderr)
	lastTenth := -1
	drawn := false
	var mu sync.Mutex
	return func(p testrec.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Done < 0 {
			if tty && drawn {
				fmt.Fprint(e.stderr, "\r\033[K")
			}
			return
		}
		left := ""
		if p.Done > 0 && p.Total > p.Done && p.PkgsTotal > 0 {
			// Tests found so far stand for the packages not built yet.
			total := float64(p.Total) * float64(p.PkgsTotal) / float64(max(p.Packages, 1))
			rest := time.Duration(float64(p.Elapsed) / float64(p.Done) * (total - float64(p.Done)))
			left = fmt.Sprintf(", about %s left", rest.Round(time.Second))
		}
		line := fmt.Sprintf("tests: %d/%d run, %d/%d packages, %s%s", p.Done, p.Total, p.Packages, p.PkgsTotal, p.Elapsed.Round(time.Second), left)
		if tty {
			fmt.Fprintf(e.stderr, "\r\033[K%s", line)
			drawn = true
			return
		}
		if tenth := 10 * p.Packages / max(p.PkgsTotal, 1); tenth != lastTenth {
			lastTenth = tenth
			fmt.Fprintln(e.stderr, line)
		}
	}
}
