// Command bareload is the floor of the index benchmark: it loads the Go
// packages under a directory with go/packages exactly as Sextant's indexer
// does (the same units from load.Discover, the same load.Config: mode,
// tests, environment) and does nothing else with them.
//
// It prints one JSON object on stdout: how many packages it loaded, how
// long the loads took in-process, and the process's own and its children's
// peak RSS as getrusage reports them, so the harness can tell the Go
// process apart from the go list processes it spawns.
//
//	bareload DIR
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/load"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: bareload DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "bareload:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	start := time.Now()
	plan, err := load.Discover(dir)
	if err != nil {
		return err
	}
	rep := harness.BareReport{Units: len(plan.Units)}
	// Keep every unit's packages reachable until the end, as the indexer
	// holds them all before it extracts.
	var loaded [][]*packages.Package
	for _, u := range plan.Units {
		pkgs, err := load.Packages(load.Config(u), u.Patterns...)
		if err != nil {
			return fmt.Errorf("loading %s: %w", u.Dir, err)
		}
		loaded = append(loaded, pkgs)
		rep.Packages += len(pkgs)
		for _, p := range pkgs {
			rep.PackageErrors += len(p.Errors)
		}
	}
	rep.LoadMS = time.Since(start).Milliseconds()
	rep.MaxRSSSelfKiB = harness.MaxRSS(false)
	rep.MaxRSSChildKiB = harness.MaxRSS(true)
	runtime.KeepAlive(loaded)
	return json.NewEncoder(os.Stdout).Encode(rep)
}
