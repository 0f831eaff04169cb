// Command record-isolation measures what `sextant tests record` would
// gain and lose by running a package's tests in one process instead of
// one process per test. In one run it
//
//  1. builds the package's test binary with coverage (atomic counters)
//     over the module's packages, with one file added through an
//     -overlay: a TestMain that runs the tests one at a time in the same
//     process (testing.M.Run, once per test, -test.run set to it),
//     clearing the coverage counters before each and writing them after
//     (runtime/coverage);
//  2. times that one process over all the package's tests, and the same
//     tests each in a process of its own, as the recording runs them;
//  3. converts every test's counters of both runs to covered blocks with
//     `go tool covdata textfmt` and lists the tests whose own process
//     ran blocks the shared one did not credit them with (past the
//     blocks every process runs before its first test, and the added
//     file's).
//
// A test that loses blocks there is one get_impact would not name for a
// change of that code: what one test ran once (a sync.Once, a table
// built on first use) is not run again for the tests after it.
//
//	go run ./bench/cmd/record-isolation -module github.com/gin-gonic/gin@v1.10.0
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

type options struct {
	*harness.Flags
	pkg string
}

// result is the run's JSON.
type result struct {
	harness.Header
	Package string `json:"package"`
	Tests   int    `json:"tests"`
	// SharedSeconds is the one process running every test; OwnSeconds
	// the tests each in a process of its own, one after another.
	SharedSeconds float64 `json:"shared_process_seconds"`
	OwnSeconds    float64 `json:"own_process_seconds"`
	// SharedCompleted counts the tests the shared process finished (a
	// test that exits the process ends it early).
	SharedCompleted int `json:"shared_process_completed"`
	// Losing are the tests whose own process ran blocks the shared one
	// did not credit them with.
	Losing []losing `json:"tests_losing_blocks"`
}

type losing struct {
	Test   string   `json:"test"`
	Blocks int      `json:"blocks"`
	Some   []string `json:"some"`
}

func main() {
	o := options{Flags: harness.NewFlags("record-isolation")}
	o.CorpusFlags("github.com/gin-gonic/gin@v1.10.0", "the pinned module whose package's tests are run, MODULE@VERSION", "")
	o.WorkFlags(false, "")
	o.OutFlag("MODULE", "")
	flag.StringVar(&o.pkg, "package", ".", "the package's directory, relative to the module's")
	o.Usage("Run a package's tests in one process and each in its own, with coverage, and compare what each test is credited with.\n")
	flag.Parse()
	if flag.NArg() > 0 {
		o.Fail("")
	}
	o.Run(true, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

// sharedMain is the file the overlay adds to the package: a TestMain
// that, when SEXTANT_ISOLATION_TESTS names tests, runs each alone and
// writes its counters to SEXTANT_ISOLATION_DIR/N (the meta-data once, to
// the directory itself). The first Run, of no test, sets the runtime's
// coverage up; Run may be called again (go.dev/issue/23129).
const sharedMain = `package %s

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/coverage"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	list, dir := os.Getenv("SEXTANT_ISOLATION_TESTS"), os.Getenv("SEXTANT_ISOLATION_DIR")
	if list == "" {
		os.Exit(m.Run())
	}
	flag.Parse()
	flag.Set("test.run", "^$")
	m.Run()
	if err := coverage.WriteMetaDir(dir); err != nil {
		fmt.Fprintln(os.Stderr, "SEXTANT_ISOLATION", err)
		os.Exit(3)
	}
	for i, name := range strings.Split(list, ",") {
		flag.Set("test.run", "^"+name+"$")
		if err := coverage.ClearCounters(); err != nil {
			fmt.Fprintln(os.Stderr, "SEXTANT_ISOLATION", err)
			os.Exit(3)
		}
		m.Run()
		d := filepath.Join(dir, fmt.Sprint(i))
		err := os.MkdirAll(d, 0o755)
		if err == nil {
			err = coverage.WriteCountersDir(d)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "SEXTANT_ISOLATION", err)
			os.Exit(3)
		}
		fmt.Println("SEXTANT_ISOLATION done", i)
	}
	os.Exit(0)
}
`

// addedFile is the name of the file the overlay adds.
const addedFile = "zz_sextant_isolation_test.go"

func run(ctx context.Context, env harness.Env, o options) error {
	dir := filepath.Join(env.Corpus, o.pkg)
	if testMain, err := declaresTestMain(dir); err != nil || testMain {
		return fmt.Errorf("%s: declares TestMain, which the added file would clash with (%v)", o.pkg, err)
	}
	name, err := harness.GoOutput(ctx, dir, nil, "list", "-f", "{{.Name}}", ".")
	if err != nil {
		return err
	}
	modPath, err := harness.GoOutput(ctx, env.Corpus, nil, "list", "-m")
	if err != nil {
		return err
	}
	added := filepath.Join(env.Work, addedFile)
	if err := os.WriteFile(added, fmt.Appendf(nil, sharedMain, strings.TrimSpace(name)), 0o644); err != nil {
		return err
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(dir, addedFile): added}})
	ovFile := filepath.Join(env.Work, "overlay.json")
	if err := os.WriteFile(ovFile, overlay, 0o644); err != nil {
		return err
	}
	bin := filepath.Join(env.Work, "pkg.test")
	harness.Logf("building the test binary of %s", o.pkg)
	if _, err := harness.GoOutput(ctx, dir, nil, "test", "-c", "-cover", "-covermode=atomic",
		"-coverpkg="+strings.TrimSpace(modPath)+"/...", "-overlay", ovFile, "-o", bin, "."); err != nil {
		return err
	}
	covdata, err := harness.GoOutput(ctx, dir, nil, "tool", "-n", "covdata")
	if err != nil {
		return err
	}
	covdata = strings.TrimSpace(covdata)
	out, err := exec.CommandContext(ctx, bin, "-test.list", "^Test").Output()
	if err != nil {
		return fmt.Errorf("listing tests: %w", err)
	}
	tests := strings.Fields(string(out))
	res := result{Header: o.Header(ctx, harness.Corpus{Module: o.Module, Dir: env.Corpus}), Package: o.pkg, Tests: len(tests)}

	shared := filepath.Join(env.Work, "shared")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		return err
	}
	harness.Logf("running %d tests in one process", len(tests))
	cmd := exec.CommandContext(ctx, bin, "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SEXTANT_ISOLATION_TESTS="+strings.Join(tests, ","), "SEXTANT_ISOLATION_DIR="+shared)
	t0 := time.Now()
	stdout, _ := cmd.Output() // failing tests make it exit non-zero
	res.SharedSeconds = time.Since(t0).Seconds()
	sc := bufio.NewScanner(strings.NewReader(string(stdout)))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "SEXTANT_ISOLATION done") {
			res.SharedCompleted++
		}
	}

	harness.Logf("running them each in a process of its own")
	own := filepath.Join(env.Work, "own")
	t0 = time.Now()
	for i, t := range append(slices.Clone(tests), "") {
		d := filepath.Join(own, strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		c := exec.CommandContext(ctx, bin, "-test.run=^"+t+"$", "-test.count=1", "-test.gocoverdir="+d)
		c.Dir = dir
		_ = c.Run() // a failing test still writes its counters
		if i == len(tests)-1 {
			res.OwnSeconds = time.Since(t0).Seconds()
		}
	}
	// The last run is of no test: the blocks every process runs first.
	before, err := blocks(ctx, covdata, filepath.Join(own, strconv.Itoa(len(tests))), "")
	if err != nil {
		return err
	}
	for i, t := range tests[:res.SharedCompleted] {
		mine, err := blocks(ctx, covdata, filepath.Join(own, strconv.Itoa(i)), "")
		if err != nil {
			return err
		}
		credited, err := blocks(ctx, covdata, shared, strconv.Itoa(i))
		if err != nil {
			return err
		}
		var lost []string
		for b := range mine {
			if !credited[b] && !before[b] && !strings.Contains(b, "/"+addedFile+":") {
				lost = append(lost, b)
			}
		}
		if len(lost) > 0 {
			slices.Sort(lost)
			res.Losing = append(res.Losing, losing{Test: t, Blocks: len(lost), Some: lost[:min(3, len(lost))]})
		}
	}
	harness.Logf("%d tests: one process %.2f s, one each %.2f s (%.1fx); %d of the %d the one process finished lose blocks there",
		len(tests), res.SharedSeconds, res.OwnSeconds, res.OwnSeconds/res.SharedSeconds, len(res.Losing), res.SharedCompleted)
	return harness.WriteJSON(env.Root, o.Out, "record-isolation-"+harness.ModuleName(o.Module), res)
}

// testMainRE finds a TestMain declaration.
var testMainRE = regexp.MustCompile(`(?m)^func TestMain\(`)

// declaresTestMain says whether a test file of dir declares TestMain.
func declaresTestMain(dir string) (bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return false, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return false, err
		}
		if testMainRE.Match(b) {
			return true, nil
		}
	}
	return false, nil
}

// blocks returns the blocks of a coverage directory, or of the counters
// in its subdirectory sub with its meta-data, that ran, each as the text
// profile names it ("file:l1.c1,l2.c2").
func blocks(ctx context.Context, covdata, dir, sub string) (map[string]bool, error) {
	in := dir
	if sub != "" {
		in = dir + "-" + sub
		if err := os.MkdirAll(in, 0o755); err != nil {
			return nil, err
		}
		for _, pattern := range []string{filepath.Join(dir, "covmeta.*"), filepath.Join(dir, sub, "covcounters.*")} {
			files, _ := filepath.Glob(pattern)
			for _, f := range files {
				if err := os.Link(f, filepath.Join(in, filepath.Base(f))); err != nil && !os.IsExist(err) {
					return nil, err
				}
			}
		}
	}
	profile := in + ".txt"
	if out, err := exec.CommandContext(ctx, covdata, "textfmt", "-i="+in, "-o="+profile).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("covdata textfmt %s: %v: %s", in, err, out)
	}
	f, err := os.Open(profile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ran := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[2] != "0" {
			ran[fields[0]] = true
		}
	}
	return ran, sc.Err()
}
