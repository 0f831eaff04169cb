// Command context-bench measures the context tools on pinned corpora, in
// one run: how well search_code ranks the answers of a set of questions
// with known answers (cobra and x/tools), how many tokens an agent spends
// on navigation tasks with Sextant's tools against gopls mcp's tools and
// against grep plus whole files, and how fast read_source and
// get_context_for_symbol answer on the x/tools index.
//
//	go run ./bench/cmd/context-bench [-work DIR -keep] [-parts search,tokens,latency]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// options are the command-line flags: the shared ones and its own.
type options struct {
	*harness.Flags
	parts        string
	calls        int
	cobra, tools string
}

func main() {
	o := options{Flags: harness.NewFlags("context-bench")}
	o.WorkFlags(false, "work directory (default: a temporary one)")
	flag.BoolVar(&o.Keep, "keep", false, "keep the work directory (and reuse its indexes next time)")
	o.GoplsFlag("gopls binary (default: gopls on PATH or in GOPATH/bin)")
	o.OutFlag("", "JSON results file (default bench/results/DATE-context-COMMIT.json; - for stdout)")
	flag.StringVar(&o.parts, "parts", "search,tokens,latency", "comma-separated parts to run")
	flag.IntVar(&o.calls, "calls", 1000, "calls per tool in the latency part")
	flag.StringVar(&o.cobra, "cobra", "github.com/spf13/cobra@v1.10.2", "small corpus")
	flag.StringVar(&o.tools, "tools", "golang.org/x/tools@v0.52.0", "large corpus")
	flag.Parse()
	o.Run(false, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

// corpus is one indexed module with a Service over it.
type corpus struct {
	module string
	dir    string
	svc    *query.Service
	store  *sqlite.Store
}

// call runs a tool in-process, as the MCP server does, and returns its
// answer (whose Text is what an agent reads).
func (c *corpus) call(ctx context.Context, tool string, args any) (query.Answer, error) {
	t, ok := query.LookupTool(tool)
	if !ok {
		return nil, fmt.Errorf("no tool %s", tool)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return t.Call(ctx, c.svc, raw, nil)
}

// prepare fetches module into work and indexes it into work/NAME.db,
// unless a kept database from an earlier run is there.
func prepare(ctx context.Context, module, work string) (*corpus, error) {
	name := filepath.Base(strings.SplitN(module, "@", 2)[0])
	dir := filepath.Join(work, "corpus", name)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		if dir, err = harness.FetchModule(ctx, module, work); err != nil {
			return nil, err
		}
	}
	db := filepath.Join(work, name+".db")
	fresh := false
	if _, err := os.Stat(db); err != nil {
		fresh = true
	}
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	if fresh {
		harness.Logf("indexing %s", module)
		start := time.Now()
		if _, err := index.Index(ctx, st, dir, index.Options{}); err != nil {
			st.Close()
			return nil, fmt.Errorf("indexing %s: %w", module, err)
		}
		harness.Logf("indexed %s in %s", module, time.Since(start).Round(time.Millisecond))
	}
	svc, err := query.New(st, []string{dir}, nil)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &corpus{module: module, dir: dir, svc: svc, store: st}, nil
}

// results is what a run writes as JSON.
type results struct {
	Date    string         `json:"date"`
	Command string         `json:"command"`
	Search  *searchResult  `json:"search,omitempty"`
	Tokens  *tokenResult   `json:"tokens,omitempty"`
	Latency *latencyResult `json:"latency,omitempty"`
}

func run(ctx context.Context, env harness.Env, o options) error {
	work := env.Work
	parts := map[string]bool{}
	for _, p := range strings.Split(o.parts, ",") {
		parts[strings.TrimSpace(p)] = true
	}
	res := &results{Date: time.Now().UTC().Format(time.RFC3339),
		Command: o.CommandLine()}
	tools, err := prepare(ctx, o.tools, work)
	if err != nil {
		return err
	}
	defer tools.store.Close()
	if parts["search"] {
		cobra, err := prepare(ctx, o.cobra, work)
		if err != nil {
			return err
		}
		defer cobra.store.Close()
		if res.Search, err = searchQuality(ctx, map[string]*corpus{"cobra": cobra, "tools": tools}); err != nil {
			return err
		}
	}
	if parts["tokens"] {
		gopls, err := harness.FindGopls(o.Gopls)
		if err != nil {
			return err
		}
		if res.Tokens, err = tokenCost(ctx, tools, gopls); err != nil {
			return err
		}
	}
	if parts["latency"] {
		if res.Latency, err = latency(ctx, tools, o.calls); err != nil {
			return err
		}
	}
	report(os.Stdout, res)
	return harness.WriteJSON(env.Root, o.Out, "context", res)
}
