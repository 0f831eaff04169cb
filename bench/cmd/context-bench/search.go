package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/query"
)

// question is one search_code question with its known answers: the
// symbols (package path suffix and qualified name) a person who knows the
// code would point to. Any of them counts.
type question struct {
	corpus   string // "cobra" or "tools"
	question string
	want     []string
}

// questions were written from the code's documentation and structure,
// before the ranking weights were tuned on them.
var questions = []question{
	// cobra
	{"cobra", "add a sub command to a command", []string{"cobra.Command.AddCommand"}},
	{"cobra", "mark a flag as required", []string{"cobra.Command.MarkFlagRequired", "cobra.MarkFlagRequired"}},
	{"cobra", "accept exactly n positional args", []string{"cobra.ExactArgs"}},
	{"cobra", "suggest commands for a mistyped name", []string{"cobra.Command.SuggestionsFor"}},
	{"cobra", "find the subcommand that matches the arguments", []string{"cobra.Command.Find"}},
	{"cobra", "generate markdown documentation for a command tree", []string{"doc.GenMarkdownTree", "doc.GenMarkdown"}},
	{"cobra", "generate man pages", []string{"doc.GenManTree", "doc.GenMan"}},
	{"cobra", "levenshtein edit distance", []string{"cobra.ld"}},
	{"cobra", "flags that cannot be used together", []string{"cobra.Command.MarkFlagsMutuallyExclusive"}},
	{"cobra", "add the default version flag", []string{"cobra.Command.InitDefaultVersionFlag"}},
	{"cobra", "add the default help command", []string{"cobra.Command.InitDefaultHelpCmd"}},
	{"cobra", "fish shell completion script", []string{"cobra.Command.GenFishCompletion", "cobra.genFishComp"}},
	{"cobra", "powershell completion", []string{"cobra.Command.GenPowerShellCompletion", "cobra.genPowerShellComp"}},
	{"cobra", "only arguments listed in ValidArgs", []string{"cobra.OnlyValidArgs"}},
	{"cobra", "full command path from the root", []string{"cobra.Command.CommandPath"}},
	{"cobra", "execute the root command and return the command that ran", []string{"cobra.Command.ExecuteC"}},
	// golang.org/x/tools
	{"tools", "load packages with go list", []string{"go/packages.Load"}},
	{"tools", "fix imports and format a go source file", []string{"imports.Process"}},
	{"tools", "run an analyzer on testdata and check expected diagnostics", []string{"analysistest.Run"}},
	{"tools", "call graph by class hierarchy analysis", []string{"cha.CallGraph"}},
	{"tools", "rapid type analysis", []string{"rta.Analyze"}},
	{"tools", "apply text edits to a string", []string{"diff.Apply"}},
	{"tools", "unified diff of two texts", []string{"diff.Unified"}},
	{"tools", "path of ast nodes enclosing a source interval", []string{"astutil.PathEnclosingInterval"}},
	{"tools", "add an import to a file", []string{"astutil.AddImport"}},
	{"tools", "encode the path from a package to an object", []string{"objectpath.For", "objectpath.Encoder.For"}},
	{"tools", "parse a txtar archive", []string{"txtar.Parse"}},
	{"tools", "parse coverage profiles", []string{"cover.ParseProfiles"}},
	{"tools", "variable type analysis call graph", []string{"vta.CallGraph"}},
	{"tools", "static call graph", []string{"static.CallGraph"}},
	{"tools", "read export data of a package", []string{"gcexportdata.Read"}},
	{"tools", "visit ast nodes of given types in preorder", []string{"inspector.Inspector.Preorder"}},
	{"tools", "build tags flag", []string{"buildutil.TagsFlag"}},
	{"tools", "check printf format strings", []string{"printf.Analyzer", "printf.run"}},
	{"tools", "delete an import from a file", []string{"astutil.DeleteImport"}},
	{"tools", "walk the ast and replace nodes", []string{"astutil.Apply"}},
}

// searchResult is the quality of search_code on the question set.
type searchResult struct {
	Questions int               `json:"questions"`
	First     int               `json:"first"`
	Top5      int               `json:"top5"`
	FirstPct  float64           `json:"first_pct"`
	Top5Pct   float64           `json:"top5_pct"`
	Rows      []searchRow       `json:"rows"`
	ByCorpus  map[string][2]int `json:"by_corpus"`
	// Latency of search_code in-process over searchRounds rounds of the
	// question set (limit 5, budget 8,000: bodies read from disk).
	Latency harness.Latency `json:"latency"`
}

// searchRounds is how many times the question set is timed.
const searchRounds = 5

type searchRow struct {
	Corpus   string   `json:"corpus"`
	Question string   `json:"question"`
	Want     []string `json:"want"`
	Rank     int      `json:"rank"` // 0: not in the top 5
	Top      []string `json:"top"`
}

// matches reports whether a hit is one of want.
func matches(pkgPath, qn string, want []string) bool {
	full := pkgPath + "." + qn
	for _, w := range want {
		if full == w || strings.HasSuffix(full, "/"+w) {
			return true
		}
	}
	return false
}

func searchQuality(ctx context.Context, corpora map[string]*corpus) (*searchResult, error) {
	res := &searchResult{ByCorpus: map[string][2]int{}}
	for _, q := range questions {
		c := corpora[q.corpus]
		a, err := c.call(ctx, "search_code", map[string]any{"question": q.question, "limit": 5, "budget": 8000})
		if err != nil {
			return nil, fmt.Errorf("search_code %q: %w", q.question, err)
		}
		out := a.(*query.SearchCodeOutput)
		row := searchRow{Corpus: q.corpus, Question: q.question, Want: q.want}
		for _, h := range out.Results {
			label := fmt.Sprintf("%d %s.%s", h.Rank, pkgTail(h.PackagePath), h.QualifiedName)
			if len(row.Top) == 0 || !strings.HasSuffix(row.Top[len(row.Top)-1], label[strings.IndexByte(label, ' '):]) {
				row.Top = append(row.Top, label)
			}
			if row.Rank == 0 && matches(h.PackagePath, h.QualifiedName, q.want) {
				row.Rank = h.Rank
			}
		}
		res.Rows = append(res.Rows, row)
		res.Questions++
		bc := res.ByCorpus[q.corpus]
		if row.Rank == 1 {
			res.First++
			bc[0]++
		}
		if row.Rank >= 1 && row.Rank <= 5 {
			res.Top5++
			bc[1]++
		}
		res.ByCorpus[q.corpus] = bc
	}
	var times []time.Duration
	for range searchRounds {
		for _, q := range questions {
			start := time.Now()
			if _, err := corpora[q.corpus].call(ctx, "search_code", map[string]any{"question": q.question, "limit": 5, "budget": 8000}); err != nil {
				return nil, fmt.Errorf("search_code %q: %w", q.question, err)
			}
			times = append(times, time.Since(start))
		}
	}
	res.Latency = harness.Summarize(times)
	res.FirstPct = 100 * float64(res.First) / float64(res.Questions)
	res.Top5Pct = 100 * float64(res.Top5) / float64(res.Questions)
	return res, nil
}

func pkgTail(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
