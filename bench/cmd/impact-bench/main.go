// Command impact-bench scores get_impact against measured truth, in one
// run:
//
//  1. fetches a pinned module (github.com/spf13/cobra@v1.10.2 by default,
//     golang.org/x/tools@v0.52.0 for the large corpus) with
//     harness.FetchModule;
//  2. measures which tests run each function (bench/impacttruth: every
//     test alone, with coverage of the whole module), in a copy of its
//     own, for every package with tests or a seeded sample of -packages of
//     them;
//  3. indexes the corpus in-process into a SQLite file;
//  4. for a seeded sample of -funcs functions some test runs, asks
//     get_impact about a body change to each and scores the tests it names
//     (recall: every test that runs the function named; precision: the
//     median named against the truth's and against the tests of every
//     dependent package), timing each call with default arguments;
//  5. times get_impact on diffs that change the bodies of 20 functions
//     (diff_text, not applied), and records how many tokens the default
//     answer takes;
//  6. with -observed (the calls bench/cmd/soundness -calls saw the same
//     module's tests make), scores reachability over those calls the same
//     way: the fewest tests any answer read from a sound call graph can
//     name;
//  7. writes it all as JSON.
//
// Run it from the module root: go run ./bench/cmd/impact-bench [-module golang.org/x/tools@v0.52.0 -packages 30 -funcs 250]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/impacttruth"
	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// options are the command-line flags: the shared ones and its own.
type options struct {
	*harness.Flags
	truthFile, detail, cpuprofile, db, observed string
	recordPackages                              string
	speedOnly, record                           bool
	packages, funcs, diffs                      int
	reuse                                       bool
}

// report is what the run writes.
type report struct {
	Module       string            `json:"module"`
	Date         string            `json:"date"`
	Packages     []string          `json:"packages_run"`
	TruthTests   int               `json:"truth_tests"`
	TruthFailed  []string          `json:"truth_failed_tests,omitempty"`
	TruthFuncs   int               `json:"truth_functions"`
	TruthSeconds float64           `json:"truth_seconds"`
	IndexSeconds float64           `json:"index_seconds"`
	Score        impacttruth.Score `json:"score"`
	// ObservedBound is what answering by reachability over the calls the
	// tests were seen making would name (-observed): the floor of
	// precision for any answer read from a call graph.
	ObservedBound *impacttruth.Bound `json:"observed_call_graph_bound,omitempty"`
	MissesBlind   int                `json:"misses_with_blind_spot"`
	OneSymbol     harness.Latency    `json:"get_impact_one_symbol"`
	Diff20        harness.Latency    `json:"get_impact_diff_20_functions"`
	Diff20Tokens  []int              `json:"diff_20_text_tokens"`
	Diff20Example string             `json:"diff_20_text_example"`
	Checks        []harness.Check    `json:"checks"`
	// Recording is what -record measured: sextant tests record over the
	// packages the truth ran, beside go test of the same packages.
	Recording *recording `json:"recording,omitempty"`
}

// recording is the test recording's cost and use: its wall time beside
// go test's on the same packages (run before and after it), and how many
// of the tests named came from it.
type recording struct {
	Packages      []string        `json:"packages"`
	GoTestSeconds []float64       `json:"go_test_seconds"`
	Skipped       []string        `json:"go_test_skipped,omitempty"` // the tests the truth saw fail
	RecordSeconds float64         `json:"record_seconds"`
	Ratio         float64         `json:"record_over_go_test"`
	Summary       json.RawMessage `json:"summary"`
	NamedRecorded int             `json:"named_recorded"`
	NamedStatic   int             `json:"named_static"`
	FuncsRecorded int             `json:"functions_answered_from_recording"`
	// WithAndWithout is get_impact on one function at a time, timed on
	// two indexes of the same tree, one with the recording and one
	// without, call by call in alternating order.
	WithAndWithout *abLatency `json:"get_impact_with_and_without_recording,omitempty"`
}

// abLatency is the same calls timed on two services, alternated.
type abLatency struct {
	Without  harness.Latency `json:"without_recording"`
	With     harness.Latency `json:"with_recording"`
	P50Ratio float64         `json:"p50_with_over_without"`
	// Paired is of the calls on the same function side by side: what a
	// call with the recording costs beside the same call without it,
	// with the interval that says whether that is beyond noise.
	Paired harness.Paired `json:"paired"`
	// Answered is how many of the calls with the recording it answered
	// (the function's body is in it, as it was recorded).
	Answered int `json:"answered_from_recording"`
	// Stale is how many answers, of both, said the index did not match
	// the disk: each of those paid for statting every file of the tree.
	Stale int `json:"stale_answers"`
}

func main() {
	o := options{Flags: harness.NewFlags("impact-bench")}
	o.CorpusFlags("github.com/spf13/cobra@v1.10.2", "MODULE@VERSION to score on", "an existing copy of the module (default: fetch it)")
	o.WorkFlags(false, "work directory (default: a temporary one, removed)")
	o.OutFlag("", "result file (default bench/results/DATE-impact-NAME.json; - for stdout)")
	flag.StringVar(&o.truthFile, "truth", "", "read the truth from this JSON file when it exists, else measure it and write it there")
	flag.IntVar(&o.packages, "packages", 0, "run the tests of this many packages, a seeded sample (0: all)")
	flag.IntVar(&o.funcs, "funcs", 0, "ask about this many functions, a seeded sample (0: all)")
	flag.IntVar(&o.diffs, "diffs", 20, "20-function diffs to time")
	o.SeedFlag("sampling seed")
	flag.BoolVar(&o.reuse, "reuse-index", false, "with -work: keep the index a previous run left there")
	flag.StringVar(&o.db, "db", "", "use this index of -corpus instead of indexing it (a sextant database)")
	flag.BoolVar(&o.speedOnly, "speed-only", false, "measure no truth: time get_impact on -funcs functions sampled from the index and on -diffs 20-function diffs of them")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the get_impact calls to this file")
	flag.StringVar(&o.observed, "observed", "", "the calls bench/cmd/soundness -calls observed on the same module: also score reachability over them, the floor of precision for an answer read from a call graph")
	flag.BoolVar(&o.record, "record", false, "record the tests and benchmarks with sextant tests record --bench first (timed beside go test -bench=. -benchtime=1x of the same packages), so that get_impact answers from the recording; get_impact is also timed with and without it, alternated")
	flag.StringVar(&o.recordPackages, "record-packages", "", "with -record: the package directories to record, comma-separated (default: those the truth ran; needed with -speed-only)")
	flag.StringVar(&o.detail, "detail", "", "write every function's truth and named tests, with how each is reached, to this JSON file")
	flag.Parse()
	o.Run(true, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

func run(ctx context.Context, env harness.Env, o options) error {
	if o.record && o.speedOnly && o.recordPackages == "" {
		return errors.New("-record with -speed-only needs -record-packages: there is no truth to take them from")
	}
	root, work, corpus := env.Root, env.Work, env.Corpus
	rep := report{Module: o.Module, Date: time.Now().UTC().Format("2006-01-02")}
	rng := rand.New(rand.NewPCG(o.Seed, 0))

	var truth *impacttruth.Truth
	var err error
	if !o.speedOnly {
		if truth, err = loadTruth(o.truthFile); err != nil {
			return err
		}
	}
	if o.speedOnly {
		truth = &impacttruth.Truth{}
	} else if truth == nil {
		copyDir := filepath.Join(work, "truth")
		if err := os.RemoveAll(copyDir); err != nil {
			return err
		}
		if err := os.CopyFS(copyDir, os.DirFS(corpus)); err != nil {
			return err
		}
		pkgs, err := samplePackages(ctx, copyDir, o.packages, rng)
		if err != nil {
			return err
		}
		harness.Logf("measuring the truth: the tests of %d packages", len(pkgs))
		truth, err = impacttruth.Build(ctx, copyDir, impacttruth.Options{Packages: pkgs, Log: harness.Logf})
		if err != nil {
			return err
		}
		if o.truthFile != "" {
			data, _ := json.Marshal(truth)
			if err := os.WriteFile(o.truthFile, data, 0o644); err != nil {
				return err
			}
		}
	}
	for p, pk := range truth.Packages {
		if len(pk.Tests) > 0 {
			rep.Packages = append(rep.Packages, p)
		}
	}
	sort.Strings(rep.Packages)
	rep.TruthTests, rep.TruthFailed, rep.TruthFuncs, rep.TruthSeconds = truth.Tests, truth.Failed, len(truth.Funcs), truth.Elapsed.Seconds()
	harness.Logf("truth: %d tests, %d functions run, %s", truth.Tests, len(truth.Funcs), truth.Elapsed.Round(time.Second))

	dbPath := filepath.Join(work, "impact.db")
	if o.db != "" {
		dbPath, o.reuse = o.db, true
	}
	_, statErr := os.Stat(dbPath)
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	if statErr == nil && o.reuse {
		harness.Logf("reusing the index in %s", dbPath)
	} else {
		start := time.Now()
		if _, err := index.Index(ctx, st, corpus, index.Options{}); err != nil {
			return err
		}
		rep.IndexSeconds = time.Since(start).Seconds()
		harness.Logf("indexed in %.1fs", rep.IndexSeconds)
	}
	var staticSt *sqlite.Store
	if o.record {
		// The same tree indexed again, left without the recording, for
		// the calls timed with and without it.
		if staticSt, err = sqlite.Open(ctx, filepath.Join(work, "static.db")); err != nil {
			return err
		}
		defer staticSt.Close()
		if _, err := index.Index(ctx, staticSt, corpus, index.Options{}); err != nil {
			return err
		}
		if rep.Recording, err = recordTests(ctx, root, work, dbPath, corpus, truth, o.recordPackages); err != nil {
			return err
		}
		// The tests the recording ran created and removed files in the
		// tree (cobra's write completion scripts into its root), so the
		// directories' times moved past both indexes, which were then
		// stale: every call would check the whole tree against the disk
		// (about a quarter of a call on cobra). Both are indexed again,
		// nothing else having changed, so that the calls are timed on
		// fresh indexes, as a server's are once it has refreshed.
		for _, s := range []*sqlite.Store{st, staticSt} {
			if _, err := index.Index(ctx, s, corpus, index.Options{}); err != nil {
				return err
			}
		}
	}
	svc, err := query.New(st, []string{corpus}, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	tool, _ := query.LookupTool("get_impact")
	call := func(args map[string]any) (*query.GetImpactOutput, time.Duration, error) {
		raw, _ := json.Marshal(args)
		t0 := time.Now()
		a, err := tool.Call(ctx, svc, raw, nil)
		d := time.Since(t0)
		if err != nil {
			return nil, d, err
		}
		return a.(*query.GetImpactOutput), d, nil
	}
	dirToPkg := map[string]string{}
	for _, p := range truth.Packages {
		dirToPkg[p.Dir] = p.Path
	}

	if o.speedOnly {
		if err := sampleIndex(ctx, st, truth); err != nil {
			return err
		}
		if o.record {
			// Only the functions of the packages recorded, so that the
			// calls timed with the recording read it.
			keepRecorded(truth, o.recordPackages)
		}
	}
	funcs := make([]string, 0, len(truth.Funcs))
	for f := range truth.Funcs {
		funcs = append(funcs, f)
	}
	sort.Strings(funcs)
	rng.Shuffle(len(funcs), func(i, j int) { funcs[i], funcs[j] = funcs[j], funcs[i] })
	if o.funcs > 0 && len(funcs) > o.funcs {
		funcs = funcs[:o.funcs]
	}
	sort.Strings(funcs)
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if staticSt != nil {
		if rep.Recording.WithAndWithout, err = withAndWithout(ctx, staticSt, svc, corpus, funcs, truth); err != nil {
			return err
		}
	}
	answers := map[string]impacttruth.Named{}
	details := map[string]funcDetail{}
	var one []time.Duration
	for i, f := range funcs {
		d := truth.Decls[f]
		args := map[string]any{"qualified_name": d.Name, "path": d.Path}
		_, took, err := call(args)
		if err != nil {
			harness.Logf("%s: %v", f, err)
			continue
		}
		one = append(one, took)
		if o.speedOnly {
			continue
		}
		named, how, err := allTests(call, args, dirToPkg)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		// The truth knows the tests of the packages it ran.
		kept := named.Tests[:0]
		det := funcDetail{Truth: truth.Funcs[f]}
		fromRecording := false
		for i, t := range named.Tests {
			if p := truth.Packages[t[:strings.LastIndexByte(t, '.')]]; p != nil && len(p.Tests) > 0 {
				kept = append(kept, t)
				if rep.Recording != nil {
					if how[i].Source == "recorded" {
						rep.Recording.NamedRecorded++
						fromRecording = true
					} else {
						rep.Recording.NamedStatic++
					}
				}
				det.Named = append(det.Named, namedDetail{Test: t, Coverage: how[i].Coverage, Via: how[i].Via, Reach: how[i].Reach})
			}
		}
		named.Tests = kept
		if fromRecording {
			rep.Recording.FuncsRecorded++
		}
		answers[f] = named
		details[f] = det
		if (i+1)%50 == 0 {
			harness.Logf("asked about %d of %d functions", i+1, len(funcs))
		}
	}
	rep.OneSymbol = harness.Summarize(one)
	if !o.speedOnly {
		rep.Score = truth.ScoreAll(funcs, answers)
	}
	for _, m := range rep.Score.Misses {
		if len(m.BlindSpots) > 0 {
			rep.MissesBlind++
		}
	}
	harness.Logf("score: %s", rep.Score)
	if o.observed != "" && !o.speedOnly {
		var calls []impacttruth.ObservedCall
		data, err := os.ReadFile(o.observed)
		if err == nil {
			err = json.Unmarshal(data, &calls)
		}
		if err != nil {
			return fmt.Errorf("observed calls: %w", err)
		}
		b := truth.ObservedBound(calls, funcs)
		rep.ObservedBound = &b
		harness.Logf("reachability over the %d observed calls: median named %.1f of %d functions (truth %.1f, dependents %.1f), within the target %v; the truth itself within 10x of the dependents %v",
			len(calls), b.MedianNamed, b.Functions, b.MedianTruth, b.MedianDependents, b.Within, b.TruthWithin)
	}
	if o.detail != "" {
		data, _ := json.MarshalIndent(details, "", " ")
		if err := os.WriteFile(o.detail, data, 0o644); err != nil {
			return err
		}
	}

	// 20-function diffs.
	var all []impacttruth.Decl
	for _, f := range funcs {
		all = append(all, truth.Decls[f])
	}
	var diffTimes []time.Duration
	for i := 0; i < o.diffs && len(all) >= 20; i++ {
		rng.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
		patch, err := impacttruth.BodyPatch(corpus, all[:20])
		if err != nil {
			return err
		}
		out, took, err := call(map[string]any{"diff_text": patch})
		if err != nil {
			return fmt.Errorf("20-function diff: %w", err)
		}
		diffTimes = append(diffTimes, took)
		text := query.RenderText(out)
		rep.Diff20Tokens = append(rep.Diff20Tokens, (len(text)+3)/4)
		if i == 0 {
			rep.Diff20Example = text
		}
	}
	rep.Diff20 = harness.Summarize(diffTimes)
	maxTokens := 0
	for _, t := range rep.Diff20Tokens {
		maxTokens = max(maxTokens, t)
	}
	if !o.speedOnly {
		rep.Checks = []harness.Check{
			harness.AtMost("recall misses", float64(len(rep.Score.Misses)), 0, "functions", "functions whose tests are not all named"),
			harness.AtMost("median named / 3x truth", rep.Score.MedianNamed, 3*rep.Score.MedianTruth, "tests", ""),
			harness.AtMost("10x median named / dependents", 10*rep.Score.MedianNamed, rep.Score.MedianDependents, "tests", ""),
		}
	}
	if r := rep.Recording; r != nil {
		if !o.speedOnly {
			rep.Checks = append(rep.Checks, harness.AtMost("median named / 1.5x truth (recording)", rep.Score.MedianNamed, 1.5*rep.Score.MedianTruth, "tests", ""))
		}
		rep.Checks = append(rep.Checks, harness.AtMost("recording / go test wall", r.Ratio, 3, "x", "go test run before and after, their mean"))
		if ab := r.WithAndWithout; ab != nil {
			rep.Checks = append(rep.Checks, harness.AtMost("get_impact p50 with / without the recording", ab.P50Ratio, 1.1, "x", "alternated call by call on two indexes of the same tree"))
		}
	}
	rep.Checks = append(rep.Checks,
		harness.AtMost("get_impact one symbol p50", float64(rep.OneSymbol.P50.Microseconds())/1000, 20, "ms", ""),
		harness.AtMost("get_impact 20-function diff p50", float64(rep.Diff20.P50.Microseconds())/1000, 300, "ms", ""),
		harness.AtMost("20-function diff text", float64(maxTokens), 2000, "tokens", "the largest default answer"),
	)
	for _, c := range rep.Checks {
		harness.Logf("%s", c.Verdict())
	}
	return harness.WriteJSON(root, o.Out, "impact-"+harness.ModuleName(o.Module), rep)
}

// funcDetail is what -detail writes for one function: the tests that run
// it, and those get_impact names with how it says each is reached.
type funcDetail struct {
	Truth []string      `json:"truth"`
	Named []namedDetail `json:"named"`
}

type namedDetail struct {
	Test     string   `json:"test"`
	Coverage string   `json:"coverage"`
	Via      string   `json:"via"`
	Reach    []string `json:"reach"`
}

// allTests pages through get_impact's answer for args and returns the
// tests it names, spelled as the truth spells them, and the answer's row
// for each.
func allTests(call func(map[string]any) (*query.GetImpactOutput, time.Duration, error), args map[string]any, dirToPkg map[string]string) (impacttruth.Named, []query.ImpactTest, error) {
	var n impacttruth.Named
	var rows []query.ImpactTest
	a := map[string]any{}
	for k, v := range args {
		a[k] = v
	}
	a["limit"], a["budget"] = 500, 1000000
	for {
		out, _, err := call(a)
		if err != nil {
			return n, rows, err
		}
		n.BlindSpots = out.BlindSpots
		for _, t := range out.Results {
			p, ok := dirToPkg[t.Dir]
			if !ok {
				p = strings.TrimSuffix(t.Package, "_test")
			}
			n.Tests = append(n.Tests, p+"."+t.Name)
			rows = append(rows, t)
		}
		if out.NextCursor == nil || len(out.Results) == 0 {
			return n, rows, nil
		}
		a["cursor"] = *out.NextCursor
	}
}

// sampleIndex fills truth's functions with every function and method of
// the index's non-test files whose body spans lines, for -speed-only:
// each "run" by no test, so that nothing is scored.
func sampleIndex(ctx context.Context, st *sqlite.Store, truth *impacttruth.Truth) error {
	r, err := st.Read(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	truth.Funcs, truth.Decls = map[string][]string{}, map[string]impacttruth.Decl{}
	// Every name starts with a letter or an underscore.
	var syms []graph.Symbol
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_" {
		some, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: string(c), Mode: graph.MatchPrefix, Kinds: []graph.Kind{graph.KindFunc, graph.KindMethod}})
		if err != nil {
			return err
		}
		syms = append(syms, some...)
	}
	for _, s := range syms {
		if s.Kind != graph.KindFunc && s.Kind != graph.KindMethod || s.TestOnly || s.EndLine-s.StartLine < 2 {
			continue
		}
		k := s.PackagePath + "." + s.QualifiedName
		truth.Funcs[k] = nil
		truth.Decls[k] = impacttruth.Decl{Package: s.PackagePath, Path: s.Path, Name: s.QualifiedName, StartLine: s.StartLine, EndLine: s.EndLine}
	}
	if len(truth.Funcs) == 0 {
		return fmt.Errorf("the index has no functions to time")
	}
	return nil
}

func loadTruth(file string) (*impacttruth.Truth, error) {
	if file == "" {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var t impacttruth.Truth
	return &t, json.Unmarshal(data, &t)
}

// samplePackages picks n of the module's packages that have tests (all
// when n is 0).
func samplePackages(ctx context.Context, dir string, n int, rng *rand.Rand) ([]string, error) {
	if n == 0 {
		return nil, nil
	}
	out, err := harness.GoOutput(ctx, dir, nil, "list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}", "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			pkgs = append(pkgs, l)
		}
	}
	rng.Shuffle(len(pkgs), func(i, j int) { pkgs[i], pkgs[j] = pkgs[j], pkgs[i] })
	if len(pkgs) > n {
		pkgs = pkgs[:n]
	}
	sort.Strings(pkgs)
	return pkgs, nil
}

// recordTests runs sextant tests record --bench over the packages the
// truth ran, into the index at db, between two runs of go test -count=1
// -bench=. -benchtime=1x of the same packages (each test, example and
// benchmark once, as the truth and the recording run them), and reports
// the three wall times. Test failures do not stop
// it: both sides run every test either way.
func recordTests(ctx context.Context, root, work, db, corpus string, truth *impacttruth.Truth, packages string) (*recording, error) {
	r := &recording{}
	for _, p := range truth.Packages {
		if len(p.Tests) > 0 {
			r.Packages = append(r.Packages, "./"+p.Dir)
		}
	}
	if packages != "" {
		r.Packages = nil
		for _, d := range packageDirs(packages) {
			r.Packages = append(r.Packages, "./"+d)
		}
	}
	sort.Strings(r.Packages)
	bin, err := harness.Build(ctx, root, "./cmd/sextant", filepath.Join(work, "sextant"))
	if err != nil {
		return nil, err
	}
	// A test that fails by panicking ends its package's go test run, so
	// the tests the truth saw fail are skipped there; the recording runs
	// them, each alone.
	// The truth runs each benchmark once too, so both sides do.
	args := []string{"test", "-count=1", "-bench=.", "-benchtime=1x"}
	if len(truth.Failed) > 0 {
		var names []string
		for _, f := range truth.Failed {
			names = append(names, regexp.QuoteMeta(f[strings.LastIndexByte(f, '.')+1:]))
		}
		r.Skipped = names
		args = append(args, "-skip", "^("+strings.Join(names, "|")+")$")
	}
	args = append(args, r.Packages...)
	goTest := func() error {
		start := time.Now()
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = corpus
		out, err := cmd.CombinedOutput()
		if _, failed := err.(*exec.ExitError); err != nil && !failed {
			return fmt.Errorf("go test: %w", err)
		}
		r.GoTestSeconds = append(r.GoTestSeconds, time.Since(start).Seconds())
		harness.Logf("go test of %d packages: %.1fs%s", len(r.Packages), time.Since(start).Seconds(), map[bool]string{true: " (some tests fail)"}[err != nil && len(out) > 0])
		return nil
	}
	if err := goTest(); err != nil {
		return nil, err
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "tests", "record", "--bench", "--db", db, "--json", "--packages", strings.Join(r.Packages, ","), corpus)
	cmd.Stderr = io.Discard
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("sextant tests record: %w: %s", err, harness.Tail(string(out)))
	}
	r.RecordSeconds = time.Since(start).Seconds()
	var sum struct {
		Summary json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		return nil, fmt.Errorf("sextant tests record: %w", err)
	}
	r.Summary = sum.Summary
	harness.Logf("recorded in %.1fs: %s", r.RecordSeconds, sum.Summary)
	if err := goTest(); err != nil {
		return nil, err
	}
	r.Ratio = r.RecordSeconds / ((r.GoTestSeconds[0] + r.GoTestSeconds[1]) / 2)
	return r, nil
}

// withAndWithout times get_impact on each function on two services of
// the same tree, one over the index without a recording (static) and
// one with it, alternating which goes first call by call so that drift
// and other load fall on both alike, and checks they answer every call.
func withAndWithout(ctx context.Context, static *sqlite.Store, recorded *query.Service, corpus string, funcs []string, truth *impacttruth.Truth) (*abLatency, error) {
	svc, err := query.New(static, []string{corpus}, nil)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	tool, _ := query.LookupTool("get_impact")
	var without, with []time.Duration
	answered, stale := 0, 0
	for i, f := range funcs {
		d := truth.Decls[f]
		raw, _ := json.Marshal(map[string]any{"qualified_name": d.Name, "path": d.Path})
		order := []*query.Service{svc, recorded}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, s := range order {
			label := map[bool]string{true: "without", false: "with"}[s == svc]
			var took time.Duration
			// Labelled, so that a -cpuprofile tells the two apart.
			pprof.Do(ctx, pprof.Labels("recording", label), func(ctx context.Context) {
				t0 := time.Now()
				var a any
				a, err = tool.Call(ctx, s, raw, nil)
				took = time.Since(t0)
				out, ok := a.(*query.GetImpactOutput)
				if ok && s != svc && out.Recording != nil && out.Recording.Covered > 0 {
					answered++
				}
				if ok && !out.Fresh {
					stale++
				}
			})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if s == svc {
				without = append(without, took)
			} else {
				with = append(with, took)
			}
		}
	}
	ab := &abLatency{Without: harness.Summarize(without), With: harness.Summarize(with), Paired: harness.SummarizePairs(without, with),
		Answered: answered, Stale: stale}
	if ab.Without.P50 > 0 {
		ab.P50Ratio = float64(ab.With.P50) / float64(ab.Without.P50)
	}
	harness.Logf("get_impact on %d functions, alternated: p50 %v without the recording, %v with it (%.2fx); %d answered from it; %d answers stale", len(funcs), ab.Without.P50, ab.With.P50, ab.P50Ratio, answered, stale)
	pr := ab.Paired
	harness.Logf("paired, the same function with and without: median %v more (95%% CI %v to %v), ratio %.3f (%.3f to %.3f)",
		pr.DiffMedian, pr.DiffLow, pr.DiffHigh, pr.RatioMed, pr.RatioLow, pr.RatioHigh)
	return ab, nil
}

// packageDirs reads -record-packages: comma-separated package
// directories (./dir or ./dir/...), slash-separated, without the "./".
func packageDirs(packages string) []string {
	var out []string
	for _, p := range strings.Split(packages, ",") {
		p = strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(p)), "./")
		if p == "" {
			p = "."
		}
		out = append(out, p)
	}
	return out
}

// keepRecorded drops from truth's functions those outside the package
// directories of packages (see packageDirs).
func keepRecorded(truth *impacttruth.Truth, packages string) {
	dirs := packageDirs(packages)
	in := func(dir string) bool {
		for _, p := range dirs {
			if base, ok := strings.CutSuffix(p, "/..."); ok {
				if base == "." || dir == base || strings.HasPrefix(dir, base+"/") {
					return true
				}
			} else if dir == p {
				return true
			}
		}
		return false
	}
	for f, d := range truth.Decls {
		if !in(path.Dir(d.Path)) {
			delete(truth.Funcs, f)
			delete(truth.Decls, f)
		}
	}
}
