package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
)

// latencies are the p50s of the query sets over MCP on one index.
type latencies struct {
	Calls          int             `json:"calls"`
	FindSymbol     harness.Latency `json:"find_symbol"`
	FindReferences harness.Latency `json:"find_references"`
}

// latency times o.calls find_symbol calls (harness.FindSymbolCalls) and
// o.calls find_references calls by stable key (harness.KeyCalls), the
// same query sets the Go benchmarks draw, after a few untimed ones.
func latency(ctx context.Context, o options, s *server, syms []graph.Symbol) (*latencies, error) {
	rng := rand.New(rand.NewPCG(o.Seed, 0))
	sets := map[string][]harness.Call{
		"find_symbol":     harness.FindSymbolCalls(syms, o.calls, rng),
		"find_references": harness.KeyCalls("find_references", syms, o.calls, rng),
	}
	out := &latencies{Calls: o.calls}
	for _, tool := range []string{"find_symbol", "find_references"} {
		calls := sets[tool]
		if len(calls) == 0 {
			return nil, fmt.Errorf("no %s queries", tool)
		}
		for _, c := range calls[:min(10, len(calls))] {
			s.call(ctx, c.Tool, c.Args, nil) // untimed
		}
		var ds []time.Duration
		for _, c := range calls {
			d, err := s.call(ctx, c.Tool, c.Args, nil)
			var te *toolError
			if err != nil && !asToolError(err, &te) {
				return nil, err
			}
			ds = append(ds, d)
		}
		if tool == "find_symbol" {
			out.FindSymbol = harness.Summarize(ds)
		} else {
			out.FindReferences = harness.Summarize(ds)
		}
	}
	return out, nil
}

func asToolError(err error, te **toolError) bool {
	t, ok := err.(*toolError)
	*te = t
	return ok
}

// goResult is the Go side of the latency comparison.
type goResult struct {
	Repo    string               `json:"repo"`
	Commit  string               `json:"commit"`
	Files   int                  `json:"go_files"`
	Summary harness.IndexSummary `json:"summary"`
	Latency *latencies           `json:"latency"`
}

// goLatency indexes a Go repository of size like the TypeScript corpus's
// (-go, or this module's tree at HEAD from git archive), Go alone, and
// times the same query sets on it.
func goLatency(ctx context.Context, o options, sextant, root, work string) (*goResult, error) {
	g := &goResult{Repo: "github.com/sextant-dev/sextant"}
	dir := o.goDir
	if dir == "" {
		head, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output()
		if err != nil {
			return nil, err
		}
		g.Commit = strings.TrimSpace(string(head))
		dir = filepath.Join(work, "go-corpus")
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		// git archive: the tree of the commit, nothing untracked.
		cmd := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, g.Commit, dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git archive: %v: %s", err, out)
		}
	} else {
		g.Repo = dir
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			g.Files++
		}
		return nil
	})
	db := filepath.Join(work, "db", "go.db")
	harness.RemoveDB(db)
	logf("go: indexing %s (%d .go files), Go alone", dir, g.Files)
	c := harness.Contenders{Sextant: sextant, Corpus: dir, DBDir: filepath.Dir(db), Sample: o.Sample}
	run, err := c.Index(ctx, "go", nil, "SEXTANT_SCIP=off")
	if err != nil {
		return nil, err
	}
	g.Summary = run.Summary
	all, err := harness.AllSymbols(ctx, db)
	if err != nil {
		return nil, err
	}
	s, err := serve(ctx, sextant, dir, db, "SEXTANT_SCIP=off")
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if g.Latency, err = latency(ctx, o, s, all); err != nil {
		return nil, err
	}
	return g, nil
}
