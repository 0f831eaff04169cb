// Command store-bench compares the two stores in one run: it indexes a
// pinned Go module (golang.org/x/tools@v0.52.0 by default) into a fresh
// SQLite file and into a fresh schema of a PostgreSQL database, timing each
// publish, then times the same seeded calls of find_symbol (all four
// modes), get_symbol (all selectors) and find_references against each,
// in-process through internal/query, alternating the stores call by call
// so that drift and other load hit both alike. It prints p50 and p99 per
// tool and mode with the PostgreSQL ÷ SQLite ratio, checks the target
// (PostgreSQL p50 within 3× of SQLite for point queries) and writes every
// figure as JSON. Last it times the floor under a PostgreSQL call, one
// statement that does nothing, back to back and after an idle gap (see
// roundtrip.go).
//
//	SEXTANT_TEST_POSTGRES=postgres://... go run ./bench/cmd/store-bench
//
// The database is -pg, else $SEXTANT_TEST_POSTGRES; the schema it creates
// is dropped at the end unless -keep.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// options are the command-line flags: the shared ones and its own.
type options struct {
	*harness.Flags
	pg, reuse  string
	queries    int
	cpuProfile string
}

func main() {
	o := options{Flags: harness.NewFlags("store-bench")}
	o.CorpusFlags("golang.org/x/tools@v0.52.0", "pinned module to index (MODULE@VERSION)", "index this directory instead of fetching -module")
	o.WorkFlags(false, "work directory (default: a temporary one)")
	flag.BoolVar(&o.Keep, "keep", false, "keep the work directory and the PostgreSQL schema")
	flag.StringVar(&o.pg, "pg", os.Getenv("SEXTANT_TEST_POSTGRES"), "PostgreSQL URL (default $SEXTANT_TEST_POSTGRES)")
	o.OutFlag("store-MODULE", "JSON output (default bench/results/DATE-store-MODULE-COMMIT.json; - for stdout)")
	flag.IntVar(&o.queries, "queries", 1000, "calls per tool")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed calls (both stores; pprof's -focus picks one) to this file")
	o.SeedFlag("query set seed")
	flag.StringVar(&o.reuse, "reuse", "", "time queries only, against the index a -keep run left: its -work directory and this PostgreSQL schema (sextant_bench_...)")
	o.MaxLoadFlag("before timing queries, wait (up to 15 minutes) until the 1-minute load average is at most this (0: do not wait)")
	flag.Parse()
	o.Run(false, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

// publishResult is one store's indexing of the corpus.
type publishResult struct {
	Total   time.Duration `json:"total_ns"`   // index.Index, load to published
	Publish time.Duration `json:"publish_ns"` // from the publish phase to published: the store's share
	Symbols int           `json:"symbols"`
	Refs    int           `json:"refs"`
	Edges   int           `json:"call_edges"`
}

type row struct {
	Tool   string          `json:"tool"`
	Mode   string          `json:"mode"`
	Point  bool            `json:"point_query"`
	SQLite harness.Latency `json:"sqlite"`
	PG     harness.Latency `json:"postgres"`
	Ratio  float64         `json:"p50_ratio"` // PostgreSQL ÷ SQLite
	Trips  float64         `json:"postgres_round_trips_per_call"`
}

type results struct {
	Module     string                   `json:"module"`
	Date       string                   `json:"date"`
	Queries    int                      `json:"queries_per_tool"`
	Publish    map[string]publishResult `json:"publish"`
	Latency    []row                    `json:"latency"`
	Mismatches int                      `json:"answer_mismatches"` // calls whose answers differed between the stores
	Load       string                   `json:"load_average"`      // /proc/loadavg when the queries began
	RoundTrip  roundTrips               `json:"round_trip"`        // the floor under a PostgreSQL call, timed after the calls
}

func run(ctx context.Context, env harness.Env, o options) error {
	if o.pg == "" {
		return fmt.Errorf("no PostgreSQL: set -pg or SEXTANT_TEST_POSTGRES (. .ci/postgres.sh starts one)")
	}
	root, work := env.Root, env.Work
	corpus := o.Corpus
	var err error
	if corpus == "" && o.reuse != "" {
		// The copy the kept run indexed: fetching again would rewrite it.
		corpus = filepath.Join(work, "corpus", filepath.Base(strings.Split(o.Module, "@")[0]))
	} else if corpus, err = harness.CorpusDir(ctx, o.Module, corpus, work); err != nil {
		return err
	}
	// With -corpus, the directory indexed is what was measured.
	what, name := o.Module, harness.ModuleName(o.Module)
	if o.Corpus != "" {
		what, name = corpus, filepath.Base(corpus)
	}
	res := results{Module: what, Date: time.Now().UTC().Format(time.RFC3339), Queries: o.queries,
		Publish: map[string]publishResult{}}

	lite, err := sqlite.Open(ctx, filepath.Join(work, "bench.db"))
	if err != nil {
		return err
	}
	defer lite.Close()
	var dsn string
	if o.reuse != "" {
		if o.Work == "" {
			return fmt.Errorf("-reuse needs the -work directory of the run that kept it")
		}
		if dsn, err = withSchema(o.pg, o.reuse); err != nil {
			return err
		}
	} else {
		var drop func()
		if dsn, drop, err = freshSchema(ctx, o.pg); err != nil {
			return err
		}
		if !o.Keep {
			defer drop()
		}
	}
	pg, err := postgres.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer pg.Close()

	if o.reuse == "" {
		if err := publishBoth(ctx, &res, work, corpus, lite, pg); err != nil {
			return err
		}
	}
	calls, err := querySet(ctx, lite, o.queries, o.Seed)
	if err != nil {
		return err
	}
	if err := harness.WaitQuiet(ctx, o.MaxLoad); err != nil {
		return err
	}
	res.Load = harness.LoadAvg()
	harness.Logf("timing %d calls against each store (load average %s)", len(calls), res.Load)
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	res.Latency, res.Mismatches, err = timeCalls(ctx, lite, pg, corpus, calls)
	if o.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return err
	}
	if res.RoundTrip, err = timeRoundTrips(ctx, dsn, o.queries); err != nil {
		return err
	}
	printReport(os.Stdout, &res)
	return harness.WriteJSON(root, o.Out, "store-"+name, res)
}

// publishBoth indexes the corpus into each store, after one untimed run
// that fills the build and page caches (export data of every
// dependency), so the first timed store does not pay for them.
func publishBoth(ctx context.Context, res *results, work, corpus string, lite, pg graph.Store) error {
	harness.Logf("warming the caches: one untimed index of %s", corpus)
	warm, err := sqlite.Open(ctx, filepath.Join(work, "warm.db"))
	if err != nil {
		return err
	}
	_, err = publish(ctx, warm, corpus)
	warm.Close()
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	for _, s := range []struct {
		name string
		st   graph.Store
	}{{"sqlite", lite}, {"postgres", pg}} {
		harness.Logf("indexing %s into %s", corpus, s.name)
		pr, err := publish(ctx, s.st, corpus)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		harness.Logf("%s: %s in all, publish %s", s.name, pr.Total.Round(time.Millisecond), pr.Publish.Round(time.Millisecond))
		res.Publish[s.name] = pr
	}

	return nil
}

// withSchema returns base with its search_path set to schema.
func withSchema(base, schema string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// freshSchema creates a schema for this run and returns a URL using it.
func freshSchema(ctx context.Context, base string) (string, func(), error) {
	b := make([]byte, 4)
	rand.Read(b)
	name := "sextant_bench_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("connecting to %s: %w", postgres.Redact(base), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", nil, err
	}
	dsn, err := withSchema(base, name)
	if err != nil {
		return "", nil, err
	}
	drop := func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			c.Exec(context.Background(), `DROP SCHEMA `+pgx.Identifier{name}.Sanitize()+` CASCADE`)
			c.Close(context.Background())
		}
	}
	return dsn, drop, nil
}

func publish(ctx context.Context, st graph.Store, corpus string) (publishResult, error) {
	var publishStart time.Time
	start := time.Now()
	r, err := index.Index(ctx, st, corpus, index.Options{Progress: func(p index.Progress) {
		if p.Phase == index.PhasePublish && publishStart.IsZero() {
			publishStart = time.Now()
		}
	}})
	end := time.Now()
	if err != nil {
		return publishResult{}, err
	}
	return publishResult{Total: end.Sub(start), Publish: end.Sub(publishStart), Symbols: r.Symbols, Refs: r.Refs,
		Edges: r.CallEdges}, nil
}

// querySet builds n calls of each tool from the index's own symbols.
func querySet(ctx context.Context, st graph.Store, n int, seed uint64) ([]harness.Call, error) {
	r, err := st.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
	if err != nil {
		return nil, err
	}
	sort.Slice(syms, func(i, j int) bool { return syms[i].Key < syms[j].Key })
	rng := mrand.New(mrand.NewPCG(seed, seed))
	find := harness.FindSymbolCalls(syms, n, rng)
	get := harness.GetSymbolCalls(syms, n, rng)
	var calls []harness.Call
	for i := range n {
		s := syms[rng.IntN(len(syms))]
		refs := harness.Call{Tool: "find_references", Mode: "key", Args: map[string]any{"stable_key": s.Key}}
		calls = append(calls, find[i], get[i], refs)
	}
	return calls, nil
}

// timeCalls runs every call against both stores, alternating which goes
// first, and compares their answers.
func timeCalls(ctx context.Context, lite graph.Store, pg *postgres.Store, corpus string, calls []harness.Call) ([]row, int, error) {
	tools := map[string]query.Tool{}
	for _, t := range query.Tools() {
		tools[t.Name] = t
	}
	svcs := map[string]*query.Service{}
	for name, st := range map[string]graph.Store{"sqlite": lite, "postgres": pg} {
		svc, err := query.New(st, []string{corpus}, nil)
		if err != nil {
			return nil, 0, err
		}
		svcs[name] = svc
	}
	call := func(store string, c harness.Call) (time.Duration, string, error) {
		args, _ := json.Marshal(c.Args)
		start := time.Now()
		ans, err := tools[c.Tool].Call(ctx, svcs[store], args, nil)
		took := time.Since(start)
		if err != nil {
			return took, "error " + string(query.ErrorOf(err).Code), nil
		}
		return took, answerText(ans), nil
	}
	// Warm both: the first call loads the name tables and file lists.
	for _, s := range []string{"sqlite", "postgres"} {
		call(s, harness.Call{Tool: "find_symbol", Args: map[string]any{"name": "Load", "mode": "fuzzy"}})
	}
	type key struct{ tool, mode string }
	lat := map[key]map[string][]time.Duration{}
	trips := map[key]int64{}
	mismatches := 0
	for i, c := range calls {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		order := []string{"sqlite", "postgres"}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		got := map[string]string{}
		k := key{c.Tool, c.Mode}
		if lat[k] == nil {
			lat[k] = map[string][]time.Duration{}
		}
		for _, s := range order {
			before := pg.RoundTrips()
			took, text, err := call(s, c)
			if s == "postgres" {
				trips[k] += pg.RoundTrips() - before
			}
			if err != nil {
				return nil, 0, err
			}
			lat[k][s] = append(lat[k][s], took)
			got[s] = text
		}
		if got["sqlite"] != got["postgres"] {
			if mismatches < 3 {
				harness.Logf("answers differ for %s %v:\n--- sqlite\n%s\n--- postgres\n%s", c.Tool, c.Args, got["sqlite"], got["postgres"])
			}
			mismatches++
		}
	}
	var rows []row
	for k, m := range lat {
		r := row{Tool: k.tool, Mode: k.mode, SQLite: harness.Summarize(m["sqlite"]), PG: harness.Summarize(m["postgres"])}
		r.Point = k.tool != "find_symbol" || k.mode == "exact"
		r.Ratio = float64(r.PG.P50) / float64(r.SQLite.P50)
		r.Trips = float64(trips[k]) / float64(len(m["postgres"]))
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Tool != rows[j].Tool {
			return rows[i].Tool < rows[j].Tool
		}
		return rows[i].Mode < rows[j].Mode
	})
	return rows, mismatches, nil
}

// answerText is what the stores' answers are compared by: the text an
// agent reads, without the snapshot line (ids and ages differ).
func answerText(a query.Answer) string {
	var lines []string
	for _, l := range strings.Split(a.Text(), "\n") {
		if strings.Contains(l, "snapshot") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

func printReport(w io.Writer, r *results) {
	if len(r.Publish) == 2 {
		printPublish(w, r)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "query (%d calls each)\tsqlite p50\tsqlite p99\tpostgres p50\tpostgres p99\tp50 ratio\ttarget\tpostgres round trips per call\n", r.Queries)
	for _, row := range r.Latency {
		verdict := ""
		if row.Point {
			verdict = "≤ 3×: PASS"
			if row.Ratio > 3 {
				verdict = "≤ 3×: MISS"
			}
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%s\t%.2f×\t%s\t%.2f\n", row.Tool, row.Mode, msec(row.SQLite.P50), msec(row.SQLite.P99),
			msec(row.PG.P50), msec(row.PG.P99), row.Ratio, verdict, row.Trips)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nanswers that differed between the stores: %d; load average when timing: %s\n", r.Mismatches, r.Load)
	rt := r.RoundTrip
	fmt.Fprintf(w, "one PostgreSQL round trip (SELECT $1, %d each, alternated): p50 %s back to back, %s after %s idle\n",
		rt.BackToBack.N, msec(rt.BackToBack.P50), msec(rt.AfterIdle.P50), rt.IdleGap)
}

func printPublish(w io.Writer, r *results) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "publish of %s\tsqlite\tpostgres\tratio\n", r.Module)
	s, p := r.Publish["sqlite"], r.Publish["postgres"]
	fmt.Fprintf(tw, "index + publish, wall\t%s\t%s\t%.2f×\n", secs(s.Total), secs(p.Total), float64(p.Total)/float64(s.Total))
	fmt.Fprintf(tw, "publish phase (the store's writes)\t%s\t%s\t%.2f×\n", secs(s.Publish), secs(p.Publish), float64(p.Publish)/float64(s.Publish))
	fmt.Fprintf(tw, "records\t%d symbols, %d refs, %d edges\t\t\n", s.Symbols, s.Refs, s.Edges)
	tw.Flush()
	fmt.Fprintln(w)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
func msec(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
