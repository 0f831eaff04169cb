//go:build linux

package callgraph

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/load"
)

// TestCorpus runs Build on a real module and reports what it costs next
// to the load it follows. It is opt-in:
//
//	SEXTANT_CALLGRAPH_CORPUS=/tmp/xtools go test ./internal/index/callgraph -run Corpus -v
//
// SEXTANT_CALLGRAPH_MAXVTA sets Options.MaxVTACalls (-1: CHA).
// The figures are reported, never asserted.
func TestCorpus(t *testing.T) {
	dir, maxVTA := corpusEnv(t)
	opts := Options{InRepo: under(dir), MaxVTACalls: maxVTA}

	plan, err := load.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range plan.Units {
		wall, cpu := time.Now(), cpuTime()
		pkgs, err := load.Load(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		loadWall, loadCPU := time.Since(wall), cpuTime()-cpu
		heapLoaded := liveHeap()
		rssLoaded := peakRSS()

		stopSampling := sampleHeap()
		if prof := os.Getenv("SEXTANT_CALLGRAPH_CPUPROFILE"); prof != "" {
			f, err := os.Create(prof)
			if err != nil {
				t.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				t.Fatal(err)
			}
			defer f.Close()
		}
		wall, cpu = time.Now(), cpuTime()
		res, err := Build(context.Background(), pkgs, opts)
		if err != nil {
			t.Fatal(err)
		}
		buildWall, buildCPU := time.Since(wall), cpuTime()-cpu
		pprof.StopCPUProfile()
		heapPeak := stopSampling()
		heapBuilt := liveHeap() // the Result only: the program is garbage
		runtime.KeepAlive(pkgs)

		t.Logf("unit %s: %d packages loaded", u.Dir, len(pkgs))
		t.Logf("load:  wall %v, cpu %v (this process, go list excluded), live heap after %d MiB",
			loadWall.Round(time.Millisecond), loadCPU.Round(time.Millisecond), heapLoaded>>20)
		t.Logf("build: wall %v (%.2f× load), cpu %v; create %v, ssa %v, resolve (%s) %v, edges %v; live heap after %d MiB (+%d MiB), sampled peak %d MiB; peak RSS %d MiB after the load, %d MiB after Build",
			buildWall.Round(time.Millisecond), float64(buildWall)/float64(loadWall), buildCPU.Round(time.Millisecond),
			res.Stats.Create.Round(time.Millisecond), res.Stats.SSA.Round(time.Millisecond), res.Algorithm,
			res.Stats.Resolve.Round(time.Millisecond), res.Stats.Edges.Round(time.Millisecond),
			heapBuilt>>20, (int64(heapBuilt)-int64(heapLoaded))>>20, heapPeak>>20, rssLoaded>>20, peakRSS()>>20)
		t.Logf("program: %d call expressions, %d variants built, %d functions, %d instructions, %d static and %d dynamic call instructions",
			res.Stats.Calls, res.Stats.Packages, res.Stats.Functions, res.Stats.Instructions, res.Stats.StaticSites, res.Stats.DynamicSites)
		byClass := map[string]int{}
		for _, e := range res.Edges {
			byClass[string(e.Coverage)+" "+string(e.Via)]++
			if e.Go {
				byClass["(go)"]++
			}
			if e.Defer {
				byClass["(defer)"]++
			}
			if e.Callee.Name != "" && !e.Callee.Pos.IsValid() {
				byClass["(callee outside)"]++
			}
			if e.Elided > 0 {
				byClass["(elided outside candidates)"] += e.Elided
				byClass["(edges standing for them)"]++
			}
			if e.By == CHA && res.Algorithm == VTA {
				byClass["(vta fell back to cha)"]++
			}
		}
		classes := make([]string, 0, len(byClass))
		for c := range byClass {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		t.Logf("edges: %d", len(res.Edges))
		for _, c := range classes {
			t.Logf("  %-28s %d", c, byClass[c])
		}
		var dyn, unres, refl, broken int
		for _, f := range res.Packages {
			dyn += f.DynamicCalls
			unres += f.UnresolvedCalls
			if f.Reflection {
				refl++
			}
			if f.TypeErrors {
				broken++
			}
		}
		t.Logf("packages: %d; dynamic call sites %d, unresolved %d; %d use reflection, %d with type errors",
			len(res.Packages), dyn, unres, refl, broken)
	}
}

// TestCorpusDeterministic builds each unit of a real module three times,
// the way the indexer does and not (Options.Emit too), and requires the same edges: an index
// is a function of the code. It is opt-in like TestCorpus (about 15 s on
// prometheus):
//
//	SEXTANT_CALLGRAPH_CORPUS=/tmp/prometheus go test ./internal/index/callgraph -run CorpusDeterministic -v
func TestCorpusDeterministic(t *testing.T) {
	dir, maxVTA := corpusEnv(t)
	for _, pkgs := range loadUnits(t, dir) {
		var first *Result
		for i, mode := range []struct {
			procs int
			paced bool
		}{{2, false}, {1, false}, {2, true}} {
			prev := runtime.GOMAXPROCS(mode.procs)
			res, err := buildLike(pkgs, Options{InRepo: under(dir), MaxVTACalls: maxVTA, Paced: mode.paced})
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("build %d (GOMAXPROCS %d, paced %v): %d edges by %s", i, mode.procs, mode.paced, len(res.Edges), res.Algorithm)
			if first == nil {
				first = res
				continue
			}
			if d := edgeDiff(first.Edges, res.Edges); d != "" {
				if len(d) > 4000 {
					d = d[:4000] + "..."
				}
				t.Fatalf("build %d differs from build 0:\n%s", i, d)
			}
		}
		// As the indexer runs it: paced, the edges emitted in batches.
		batches, _ := emitted(t, pkgs, Options{InRepo: under(dir), MaxVTACalls: maxVTA, Paced: true})
		t.Logf("emitted build: %d batches", len(batches))
		checkBatches(t, "emitted build", first.Edges, batches)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// sampleHeap samples the heap's live and unswept objects every 10 ms
// until the returned function is called, which returns the largest.
func sampleHeap() func() uint64 {
	done := make(chan struct{})
	result := make(chan uint64)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-result
	}
}

// peakRSS is the process's peak resident set size (VmHWM).
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkBuild times Build alone on the module named by
// SEXTANT_CALLGRAPH_CORPUS, loaded once.
func BenchmarkBuild(b *testing.B) {
	dir := os.Getenv("SEXTANT_CALLGRAPH_CORPUS")
	if dir == "" {
		b.Skip("set SEXTANT_CALLGRAPH_CORPUS to a module directory to run")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		b.Fatal(err)
	}
	var opts Options
	if s := os.Getenv("SEXTANT_CALLGRAPH_MAXVTA"); s != "" {
		if opts.MaxVTACalls, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	opts.InRepo = under(dir)
	units := loadUnits(b, dir)
	b.ResetTimer()
	for b.Loop() {
		for _, pkgs := range units {
			if _, err := Build(context.Background(), pkgs, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// corpusEnv returns the module directory of SEXTANT_CALLGRAPH_CORPUS
// (skipping the test without one) and SEXTANT_CALLGRAPH_MAXVTA as
// Options.MaxVTACalls (-1: CHA; 0 when unset).
func corpusEnv(t *testing.T) (dir string, maxVTA int) {
	t.Helper()
	dir = os.Getenv("SEXTANT_CALLGRAPH_CORPUS")
	if dir == "" {
		t.Skip("set SEXTANT_CALLGRAPH_CORPUS to a module directory to run")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := os.Getenv("SEXTANT_CALLGRAPH_MAXVTA"); s != "" {
		if maxVTA, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	return dir, maxVTA
}
