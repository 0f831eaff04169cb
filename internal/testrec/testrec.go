// Package testrec records, for each top-level test of a Go module, the
// declarations it executed: each package's test binary is built once
// with coverage over the module's packages, and run once per test (the
// tests of a package at once, up to the processors), each run in a
// process tree ended at its deadline, writing its own coverage profile.
// Covered blocks are mapped to declarations by file and line, each keyed
// by the index's stable key and the hash get_impact compares
// (impact.DeclHashes). Unlike everything else in Sextant, this runs the
// repository's code: only `sextant tests record` calls it.
package testrec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/proctree"
)

// Options says what to record and within which bounds.
type Options struct {
	Dir        string   // the module's directory, absolute
	RepoRoot   string   // the repository's root, for repo-relative paths
	Repository string   // the repository's name in the store, for stable keys
	Packages   []string // package patterns relative to Dir (default ./...)
	Benchmarks bool     // run each benchmark once too (-test.benchtime=1x)
	// TestTimeout bounds one test's run, Timeout the whole recording
	// (0: none); a test still running at either is killed with every
	// process it started.
	TestTimeout, Timeout time.Duration
	Parallel             int // tests run at once (0: GOMAXPROCS)
	// Recorded says whether a test of a package was recorded already from
	// a test binary of this hash: it is not run again.
	Recorded func(pkg, name, binary string) bool
	// Write is called with each package's runs as the package is done,
	// so that an interrupted recording keeps what it did, and with the
	// declarations its test binary was instrumented for (see
	// graph.TestRecording.Known).
	Write func(runs []graph.TestRun, known []graph.Covered) error
	// Progress is called as tests finish (nil: not reported).
	Progress func(Progress)
}

// Progress is how far a recording is.
type Progress struct {
	Package   string
	Done      int           // tests run or skipped as recorded so far
	Total     int           // tests found so far (packages built so far)
	Packages  int           // packages done
	PkgsTotal int           // packages with tests
	Elapsed   time.Duration // since the recording started
}

// Summary is what a recording did.
type Summary struct {
	Packages    int            `json:"packages"`
	Tests       int            `json:"tests"`
	Skipped     int            `json:"already_recorded"`
	ByStatus    map[string]int `json:"by_status"`
	Diagnostics []string       `json:"diagnostics,omitempty"`
	Stopped     string         `json:"stopped,omitempty"` // why the recording ended before every test ran
	Duration    time.Duration  `json:"-"`
	DurationMS  int64          `json:"duration_ms"`
}

// listed is one package as go list prints it.
type listed struct {
	ImportPath   string
	Dir          string
	Name         string
	TestGoFiles  []string
	XTestGoFiles []string
	Error        *struct{ Err string }
}

// tailBytes bounds the output kept of a test run or a build.
const tailBytes = 8 << 10

// Record runs the tests of the module at opts.Dir and hands each
// package's runs to opts.Write.
func Record(ctx context.Context, opts Options) (Summary, error) {
	start := time.Now()
	sum := Summary{ByStatus: map[string]int{}}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	if len(opts.Packages) == 0 {
		opts.Packages = []string{"./..."}
	}
	env := goEnv(opts.Dir)
	all, err := goList(ctx, opts.Dir, env, []string{"./..."})
	if err != nil {
		return sum, err
	}
	chosen, err := goList(ctx, opts.Dir, env, opts.Packages)
	if err != nil {
		return sum, err
	}
	work, err := os.MkdirTemp("", "sextant-testrec-")
	if err != nil {
		return sum, fmt.Errorf("making a work directory: %w", err)
	}
	defer os.RemoveAll(work)
	r := &recorder{opts: opts, env: env, work: work, files: map[string]*fileDecls{}, dirs: map[string]string{}, start: start}
	var coverPkgs []string
	for _, p := range all {
		r.dirs[p.ImportPath] = p.Dir
		if p.Error == nil {
			coverPkgs = append(coverPkgs, p.ImportPath)
		}
	}
	r.coverPkgs = strings.Join(coverPkgs, ",")
	var withTests []listed
	for _, p := range chosen {
		if len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 {
			withTests = append(withTests, p)
		}
	}
	r.pkgsTotal = len(withTests)
	// Two packages at a time, so that the next package's test binary
	// builds while the tests of one run; the tests of all of them share
	// the processors (r.sem).
	r.sem = make(chan struct{}, opts.Parallel)
	pkgSem := make(chan struct{}, 2)
	var (
		mu       sync.Mutex
		writeErr error
		wg       sync.WaitGroup
	)
	for i, p := range withTests {
		if ctx.Err() != nil {
			break
		}
		pkgSem <- struct{}{}
		mu.Lock()
		failed := writeErr != nil
		mu.Unlock()
		if failed {
			<-pkgSem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-pkgSem; wg.Done() }()
			runs, known, diags, skipped := r.pkg(ctx, i, p)
			r.pkgsDone.Add(1)
			r.progress(p.ImportPath)
			mu.Lock()
			defer mu.Unlock()
			sum.Diagnostics = append(sum.Diagnostics, diags...)
			sum.Skipped += skipped
			if len(runs) > 0 && opts.Write != nil && writeErr == nil {
				if err := opts.Write(runs, known); err != nil {
					writeErr = fmt.Errorf("writing the runs of %s: %w", p.ImportPath, err)
					return
				}
			}
			for _, run := range runs {
				sum.ByStatus[run.Status]++
				if run.Name != "" {
					sum.Tests++
				}
			}
			sum.Packages++
		}()
	}
	wg.Wait()
	if writeErr != nil {
		return sum, writeErr
	}
	sort.Strings(sum.Diagnostics)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		sum.Stopped = fmt.Sprintf("the recording's deadline of %s passed; run it again to go on where it stopped", opts.Timeout)
	case ctx.Err() != nil:
		sum.Stopped = "interrupted; run it again to go on where it stopped"
	}
	sum.Duration = time.Since(start)
	sum.DurationMS = sum.Duration.Milliseconds()
	return sum, nil
}

// goEnv is the environment of the go command building the test
// binaries: that of loading (GOTOOLCHAIN=local, -mod=readonly, no
// network unless allowed), so the build downloads and switches nothing.
func goEnv(dir string) []string {
	_, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt"))
	return load.Env(withoutCoverDir(os.Environ()), load.Unit{Dir: dir, Vendor: err == nil})
}

// withoutCoverDir drops GOCOVERDIR, which would make every run write its
// counters there too.
func withoutCoverDir(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOCOVERDIR=") {
			out = append(out, kv)
		}
	}
	return out
}

// goList lists the packages of patterns in dir.
func goList(ctx context.Context, dir string, env, patterns []string) ([]listed, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,Name,TestGoFiles,XTestGoFiles,Error", "--"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, env
	tail := proctree.NewTail(tailBytes)
	cmd.Stderr = tail
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the packages: %v: %s", err, tail.String(tailBytes))
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// recorder is one recording under way.
type recorder struct {
	opts      Options
	env       []string
	work      string
	coverPkgs string
	start     time.Time
	pkgsTotal int
	done      atomic.Int64
	total     atomic.Int64
	pkgsDone  atomic.Int64
	sem       chan struct{} // one slot per test run at once

	dirs map[string]string // import path to directory, of the module's packages

	mu    sync.Mutex
	files map[string]*fileDecls // by import path/file name, as a profile names it
}

// pkg builds one package's test binary and runs its tests.
func (r *recorder) pkg(ctx context.Context, i int, p listed) (runs []graph.TestRun, known []graph.Covered, diags []string, skipped int) {
	dir := r.rel(p.Dir)
	// Named as go test names it: a test may look at its own name (cobra's
	// commands read os.Args unless it is cobra.test).
	binDir := filepath.Join(r.work, fmt.Sprintf("p%d", i))
	if err := os.MkdirAll(binDir, 0o700); err != nil {
		return nil, nil, []string{fmt.Sprintf("%s: %v", p.ImportPath, err)}, 0
	}
	bin := filepath.Join(binDir, BinaryName(p.ImportPath))
	build := exec.CommandContext(ctx, "go", "test", "-c", "-cover", "-covermode=set", "-coverpkg="+r.coverPkgs, "-o", bin, p.ImportPath)
	build.Dir, build.Env = r.opts.Dir, r.env
	out := proctree.NewTail(tailBytes)
	build.Stdout, build.Stderr = out, out
	if err := build.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil, 0
		}
		msg := buildMessage(out.String(tailBytes))
		if msg == "" {
			msg = err.Error()
		}
		diags = append(diags, fmt.Sprintf("%s: not built: %s", p.ImportPath, firstLine(msg)))
		return []graph.TestRun{{Package: p.ImportPath, Dir: dir, Status: graph.TestNotBuilt, Message: msg}}, nil, diags, 0
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, nil, nil, 0 // no test functions: go test -c writes nothing
	}
	binHash, err := fileHash(bin)
	if err != nil {
		return nil, nil, []string{fmt.Sprintf("%s: reading the test binary: %v", p.ImportPath, err)}, 0
	}
	names, err := r.list(ctx, bin, p.Dir)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil, 0
		}
		msg := err.Error()
		diags = append(diags, fmt.Sprintf("%s: listing its tests: %s", p.ImportPath, firstLine(msg)))
		return []graph.TestRun{{Package: p.ImportPath, Dir: dir, Status: graph.TestFailed, Binary: binHash, Message: msg}}, nil, diags, 0
	}
	var todo []string
	for _, n := range names {
		if r.opts.Recorded != nil && r.opts.Recorded(testPackage(p, n), n, binHash) {
			skipped++
			continue
		}
		todo = append(todo, n)
	}
	r.total.Add(int64(len(names)))
	r.done.Add(int64(skipped))
	results := make([]*graph.TestRun, len(todo))
	knownOf := make([][]graph.Covered, len(todo))
	diagOf := make([]string, len(todo))
	var wg sync.WaitGroup
	for k, name := range todo {
		if ctx.Err() != nil {
			break
		}
		r.sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-r.sem; wg.Done() }()
			run, kn, diag := r.run(ctx, bin, p, name, k)
			if run != nil {
				run.Binary = binHash
			}
			results[k], knownOf[k], diagOf[k] = run, kn, diag
			r.done.Add(1)
			r.progress(p.ImportPath)
		}()
	}
	wg.Wait()
	for k := range todo {
		if results[k] != nil {
			runs = append(runs, *results[k])
		}
		if known == nil {
			known = knownOf[k] // every run of one binary has the same blocks
		}
		if diagOf[k] != "" {
			diags = append(diags, diagOf[k])
		}
	}
	return runs, known, diags, skipped
}

func (r *recorder) progress(pkg string) {
	if r.opts.Progress == nil {
		return
	}
	r.opts.Progress(Progress{Package: pkg, Done: int(r.done.Load()), Total: int(r.total.Load()), Packages: int(r.pkgsDone.Load()),
		PkgsTotal: r.pkgsTotal, Elapsed: time.Since(r.start)})
}

// rel is dir relative to the repository's root, with forward slashes.
func (r *recorder) rel(dir string) string {
	rel, err := filepath.Rel(r.opts.RepoRoot, dir)
	if err != nil {
		return filepath.ToSlash(dir)
	}
	return filepath.ToSlash(rel)
}

// list asks the test binary for its tests, examples with output,
// fuzz targets and (when asked) benchmarks.
func (r *recorder) list(ctx context.Context, bin, dir string) ([]string, error) {
	tail := proctree.NewTail(1 << 20)
	res := runTree(ctx, bin, []string{"-test.list", "."}, dir, tail, r.testTimeout())
	if res.err != nil {
		return nil, fmt.Errorf("%v: %s", res.err, tail.String(tailBytes))
	}
	var out []string
	for _, line := range strings.Split(tail.String(1<<20), "\n") {
		n := strings.TrimSpace(line)
		switch kindOf(n) {
		case "":
		case "benchmark":
			if r.opts.Benchmarks {
				out = append(out, n)
			}
		default:
			out = append(out, n)
		}
	}
	return out, nil
}

// kindOf is the kind of test function a name go test lists is.
func kindOf(name string) string {
	for _, k := range []struct{ prefix, kind string }{{"Test", "test"}, {"Example", "example"}, {"Benchmark", "benchmark"}, {"Fuzz", "fuzz"}} {
		if strings.HasPrefix(name, k.prefix) && !strings.ContainsAny(name, " \t:") {
			return k.kind
		}
	}
	return ""
}

func (r *recorder) testTimeout() time.Duration {
	if r.opts.TestTimeout > 0 {
		return r.opts.TestTimeout
	}
	return 10 * time.Minute
}

// BinaryName is the file name go test gives the test binary of the
// package at importPath: its last element, or the one before a major
// version suffix (v2, v10), then ".test".
func BinaryName(importPath string) string {
	elem := path.Base(importPath)
	if elem != importPath && majorVersion(elem) {
		elem = path.Base(path.Dir(importPath))
	}
	return elem + ".test"
}

// majorVersion reports whether elem is a major version suffix of a module
// path: v2 and up.
func majorVersion(elem string) bool {
	if len(elem) < 2 || elem[0] != 'v' || elem[1] < '1' || elem[1] > '9' || elem == "v1" {
		return false
	}
	for _, c := range elem[2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// run runs one test of the binary, and reads what it covered. A run
// whose coverage cannot be read is recorded without any, with a
// diagnostic: never a guess.
func (r *recorder) run(ctx context.Context, bin string, p listed, name string, k int) (*graph.TestRun, []graph.Covered, string) {
	profile := filepath.Join(filepath.Dir(bin), fmt.Sprintf("%d.cov", k))
	kind := kindOf(name)
	args := []string{"-test.v", "-test.count=1", "-test.coverprofile=" + profile, "-test.timeout=" + (r.testTimeout() + time.Minute).String()}
	if kind == "benchmark" {
		args = append(args, "-test.run=^$", "-test.bench=^"+name+"$", "-test.benchtime=1x")
	} else {
		args = append(args, "-test.run=^"+name+"$")
	}
	tail := proctree.NewTail(tailBytes)
	res := runTree(ctx, bin, args, p.Dir, tail, r.testTimeout())
	run := &graph.TestRun{Package: testPackage(p, name), Dir: r.rel(p.Dir), Name: name, Kind: kind, Duration: res.elapsed}
	switch {
	case ctx.Err() != nil:
		return nil, nil, "" // interrupted, or the recording's deadline: not recorded, run again next time
	case res.timedOut:
		run.Status = graph.TestTimedOut
		run.Message = fmt.Sprintf("did not finish within %s and was stopped with every process it started", r.testTimeout())
		return run, nil, fmt.Sprintf("%s %s: timed out after %s", p.ImportPath, name, r.testTimeout())
	case res.err != nil:
		run.Status = graph.TestFailed
		run.Message = tail.String(2 << 10)
	case strings.Contains(tail.String(tailBytes), "--- SKIP: "+name+" "):
		run.Status = graph.TestSkipped
	default:
		run.Status = graph.TestPassed
	}
	covered, known, err := r.covered(profile)
	if err != nil {
		run.Message = strings.TrimSpace(run.Message + "\ncoverage not recorded: " + err.Error())
		run.Status = graph.TestNoCover
		return run, nil, fmt.Sprintf("%s %s: coverage not recorded: %v", p.ImportPath, name, err)
	}
	run.Covered = covered
	return run, known, ""
}

// testPackage is the import path of the package of p's tests declaring
// name: p's, or its external test package's (p_test).
func testPackage(p listed, name string) string {
	if len(p.XTestGoFiles) > 0 && !declaresIn(p.Dir, p.TestGoFiles, name) && declaresIn(p.Dir, p.XTestGoFiles, name) {
		return p.ImportPath + "_test"
	}
	return p.ImportPath
}

// declaresIn reports whether one of the files in dir declares a function
// called name, read by its text: which of a package's test packages a
// test belongs to.
func declaresIn(dir string, files []string, name string) bool {
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err == nil && strings.Contains(string(b), "func "+name+"(") {
			return true
		}
	}
	return false
}

// result is how a program run in a tree ended.
type result struct {
	err      error
	timedOut bool
	elapsed  time.Duration
}

// runTree runs bin with args in dir inside a process tree, its output
// drained into out, killed with every process it started at the
// timeout or when ctx ends.
func runTree(ctx context.Context, bin string, args []string, dir string, out io.Writer, timeout time.Duration) result {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = withoutCoverDir(os.Environ())
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second // grandchildren holding the pipes must not stall the reaping
	tree := proctree.New()
	start := time.Now()
	if err := tree.Start(cmd, 0); err != nil {
		return result{err: err}
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		tree.Release() // ends what the test left running
		exited <- err
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-exited:
		return result{err: err, elapsed: time.Since(start)}
	case <-timer.C:
		tree.Kill()
		<-exited
		return result{err: errors.New("timed out"), timedOut: true, elapsed: time.Since(start)}
	case <-ctx.Done():
		tree.Kill()
		<-exited
		return result{err: ctx.Err(), elapsed: time.Since(start)}
	}
}

func fileHash(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// buildMessage is the go command's output of a failed build without
// the warnings -coverpkg makes it print for every package no test
// imports, so that the compiler's message comes first.
func buildMessage(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "warning: no packages being tested depend on matches for pattern ") {
			keep = append(keep, l)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// sortCovered orders covered declarations by key, without duplicates.
func sortCovered(cs []graph.Covered) []graph.Covered {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Key < cs[j].Key })
	out := cs[:0]
	for i, c := range cs {
		if i == 0 || c.Key != cs[i-1].Key {
			out = append(out, c)
		}
	}
	return out
}

// pkgOfFile is the import path of a file a profile names.
func pkgOfFile(name string) string { return path.Dir(name) }
