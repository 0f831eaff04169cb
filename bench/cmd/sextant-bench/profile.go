package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// profileIndex indexes corpus in this process, as `sextant index` does,
// with a CPU profile of the whole run and heap profiles at the two moments
// memory peaks: when loading has finished (every package's syntax and
// types are held) and when the snapshot is about to be published. It
// prints the duration of each phase and the Go heap at those moments.
func profileIndex(ctx context.Context, corpus, dir, work string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Warm the build cache first, so the profile shows Sextant and not the
	// compiler building export data.
	logf("warm-up (unprofiled): bare load")
	plan, err := load.Discover(corpus)
	if err != nil {
		return err
	}
	for _, u := range plan.Units {
		if _, err := load.Load(ctx, u); err != nil {
			return err
		}
	}
	plan = load.Plan{}
	runtime.GC()

	db := filepath.Join(work, "profile.db")
	harness.RemoveDB(db)
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()

	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		return err
	}
	defer cpu.Close()
	var (
		start    = time.Now()
		phase    string
		phaseAt  = start
		heapErrs []error
	)
	heap := func(name string) {
		// A GC first, so the profile and figures are the live heap.
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		st, _ := harness.ProcStatus(os.Getpid())
		logf("  heap at %s: live %s, heap in use %s, from the OS %s; VmRSS %s, VmHWM %s", name,
			mibBytes(int64(ms.HeapAlloc)), mibBytes(int64(ms.HeapInuse)), mibBytes(int64(ms.Sys)), mib(st.RSSKiB), mib(st.HWMKiB))
		f, err := os.Create(filepath.Join(dir, "heap-"+name+".pprof"))
		if err != nil {
			heapErrs = append(heapErrs, err)
			return
		}
		defer f.Close()
		heapErrs = append(heapErrs, pprof.Lookup("heap").WriteTo(f, 0))
	}
	progress := func(p index.Progress) {
		if p.Phase == phase {
			return
		}
		now := time.Now()
		if phase != "" {
			logf("  %-8s %s", phase, secs(now.Sub(phaseAt)))
		}
		switch p.Phase {
		case index.PhaseExtract:
			heap("after-load")
		case index.PhasePublish:
			heap("before-publish")
		}
		phase, phaseAt = p.Phase, time.Now() // the heap profile's time is left out
	}
	logf("indexing %s in-process with profiling", corpus)
	if err := pprof.StartCPUProfile(cpu); err != nil {
		return err
	}
	res, err := index.Index(ctx, st, corpus, index.Options{Progress: progress})
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	logf("  %-8s %s", phase, secs(time.Since(phaseAt)))
	final, _ := harness.ProcStatus(os.Getpid())
	logf("indexed %d packages, %d files, %d symbols in %s (including two forced GCs); VmHWM %s",
		res.Packages, res.Files, res.Symbols, secs(time.Since(start)), mib(final.HWMKiB))
	fmt.Printf("profiles in %s: go tool pprof -top %s\n", dir, filepath.Join(dir, "cpu.pprof"))
	return errors.Join(heapErrs...)
}

// startCPUProfile starts a CPU profile written to path ("" does nothing)
// and returns the function that stops it.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
