// Command ui-page-bench measures how fast `sextant ui` answers the pages
// a person opens first, in one run:
//
//  1. fetches a pinned module (github.com/spf13/cobra@v1.10.2 by default;
//     github.com/prometheus/prometheus@v0.316.0 for the figure the issue
//     sets) with harness.FetchModule;
//  2. indexes it in-process into a SQLite file, and serves the UI's
//     handler (internal/webui) over that index on a loopback port;
//  3. times the overview's first page, the first request after the index
//     (target: under 1 s), then -runs more of it;
//  4. times the symbol pages of a seeded sample of -symbols functions,
//     methods and types of the index, each page the source, references,
//     callers and callees and effects (target: p50 under 200 ms);
//  5. writes it all as JSON, named by date, corpus and commit.
//
// Run it from the module root: go run ./bench/cmd/ui-page-bench [-module github.com/prometheus/prometheus@v0.316.0]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/webui"
)

type options struct {
	*harness.Flags
	symbols int
}

type report struct {
	harness.Header
	IndexSeconds  float64         `json:"index_seconds"`
	OverviewFirst time.Duration   `json:"overview_first_ns"`
	Overview      harness.Latency `json:"overview_next"`
	Symbol        harness.Latency `json:"symbol_page"`
	SymbolFirst   time.Duration   `json:"symbol_first_ns"`
	Slowest       []string        `json:"slowest_symbol_pages"`
	Checks        []harness.Check `json:"checks"`
}

func main() {
	o := options{Flags: harness.NewFlags("ui-page-bench")}
	o.CorpusFlags("github.com/spf13/cobra@v1.10.2", "MODULE@VERSION to serve", "")
	o.WorkFlags(false, "")
	o.OutFlag("", "result file (default bench/results/DATE-ui-pages-NAME-COMMIT.json; - for stdout)")
	o.RunsFlag(10, "overview pages timed after the first")
	o.SeedFlag("seed of the symbol sample")
	flag.IntVar(&o.symbols, "symbols", 100, "symbol pages to time, a seeded sample of the index's functions, methods and types")
	flag.Parse()
	o.Run(true, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

func run(ctx context.Context, env harness.Env, o options) error {
	rep := report{Header: o.Header(ctx, harness.Corpus{Module: o.Module, Dir: env.Corpus})}
	db := filepath.Join(env.Work, "ui.db")
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	if _, err := index.Index(ctx, st, env.Corpus, index.Options{}); err != nil {
		return err
	}
	rep.IndexSeconds = time.Since(start).Seconds()
	harness.Logf("indexed in %.1fs", rep.IndexSeconds)
	svc, err := query.New(st, []string{env.Corpus}, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	token := webui.NewToken()
	h, err := webui.New(svc, webui.Options{Token: token})
	if err != nil {
		return err
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	cookie := &http.Cookie{Name: webui.CookieName(u.Port()), Value: token}
	get := func(path string) (time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		if err != nil {
			return 0, err
		}
		req.AddCookie(cookie)
		t0 := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		return d, err
	}

	if rep.OverviewFirst, err = get("/"); err != nil {
		return err
	}
	var next []time.Duration
	for range o.Runs {
		d, err := get("/")
		if err != nil {
			return err
		}
		next = append(next, d)
	}
	rep.Overview = harness.Summarize(next)
	harness.Logf("overview: first %s, then p50 %s", rep.OverviewFirst.Round(time.Millisecond), rep.Overview.P50.Round(time.Millisecond))

	syms, err := harness.AllSymbols(ctx, db)
	if err != nil {
		return err
	}
	var pool []graph.Symbol
	for _, s := range syms {
		switch s.Kind {
		case graph.KindFunc, graph.KindMethod, graph.KindType, graph.KindInterface:
			if !s.TestOnly {
				pool = append(pool, s)
			}
		}
	}
	slices.SortFunc(pool, func(a, b graph.Symbol) int { return strings.Compare(a.Key, b.Key) })
	rng := rand.New(rand.NewPCG(o.Seed, 0))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	pool = pool[:min(o.symbols, len(pool))]
	type timed struct {
		name string
		d    time.Duration
	}
	var ds []time.Duration
	var all []timed
	for i, s := range pool {
		d, err := get("/symbol?key=" + url.QueryEscape(s.Key))
		if err != nil {
			return fmt.Errorf("%s: %w", s.QualifiedName, err)
		}
		if i == 0 {
			rep.SymbolFirst = d
		}
		ds = append(ds, d)
		all = append(all, timed{s.PackagePath + "." + s.QualifiedName, d})
	}
	rep.Symbol = harness.Summarize(ds)
	slices.SortFunc(all, func(a, b timed) int { return int(b.d - a.d) })
	for _, t := range all[:min(5, len(all))] {
		rep.Slowest = append(rep.Slowest, fmt.Sprintf("%s %s", t.name, t.d.Round(time.Millisecond)))
	}
	harness.Logf("symbol pages: p50 %s, p90 %s, max %s", rep.Symbol.P50.Round(time.Millisecond), rep.Symbol.P90.Round(time.Millisecond), rep.Symbol.Max.Round(time.Millisecond))
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rep.Checks = []harness.Check{
		harness.AtMost("overview first page after the index", ms(rep.OverviewFirst), 1000, "ms", ""),
		harness.AtMost("symbol page p50", ms(rep.Symbol.P50), 200, "ms", fmt.Sprintf("%d pages", rep.Symbol.N)),
	}
	for _, c := range rep.Checks {
		harness.Logf("%s: %s (limit %s) %s", c.Name, c.Format(c.Value), c.Format(c.Limit), c.Verdict())
	}
	return harness.WriteJSON(env.Root, o.Out, "ui-pages-"+harness.ModuleName(o.Module), rep)
}
