// Command soundness scores get_callers against the calls a module's own
// test suite makes, side by side with gopls's call hierarchy.
//
// It copies a module twice, instruments every function body of one copy
// to record who called it (runtime.Callers, logical frames, function
// literals folded into their declaration), runs `go test` on the
// instrumented copy, and indexes the other with the built sextant binary.
// Each observed callee is then asked `get_callers` (depth 1, otherwise
// the defaults but limit 500, every page) over MCP stdio, and gopls
// `textDocument/prepareCallHierarchy` + `callHierarchy/incomingCalls`
// over LSP. It prints soundness (observed in-module callers found ÷
// observed), split by dispatch (static, interface, function value,
// embedding, recursion, initialisers), every miss of get_callers with its
// cause, and precision (callers returned per observed caller), and writes
// JSON to bench/results/DATE-soundness-MODULE-COMMIT.json.
//
// Usage:
//
//	go run ./bench/cmd/soundness [-module MODULE@VERSION | -corpus DIR] [-pkgs PATTERNS] [-sextant BIN] [-gopls BIN]
//
// See bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// options are the command-line flags: the shared ones and its own.
type options struct {
	*harness.Flags
	pkgs         string
	skipGopls    bool
	testTimeout  time.Duration
	testParallel int
	skipTests    string
	reuse        bool
	goplsSample  int
	commit       string
	calls        string
}

func main() {
	o := options{Flags: harness.NewFlags("soundness")}
	o.CorpusFlags("github.com/spf13/cobra@v1.10.2", "module to score, MODULE@VERSION, copied from the module cache", "a copy of the module to use instead of -module (left untouched: it is copied)")
	o.WorkFlags(false, "work directory (default: a temporary one, removed at the end)")
	o.OutFlag("", "JSON output (default bench/results/DATE-soundness-MODULE-COMMIT.json; - for stdout)")
	flag.StringVar(&o.calls, "calls", "", "also write the observed calls to this JSON file, for impact-bench -observed")
	flag.StringVar(&o.pkgs, "pkgs", "./...", "space-separated package patterns whose tests run")
	o.SextantFlag("sextant binary (default: built from this checkout)")
	flag.StringVar(&o.commit, "commit", "", "with -sextant: the commit the binary was built from, for the report (default: this checkout's)")
	o.GoplsFlag("gopls binary (default: on PATH or in $(go env GOPATH)/bin)")
	flag.BoolVar(&o.skipGopls, "skip-gopls", false, "leave gopls out")
	flag.DurationVar(&o.testTimeout, "test-timeout", 20*time.Minute, "go test -timeout of the instrumented run")
	flag.IntVar(&o.testParallel, "p", 2, "go test -p")
	flag.StringVar(&o.skipTests, "skip-tests", "", "go test -skip of the instrumented run: tests that cannot pass here (a permission test run as root) and would end their package's run")
	flag.BoolVar(&o.reuse, "reuse", false, "reuse the observations of an earlier run with the same -work and corpus (skip instrumenting and testing)")
	flag.IntVar(&o.goplsSample, "gopls-sample", 0, "ask gopls about every k-th observed callee only, so that it asks about this many (0: all); sextant's figures on the same sample are printed beside")
	flag.Parse()
	harness.Main("soundness", func(ctx context.Context) error {
		rep, err := run(ctx, o, os.Stdout)
		if err != nil {
			return err
		}
		root, err := harness.ModuleRoot(ctx)
		if err != nil {
			return err
		}
		out := o.Out
		if out == "" {
			// Named by the commit of the binary scored, which -commit may name.
			out = filepath.Join(root, "bench", "results", fmt.Sprintf("%s-soundness-%s-%s.json", rep.Date, rep.Name, rep.Commit))
		}
		return harness.WriteJSON(root, out, "", rep)
	})
}

// report is the JSON the benchmark writes.
type report struct {
	Date     string `json:"date"`
	Commit   string `json:"commit"` // of sextant
	Module   string `json:"module"`
	Name     string `json:"-"`
	Packages string `json:"packages"`
	// GoplsSample is how many callees gopls was asked about, when not all.
	GoplsSample int `json:"gopls_sample,omitempty"`
	// SkippedTests is the go test -skip of the run.
	SkippedTests string       `json:"skipped_tests,omitempty"`
	Tests        testRun      `json:"tests"`
	Observed     *observation `json:"observed"`
	Tools        []toolScore  `json:"tools"`

	prog *program
}

type testRun struct {
	Seconds float64 `json:"seconds"`
	Passed  bool    `json:"passed"`
	Log     string  `json:"log_tail,omitempty"`
}

// run does the whole benchmark and prints the report to w.
func run(ctx context.Context, o options, w io.Writer) (*report, error) {
	env, cleanup, err := o.Start(ctx, true)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	work, pristine, repoRoot := env.Work, env.Corpus, env.Root
	if o.Corpus != "" { // never touch the caller's directory: work on a copy
		cp := filepath.Join(work, "pristine")
		if err := copyDir(pristine, cp); err != nil {
			return nil, err
		}
		pristine = cp
	}
	module := harness.RootModule(pristine)
	rep := &report{Date: time.Now().UTC().Format("2006-01-02"), Module: o.Module, Packages: o.pkgs}
	if modPath, _, _ := strings.Cut(o.Module, "@"); o.Corpus != "" && modPath != module {
		rep.Module = module // a corpus of another module than -module names
	}
	rep.Name = strings.ReplaceAll(path.Base(strings.ReplaceAll(rep.Module, "@", "-")), "/", "-")
	rep.Commit = gitCommit(repoRoot)
	if o.commit != "" {
		rep.Commit = o.commit
	}

	// Instrument a second copy, and run its tests.
	inst := filepath.Join(work, "instrumented")
	pairsDir := filepath.Join(work, "pairs")
	prog, err := scan(pristine, module)
	if err != nil {
		return nil, err
	}
	rep.prog = prog
	if o.reuse {
		harness.Logf("reusing the observations in %s", pairsDir)
		if err := instrument(pristine, "", prog); err != nil {
			return nil, err
		}
		// What the earlier run's log says of its tests; its time is lost.
		b, _ := os.ReadFile(filepath.Join(work, "test.log"))
		rep.Tests = testRun{Passed: len(b) > 0 && !strings.Contains(string(b), "\nFAIL"),
			Log: "reused: the observations of an earlier run of the same corpus"}
	} else if err := instrumentAndTest(ctx, o, pristine, inst, pairsDir, prog, rep); err != nil {
		return nil, err
	}
	obs, err := observe(prog, pairsDir, inst)
	if err != nil {
		return nil, err
	}
	rep.Observed = obs
	if o.calls != "" {
		if err := writeCalls(o.calls, prog, obs); err != nil {
			return nil, err
		}
	}
	if obs.Pairs == 0 {
		return nil, fmt.Errorf("no call was observed (see %s)", filepath.Join(work, "test.log"))
	}
	harness.Logf("classing %d observed pairs", obs.Pairs)
	tp, err := loadTyped(pristine)
	if err != nil {
		return nil, err
	}
	tp.classify(prog, obs)
	tp = nil

	// Index the pristine copy with the binary.
	bin, err := o.SextantBinary(ctx, repoRoot, work)
	if err != nil {
		return nil, err
	}
	db := filepath.Join(work, "index.db")
	harness.Logf("indexing %s", pristine)
	ix := exec.CommandContext(ctx, bin, "index", "--db", db, pristine)
	ix.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := ix.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sextant index: %v: %s", err, tailLines(string(out), 10))
	}
	k, err := symbolKeys(ctx, db, prog)
	if err != nil {
		return nil, err
	}
	callees := calleesOf(obs)
	harness.Logf("get_callers of %d callees over MCP", len(callees))
	sx, err := sextantCallers(ctx, bin, db, pristine, prog, k, callees)
	if err != nil {
		return nil, err
	}
	tested, err := testedDirs(ctx, pristine, o.pkgs)
	if err != nil {
		return nil, err
	}
	sxScore := score("sextant get_callers", "MCP stdio, depth 1, limit 500, every page", prog, obs, sx, tested, sextantCause(ctx, prog, k))
	if err := unobservedRan(ctx, &sxScore, prog, obs, sx, k); err != nil {
		return nil, err
	}
	rep.Tools = append(rep.Tools, sxScore)
	if !o.skipGopls {
		if gbin, err := harness.FindGopls(o.Gopls); err != nil {
			harness.Logf("no gopls found: its figures are left out")
		} else {
			sample, sub := callees, obs
			if o.goplsSample > 0 && o.goplsSample < len(callees) {
				sample, sub = sampleCallees(obs, callees, o.goplsSample)
				rep.GoplsSample = len(sample)
				rep.Tools = append(rep.Tools, score("sextant (gopls sample)", "the first row on the callees gopls was asked about", prog, sub, sx, tested, sextantCause(ctx, prog, k)))
			}
			harness.Logf("gopls call hierarchy of %d callees", len(sample))
			gp, err := goplsCallers(ctx, gbin, pristine, prog, sample)
			if err != nil {
				return nil, fmt.Errorf("gopls: %w", err)
			}
			rep.Tools = append(rep.Tools, score("gopls call hierarchy", "LSP prepareCallHierarchy + incomingCalls ("+goplsVersion(gbin)+")", prog, sub, gp, tested, nil))
		}
	}
	printReport(w, rep)
	return rep, nil
}

// testedDirs returns the repo-relative directories of the packages
// whose tests ran.
func testedDirs(ctx context.Context, root, pkgs string) (map[string]bool, error) {
	out, err := harness.GoOutput(ctx, root, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, append([]string{"list", "-f", "{{.Dir}}"}, strings.Fields(pkgs)...)...)
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, d := range strings.Fields(out) {
		if rel, err := filepath.Rel(root, d); err == nil {
			dirs[filepath.ToSlash(rel)] = true
		}
	}
	return dirs, nil
}

// instrumentAndTest instruments a copy of pristine at inst and runs its
// tests, the observations going to pairsDir.
func instrumentAndTest(ctx context.Context, o options, pristine, inst, pairsDir string, prog *program, rep *report) error {
	if err := copyDir(pristine, inst); err != nil {
		return err
	}
	if err := instrument(pristine, inst, prog); err != nil {
		return fmt.Errorf("instrumenting: %w", err)
	}
	if err := os.MkdirAll(pairsDir, 0o755); err != nil {
		return err
	}
	harness.Logf("running the tests of %s (%s), instrumented: %d hooks in %d declarations", prog.Module, o.pkgs, len(prog.Hooks), len(prog.Decls))
	args := []string{"test", "-vet=off", "-count=1", fmt.Sprintf("-p=%d", o.testParallel), "-timeout=" + o.testTimeout.String()}
	if o.skipTests != "" {
		args = append(args, "-skip="+o.skipTests)
		rep.SkippedTests = o.skipTests
	}
	args = append(args, strings.Fields(o.pkgs)...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = inst
	cmd.Env = append(os.Environ(), pairsEnv+"="+pairsDir, "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	logFile := filepath.Join(filepath.Dir(inst), "test.log")
	lf, err := os.Create(logFile)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	start := time.Now()
	testErr := cmd.Run()
	lf.Close()
	rep.Tests = testRun{Seconds: time.Since(start).Seconds(), Passed: testErr == nil}
	if testErr != nil {
		b, _ := os.ReadFile(logFile)
		rep.Tests.Log = tailLines(string(b), 15)
	}
	harness.Logf("tests ran in %.0f s (passed: %v)", rep.Tests.Seconds, rep.Tests.Passed)
	return nil
}

// sampleCallees picks n callees evenly from the sorted list, and the
// observation restricted to them.
func sampleCallees(o *observation, callees []int, n int) ([]int, *observation) {
	var sample []int
	in := map[int]bool{}
	for i := 0; i < n; i++ {
		c := callees[i*len(callees)/n]
		sample = append(sample, c)
		in[c] = true
	}
	sub := &observation{ran: o.ran, Ran: o.Ran}
	seen := map[int]bool{}
	for _, pr := range o.pairs {
		if in[pr.Callee] {
			sub.pairs = append(sub.pairs, pr)
			seen[pr.Callee] = true
		}
	}
	sub.Pairs, sub.Callees = len(sub.pairs), len(seen)
	return sample, sub
}

func calleesOf(o *observation) []int {
	seen := map[int]bool{}
	var out []int
	for _, pr := range o.pairs {
		if !seen[pr.Callee] {
			seen[pr.Callee] = true
			out = append(out, pr.Callee)
		}
	}
	sort.Ints(out)
	return out
}

// printReport renders the figures, the classes, and every miss of the
// first tool.
func printReport(w io.Writer, r *report) {
	o := r.Observed
	fmt.Fprintf(w, "soundness of get_callers on %s (tests %s: %.0f s, passed %v), sextant %s\n", r.Module, r.Packages, r.Tests.Seconds, r.Tests.Passed, r.Commit)
	fmt.Fprintf(w, "observed: %d (caller, callee) pairs of in-module declarations, %d callees; left out: %d records with callers outside the module, %d literals called in their own declaration, %d callers in no declaration, %d literals of variables\n",
		o.Pairs, o.Callees, o.Outside, o.LiteralInDecl, o.Unmapped, o.VarLiteral)
	fmt.Fprintf(w, "%-22s %-20s %-20s %-20s %-20s %s\n", "tool", "soundness", "callers/observed", "in tested packages", "callers that ran", "failed callees")
	for _, t := range r.Tools {
		fmt.Fprintf(w, "%-22s %6.2f%% %-12s %5.2f× %-12s %5.2f× %-12s %5.2f× %-12s %d  (%.1f s)\n", t.Tool, 100*t.Soundness, fmt.Sprintf("%d/%d", t.Found, t.Observed),
			t.Precision, fmt.Sprintf("(%d/%d)", t.Returned, t.Observed), t.PrecisionTested, fmt.Sprintf("(%d/%d)", t.ReturnedTested, t.Observed),
			t.PrecisionRan, fmt.Sprintf("(%d/%d)", t.ReturnedRan, t.Observed), t.Failed, t.Seconds)
	}
	if len(r.Tools) > 0 && len(r.Tools[0].UnobservedRan) > 0 {
		t := r.Tools[0]
		var classes []string
		for c := range t.UnobservedRan {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		fmt.Fprintf(w, "callers %s listed that ran but were not seen calling the callee, by their best edge:", t.Tool)
		for _, c := range classes {
			fmt.Fprintf(w, " %s %d;", c, t.UnobservedRan[c])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "by dispatch:\n")
	for _, d := range dispatchOrder {
		line := fmt.Sprintf("  %-15s", d)
		any := false
		for _, t := range r.Tools {
			c := t.ByClass[d]
			if c.Observed > 0 {
				any = true
			}
			line += fmt.Sprintf("  %s %d/%d", strings.Fields(t.Tool)[0], c.Found, c.Observed)
		}
		if any {
			fmt.Fprintln(w, line)
		}
	}
	if len(r.Tools) > 0 {
		t := r.Tools[0]
		fmt.Fprintf(w, "misses of %s (%d):\n", t.Tool, len(t.Misses))
		for _, m := range t.Misses {
			fmt.Fprintf(w, "  %s ← %s [%s]: %s\n", m.Callee, m.Caller, m.Dispatch, m.Cause)
		}
	}
}

func gitCommit(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func goplsVersion(bin string) string {
	out, err := exec.Command(bin, "version", "-json").Output()
	if err != nil {
		return "gopls"
	}
	var v struct {
		Main struct{ Version string }
	}
	if json.Unmarshal(out, &v) != nil || v.Main.Version == "" {
		return "gopls"
	}
	return "gopls " + v.Main.Version
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// copyDir copies the regular files under src to dst.
func copyDir(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
