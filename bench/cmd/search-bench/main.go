// Command search-bench measures how well search_code finds code from a
// question in words, on questions nobody could tune the ranking to:
//
//   - generated: on pinned modules, for each exported function, method
//     and type with a doc comment of at least eight words, the comment's
//     first sentence with the symbol's own name and its name's words
//     removed; while that question is asked, the symbol's doc comment is
//     masked from the index (its search row and its symbol row), so the
//     ranking never sees the words the question was made from;
//   - written: questions written the way agents ask, each answer checked
//     by reading the code (written.go).
//
// The modules are split into a tuning set, on which a ranking may be
// tuned, and a measured set, which alone is reported as the figure.
// Beside the Go modules, which the module proxy serves, TypeScript and
// Python corpora pinned at a commit (harness.Pinned: hono and requests
// to tune on, zod and click measured) are read from git checkouts under
// -checkouts, and each language is summarized alone.
// Every method answers the same questions in one run: grep (the
// question's words, declarations ranked by hits), plain BM25 over names
// and doc comments, and search_code of each sextant binary given (each
// over MCP on its own index).
//
//	go run ./bench/cmd/search-bench [-binaries today=PATH,new=PATH] [-set measured|tuning|all] [-per-module 150] [-checkouts DIR]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/graph"
)

// module is one pinned corpus and the set it belongs to.
type module struct {
	Module string `json:"module"`
	Set    string `json:"set"` // "tuning" or "measured"
	// Pinned is a TypeScript or Python corpus, a git checkout under
	// -checkouts; nil for a Go module, which the module proxy serves.
	Pinned *harness.Pinned `json:"pinned,omitempty"`
}

// language is the module's language, as the summary groups them.
func (m module) language() string {
	if m.Pinned != nil {
		return m.Pinned.Language
	}
	return "go"
}

// modules are the corpora, pinned. A ranking may be tuned on the tuning
// set only; the figures are the measured set's.
var modules = []module{
	{"github.com/spf13/cobra@v1.10.2", "tuning", nil},
	{"github.com/spf13/pflag@v1.0.6", "tuning", nil},
	{"github.com/BurntSushi/toml@v1.4.0", "tuning", nil},
	{"github.com/gorilla/mux@v1.8.1", "tuning", nil},
	{"github.com/hashicorp/go-retryablehttp@v0.7.7", "measured", nil},
	{"github.com/go-chi/chi/v5@v5.2.1", "measured", nil},
	{"github.com/sirupsen/logrus@v1.9.3", "measured", nil},
	{"github.com/urfave/cli/v2@v2.27.5", "measured", nil},
	{"github.com/gin-gonic/gin@v1.10.0", "measured", nil},
	{"github.com/fsnotify/fsnotify@v1.8.0", "measured", nil},
	// TypeScript and Python, each language summarized alone.
	{harness.Hono.Repo + "@" + harness.Hono.Tag, "tuning", &harness.Hono},
	{harness.Requests.Repo + "@" + harness.Requests.Tag, "tuning", &harness.Requests},
	{harness.Zod.Repo + "@" + harness.Zod.Tag, "measured", &harness.Zod},
	{harness.Click.Repo + "@" + harness.Click.Tag, "measured", &harness.Click},
}

type options struct {
	*harness.Flags
	set       string
	checkouts string // the directory of the pinned TypeScript and Python corpora's checkouts
	perModule int
	limit     int
	latency   string
}

func main() {
	o := options{Flags: harness.NewFlags("search-bench")}
	o.WorkFlags(true, "work directory (default: a temporary one); with -keep, corpora and indexes are reused")
	o.OutFlag("search", "")
	o.SeedFlag("seed of the sample of generated questions")
	o.BinariesFlag("sextant binaries to compare, NAME=PATH,... (default: ./cmd/sextant of this checkout, as \"current\")")
	flag.StringVar(&o.set, "set", "measured", "modules to ask about: measured, tuning, all, or one module path")
	flag.StringVar(&o.checkouts, "checkouts", "", "directory of git checkouts of the TypeScript and Python corpora, each named as its repository's last element, at its pinned commit (see bench/README.md); a corpus without one is skipped")
	flag.IntVar(&o.perModule, "per-module", 150, "at most this many generated questions per module (a seeded sample)")
	flag.IntVar(&o.limit, "limit", 20, "results asked of each method; a miss beyond it counts 0 in MRR")
	flag.StringVar(&o.latency, "latency", "", "also time search_code over MCP with its default arguments on this module (MODULE@VERSION; prometheus for the target), its generated questions unmasked, and the first search after each of ten edits")
	flag.Parse()
	o.Run(false, func(ctx context.Context, env harness.Env) error { return run(ctx, env, o) })
}

// results is what a run writes as JSON.
type results struct {
	Date     string                       `json:"date"`
	Command  string                       `json:"command"`
	Machine  harness.Machine              `json:"machine"`
	Binaries []harness.Binary             `json:"binaries"`
	Modules  []moduleResult               `json:"modules"`
	Summary  map[string]map[string]*score `json:"summary"`             // set/kind → method → score
	Latency  map[string]harness.Latency   `json:"search_code_latency"` // binary → search_code over MCP
	// DefaultLatency is search_code over MCP with its default arguments
	// on the -latency module, per binary.
	LatencyModule  string                     `json:"latency_module,omitempty"`
	DefaultLatency map[string]harness.Latency `json:"search_code_default_latency,omitempty"`
	// AfterEdit is, per binary, search_code on the -latency module right
	// after an edit, once the snapshot is amended: the first search of
	// the amended snapshot and the one after it.
	AfterEdit map[string]editLatency `json:"search_code_after_edit,omitempty"`
}

// editLatency is what afterEdit measures.
type editLatency struct {
	File  string          `json:"file"`
	First harness.Latency `json:"first"`
	Next  harness.Latency `json:"next"`
}

// moduleResult is one module's questions and every method's rank of
// each answer.
type moduleResult struct {
	module
	Index     map[string]indexed `json:"index"` // binary → its index of the module
	Symbols   int                `json:"symbols"`
	Eligible  int                `json:"eligible"` // documented exported funcs, methods and types
	Questions []asked            `json:"questions"`
}

// indexed is one binary's index of a module: the time `sextant index`
// took (0 when a kept index was reused) and the size of the database
// with its write-ahead log, before any question is asked.
type indexed struct {
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"bytes"`
}

// asked is one question with the rank each method gave its answer (0:
// not in the first -limit).
type asked struct {
	question
	Ranks map[string]int `json:"ranks"`
	// Top are the first three answers of each search_code.
	Top map[string][]string `json:"top"`
}

func run(ctx context.Context, env harness.Env, o options) error {
	bins, err := binaries(ctx, env, o)
	if err != nil {
		return err
	}
	res := &results{Date: time.Now().UTC().Format(time.RFC3339), Command: o.CommandLine(),
		Machine: harness.ReadMachine(ctx), Binaries: bins, Latency: map[string]harness.Latency{}}
	latencies := map[string][]time.Duration{}
	for _, m := range modules {
		if o.set != "all" && m.Set != o.set && !strings.HasPrefix(m.Module, o.set+"@") {
			continue
		}
		if m.Pinned != nil && o.checkout(m) == "" {
			harness.Logf("%s: skipped, no checkout of it under -checkouts", m.Module)
			continue
		}
		mr, err := runModule(ctx, env, o, m, bins, latencies)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Module, err)
		}
		res.Modules = append(res.Modules, *mr)
	}
	for name, ds := range latencies {
		res.Latency[name] = harness.Summarize(ds)
	}
	if o.latency != "" {
		if res.DefaultLatency, res.AfterEdit, err = defaultLatency(ctx, env, o, bins); err != nil {
			return fmt.Errorf("%s: %w", o.latency, err)
		}
		res.LatencyModule = o.latency
	}
	res.Summary = summarize(res.Modules, methodNames(bins))
	report(os.Stdout, res, methodNames(bins))
	return harness.WriteJSON(env.Root, o.Out, "search", res)
}

// binaries are the sextant binaries compared: -binaries, or this
// checkout's ./cmd/sextant as "current".
func binaries(ctx context.Context, env harness.Env, o options) ([]harness.Binary, error) {
	if o.Binaries != "" {
		if !strings.Contains(o.Binaries, ",") {
			name, path, ok := strings.Cut(o.Binaries, "=")
			if !ok {
				return nil, fmt.Errorf("-binaries: %q is not NAME=PATH", o.Binaries)
			}
			abs, err := filepath.Abs(path)
			return []harness.Binary{{Name: name, Path: abs}}, err
		}
		return harness.ParseBinaries(o.Binaries)
	}
	bin, err := harness.Build(ctx, env.Root, "./cmd/sextant", filepath.Join(env.Work, "bin", "sextant"))
	if err != nil {
		return nil, err
	}
	return []harness.Binary{{Name: "current", Path: bin}}, nil
}

// methodNames are the methods in the order reported: the two baselines,
// then each binary's search_code.
func methodNames(bins []harness.Binary) []string {
	names := []string{methodGrep, methodBM25}
	for _, b := range bins {
		names = append(names, "search_code:"+b.Name)
	}
	return names
}

// runModule fetches and indexes one module (once per binary), makes its
// questions and asks each of every method.
func runModule(ctx context.Context, env harness.Env, o options, m module, bins []harness.Binary, latencies map[string][]time.Duration) (*moduleResult, error) {
	name := harness.ModuleName(m.Module)
	dir, err := o.corpus(ctx, env, m)
	if err != nil {
		return nil, err
	}
	dbs := map[string]string{}
	index := map[string]indexed{}
	for _, b := range bins {
		db := filepath.Join(env.Work, "db", name+"-"+b.Name+".db")
		took, err := indexWith(ctx, b.Path, db, dir)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(db)
		if err != nil {
			return nil, err
		}
		size := fi.Size()
		if wal, err := os.Stat(db + "-wal"); err == nil {
			size += wal.Size()
		}
		dbs[b.Name] = db
		index[b.Name] = indexed{Seconds: took.Seconds(), Bytes: size}
	}
	syms, err := harness.AllSymbols(ctx, dbs[bins[0].Name])
	if err != nil {
		return nil, err
	}
	c, err := newCorpus(dir, syms)
	if err != nil {
		return nil, err
	}
	gen, eligible := generate(syms, o.perModule, o.Seed)
	qs := append(gen, writtenFor(m)...)
	if err := checkAnswers(qs, syms); err != nil {
		return nil, err
	}
	harness.Logf("%s: %d symbols, %d eligible, %d generated and %d written questions", m.Module, len(syms), eligible, len(gen), len(qs)-len(gen))
	mr := &moduleResult{module: m, Index: index, Symbols: len(syms), Eligible: eligible}
	for _, q := range qs {
		a := asked{question: q, Ranks: map[string]int{}, Top: map[string][]string{}}
		a.Ranks[methodGrep] = c.grepRank(q, o.limit)
		a.Ranks[methodBM25] = c.bm25Rank(q, o.limit)
		mr.Questions = append(mr.Questions, a)
	}
	for _, b := range bins {
		ranks, tops, took, err := askSextant(ctx, b.Path, dbs[b.Name], dir, qs, o.limit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		for i := range mr.Questions {
			mr.Questions[i].Ranks["search_code:"+b.Name] = ranks[i]
			mr.Questions[i].Top["search_code:"+b.Name] = tops[i]
		}
		latencies[b.Name] = append(latencies[b.Name], took...)
	}
	return mr, nil
}

// checkout is the git checkout of a pinned module under -checkouts, ""
// when there is none.
func (o options) checkout(m module) string {
	if m.Pinned == nil || o.checkouts == "" {
		return ""
	}
	dir := filepath.Join(o.checkouts, m.Pinned.Name())
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return ""
	}
	return dir
}

// corpus returns the directory of a module's source, symlinks resolved:
// a Go module fetched through the module proxy into the work directory
// (once, with -keep), or the root of a pinned corpus's checkout, checked.
func (o options) corpus(ctx context.Context, env harness.Env, m module) (string, error) {
	if m.Pinned != nil {
		root, _, err := m.Pinned.Check(ctx, o.checkout(m))
		return root, err
	}
	dir := filepath.Join(env.Work, "corpus", harness.ModuleName(m.Module))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		if dir, err = harness.FetchModule(ctx, m.Module, env.Work); err != nil {
			return "", err
		}
	}
	return filepath.EvalSymlinks(dir)
}

// defaultLatency times search_code over MCP as an agent calls it (the
// question alone) on the -latency module, each binary on its own index,
// over the module's generated questions (a sample of -per-module),
// unmasked: what is timed is the call, not the ranking.
func defaultLatency(ctx context.Context, env harness.Env, o options, bins []harness.Binary) (map[string]harness.Latency, map[string]editLatency, error) {
	name := harness.ModuleName(o.latency)
	dir, err := o.corpus(ctx, env, module{Module: o.latency})
	if err != nil {
		return nil, nil, err
	}
	out := map[string]harness.Latency{}
	edits := map[string]editLatency{}
	var qs []question
	var file string // the file of the first question's answer, edited
	for _, b := range bins {
		db := filepath.Join(env.Work, "db", name+"-"+b.Name+".db")
		if _, err := indexWith(ctx, b.Path, db, dir); err != nil {
			return nil, nil, err
		}
		if qs == nil {
			syms, err := harness.AllSymbols(ctx, db)
			if err != nil {
				return nil, nil, err
			}
			qs, _ = generate(syms, o.perModule, o.Seed)
			if len(qs) == 0 {
				return nil, nil, fmt.Errorf("no questions on %s", name)
			}
			for _, s := range syms {
				if s.Key == qs[0].Key {
					file = s.Path
				}
			}
			for i := range qs {
				qs[i].Key = "" // unmasked
			}
		}
		_, _, took, err := askSextant(ctx, b.Path, db, dir, qs, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		out[b.Name] = harness.Summarize(took)
		harness.Logf("%s: search_code p50 %s over %d calls on %s", b.Name, out[b.Name].P50, len(took), name)
		first, next, err := afterEdit(ctx, b.Path, db, dir, file, qs[0].Question, editRounds)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: after an edit: %w", b.Name, err)
		}
		edits[b.Name] = editLatency{File: file, First: harness.Summarize(first), Next: harness.Summarize(next)}
		harness.Logf("%s: after an edit of %s, the first search_code p50 %s, the next %s", b.Name, file, edits[b.Name].First.P50, edits[b.Name].Next.P50)
	}
	return out, edits, nil
}

// editRounds is how many edits afterEdit makes.
const editRounds = 10

// afterEdit times, on one server of bin, the first search_code for q
// after each of rounds edits of file (a comment appended, file put back
// at the end), and the search after that. Between the edit and the
// search a find_symbol call, untimed, finds the file changed and
// amends the snapshot, so what is timed is the search of an amended
// snapshot, not the amend.
func afterEdit(ctx context.Context, bin, db, dir, file, q string, rounds int) (first, next []time.Duration, err error) {
	path := filepath.Join(dir, file)
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer func() { err = errors.Join(err, os.WriteFile(path, orig, 0o644)) }()
	srv, err := startServer(ctx, bin, db, dir)
	if err != nil {
		return nil, nil, err
	}
	defer srv.close()
	for i := range rounds {
		edited := append(slices.Clip(orig), fmt.Sprintf("\n// edited by search-bench, round %d\n", i)...)
		if err := os.WriteFile(path, edited, 0o644); err != nil {
			return nil, nil, err
		}
		if err := srv.call(ctx, "find_symbol", map[string]any{"name": "main"}); err != nil {
			return nil, nil, err
		}
		for _, into := range []*[]time.Duration{&first, &next} {
			_, d, err := srv.ask(ctx, q, 0)
			if err != nil {
				return nil, nil, err
			}
			*into = append(*into, d)
		}
	}
	return first, next, nil
}

// indexWith indexes dir into db with the sextant binary bin, unless db
// is there from a kept run, and returns how long it took (0 when kept).
func indexWith(ctx context.Context, bin, db, dir string) (time.Duration, error) {
	if _, err := os.Stat(db); err == nil {
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		return 0, err
	}
	harness.Logf("indexing %s into %s", dir, filepath.Base(db))
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "index", "--db", db, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		harness.RemoveDB(db)
		return 0, fmt.Errorf("sextant index: %v: %s", err, harness.Tail(stderr.String()))
	}
	took := time.Since(start)
	harness.Logf("indexed in %s", took.Round(time.Millisecond))
	return took, nil
}

// checkAnswers fails when a question's answer names no symbol of the
// index: a written answer misspelt, or a module version that changed.
func checkAnswers(qs []question, syms []graph.Symbol) error {
	for _, q := range qs {
		if !slices.ContainsFunc(syms, func(s graph.Symbol) bool { return q.matches(s.PackagePath, s.QualifiedName) }) {
			return fmt.Errorf("question %q: no answer %s.%s in the index", q.Question, q.Package, q.Answer)
		}
		for _, a := range q.Also {
			pkg, qn, ok := strings.Cut(a, "#")
			if !ok {
				pkg, qn = q.Package, a
			}
			if !slices.ContainsFunc(syms, func(s graph.Symbol) bool { return s.PackagePath == pkg && s.QualifiedName == qn }) {
				return fmt.Errorf("question %q: no answer %s.%s in the index", q.Question, pkg, qn)
			}
		}
	}
	return nil
}
