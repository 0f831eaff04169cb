package query

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/rank"
	"github.com/sextant-dev/sextant/internal/srcfile"
)

// Bounds of search_code.
const (
	defaultSearchLimit  = 5
	maxSearchLimit      = 20
	defaultSearchBudget = 2000
	searchPool          = 200 // full-text hits re-ranked
	maxDefinitions      = 8   // further definitions of one name listed with it
	briefBodyLines      = 3   // a lower hit's body up to this long is shown

	// A question is a sentence or two; these bound what one call may
	// cost (ranking and the full-text query grow with its words).
	maxQuestionBytes = 2048
	maxQuestionWords = 64 // distinct words searched for, stop words and "return" aside
)

// SearchCodeInput is the input of search_code.
type SearchCodeInput struct {
	Question     string `json:"question" jsonschema:"what the code does, up to 64 words"`
	Repository   string `json:"repository,omitempty" jsonschema:"only this repository, by name"`
	Limit        int    `json:"limit,omitempty" jsonschema:"symbols to return, 1-20 (default 5)"`
	Budget       int    `json:"budget,omitempty" jsonschema:"max tokens 150-8000 (default 2000)"`
	IncludeTests bool   `json:"include_tests,omitempty" jsonschema:"also rank _test.go symbols"`
	Wait         Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// SearchHit is one symbol search_code found.
type SearchHit struct {
	Rank          int     `json:"rank" jsonschema:"1 for the best match; definitions of one name share a rank"`
	QualifiedName string  `json:"qualified_name" jsonschema:"Name, Type.Method or Type.Field"`
	PackagePath   string  `json:"package_path" jsonschema:"import path of its package"`
	Kind          string  `json:"kind" jsonschema:"symbol kind"`
	Repository    string  `json:"repository" jsonschema:"repository name"`
	Path          string  `json:"path" jsonschema:"repo-relative file"`
	StartLine     int     `json:"start_line" jsonschema:"1-based first line"`
	EndLine       int     `json:"end_line" jsonschema:"1-based last line"`
	Signature     string  `json:"signature" jsonschema:"declaration signature"`
	StableKey     string  `json:"stable_key" jsonschema:"durable key"`
	Score         float64 `json:"score" jsonschema:"relevance; compare within one answer"`
	Summary       string  `json:"summary,omitempty" jsonschema:"first sentence of its doc comment"`
	Source        string  `json:"source,omitempty" jsonschema:"its source from disk: the best match's, when the budget allowed"`
	SourceLine    int     `json:"source_line,omitempty" jsonschema:"first line of source"`
}

// SearchCodeOutput is the answer of search_code.
type SearchCodeOutput struct {
	Envelope
	Words    []string    `json:"words" jsonschema:"the words searched for"`
	Budget   int         `json:"budget" jsonschema:"token budget applied"`
	Results  []SearchHit `json:"results" jsonschema:"best first"`
	Withheld []string    `json:"withheld,omitempty" jsonschema:"best-match definitions whose source did not fit the budget; use read_source"`
}

// SearchCode finds the symbols that best match a question in words.
func SearchCode(ctx context.Context, s *Service, in SearchCodeInput, progress func(Progress)) (*SearchCodeOutput, error) {
	if err := checkSelectors("question", in.Question, "repository", in.Repository); err != nil {
		return nil, err
	}
	if len(in.Question) > maxQuestionBytes {
		return nil, invalid("question", "is %d bytes, over the limit of %d; ask in a sentence or two what the code does", len(in.Question), maxQuestionBytes)
	}
	words, concepts := rank.Question(in.Question)
	if len(concepts) > maxQuestionWords {
		return nil, invalid("question", "has %d distinct words besides stop words, over the limit of %d; keep the words that say what the code does", len(concepts), maxQuestionWords)
	}
	if len(words) == 0 {
		return nil, invalid("question", "has no searchable words (got %q); describe what the code does, e.g. \"parse flags\"", in.Question)
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = defaultSearchLimit
	case limit < 1 || limit > maxSearchLimit:
		return nil, invalid("limit", "must be from 1 to %d (got %d)", maxSearchLimit, limit)
	}
	budget, err := budgetIn(in.Budget, defaultSearchBudget, minSourceBudget, maxSourceBudget)
	if err != nil {
		return nil, err
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	q := graph.TextQuery{Words: words, Limit: searchPool}
	if in.Repository != "" {
		if _, err := v.Repo(in.Repository); err != nil {
			return nil, err
		}
		q.Repositories = []string{in.Repository}
	} else {
		q.Repositories = v.Scope()
	}
	hits, err := v.Reader().SearchText(ctx, q)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "searching")
	}
	ranked := rank.Hits(ctx, v, hits, concepts, in.IncludeTests)
	out := &SearchCodeOutput{Words: words, Budget: budget, Results: []SearchHit{}}
	// The best names, each with all its definitions (a name declared in
	// several files, e.g. per platform, is all of them, not one pick).
	type name struct{ pkg, qn string }
	picked := map[name]bool{}
	rank := 0
	for _, h := range ranked {
		n := name{h.Symbol.PackagePath, h.Symbol.QualifiedName}
		if picked[n] {
			continue
		}
		if rank == limit {
			break
		}
		picked[n] = true
		rank++
		// A name declared more than once in its package (per platform),
		// or named outright by the question, comes with all its
		// definitions, not one pick.
		defs := []graph.TextHit{h}
		lookup := graph.Lookup{QualifiedName: n.qn, PackagePath: n.pkg, Repository: h.Symbol.Repository}
		if namesSymbol(in.Question, h.Symbol) {
			lookup.PackagePath = ""
			lookup.Repository = in.Repository
		}
		same, err := v.Reader().LookupSymbols(ctx, lookup)
		if err == nil {
			for _, s := range same {
				if len(defs) > maxDefinitions {
					break
				}
				other := name{s.PackagePath, s.QualifiedName}
				if s.Key != h.Symbol.Key && (in.IncludeTests || !s.TestOnly) && graph.SameKindFamily(s.Kind, h.Symbol.Kind) && (other == n || !picked[other]) {
					picked[other] = true
					defs = append(defs, graph.TextHit{Symbol: s, Score: h.Score})
				}
			}
		}
		for _, d := range defs {
			sym := d.Symbol
			v.Use(sym.Repository)
			out.Results = append(out.Results, SearchHit{Rank: rank, QualifiedName: sym.QualifiedName, PackagePath: sym.PackagePath,
				Kind: string(sym.Kind), Repository: sym.Repository, Path: sym.Path, StartLine: sym.StartLine, EndLine: sym.EndLine,
				Signature: sym.Signature, Summary: answer.DocSentence(sym.Doc), StableKey: sym.Key, Score: math.Round(d.Score*100) / 100})
		}
	}
	out.Envelope = v.Envelope()
	out.Page(len(out.Results), 0, len(out.Results), "", "")
	// The best match comes with its body (each of its definitions in its
	// package, per platform, while they fit); the other hits with their
	// signature and doc summary, enough to pick one and read_source it,
	// unless their body is as short as that. A lower hit's long body costs
	// an agent that wanted the best match more than the rest of the answer
	// together, and it is one call away.
	limitBytes := budget * 4
	syms := map[string]graph.Symbol{}
	for _, h := range ranked {
		syms[h.Symbol.Key] = h.Symbol
	}
	for i := range out.Results {
		r := &out.Results[i]
		best := r.Rank == 1 && r.PackagePath == out.Results[0].PackagePath
		if !best && r.EndLine-r.StartLine >= briefBodyLines {
			continue
		}
		sym, ok := syms[r.StableKey]
		if !ok {
			if sym, err = v.Reader().SymbolByKey(ctx, r.StableKey); err != nil {
				continue
			}
		}
		vs, err := srcfile.Verify(ctx, v, s.files, sym)
		if err != nil {
			out.Withheld = append(out.Withheld, pkgBase(r.PackagePath)+"."+r.QualifiedName+" (file changed; not found)")
			continue
		}
		r.Source, r.SourceLine = vs.File.Text(vs.Decl.Line, vs.To), vs.Decl.Line
		r.StartLine, r.EndLine = vs.Decl.Line, vs.To
		if len(out.Text()) > limitBytes-120 {
			r.Source, r.SourceLine = "", 0
			out.Withheld = append(out.Withheld, pkgBase(r.PackagePath)+"."+r.QualifiedName)
		}
	}
	if len(out.Text()) > limitBytes {
		// Even the headers overflow a small budget: drop hits from the end.
		for len(out.Results) > 1 && len(out.Text()) > limitBytes {
			out.Results = out.Results[:len(out.Results)-1]
			out.Truncated = true
		}
		out.Returned = len(out.Results)
	}
	return out, nil
}

// Text renders the ranked hits, each with its source when it fit.
func (o *SearchCodeOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "search: %s\n", strings.Join(o.Words, " "))
	if len(o.Results) == 0 {
		b.WriteString("no symbol matches; try other words, or find_symbol for a name\n")
	}
	brief := false
	for _, r := range o.Results {
		fmt.Fprintf(&b, "%d. %s.%s (%s) %s:%d-%d\n", r.Rank, pkgBase(r.PackagePath), r.QualifiedName, r.Kind, r.Path, r.StartLine, r.EndLine)
		if r.Source == "" {
			fmt.Fprintf(&b, "   %s\n", quoteContent(r.Signature))
			if r.Summary != "" {
				fmt.Fprintf(&b, "   // %s\n", quoteContent(r.Summary))
			}
			brief = true
			continue
		}
		for i, line := range strings.Split(r.Source, "\n") {
			fmt.Fprintf(&b, "%d\t%s\n", r.SourceLine+i, quoteContent(line))
		}
	}
	if brief && len(o.Withheld) == 0 {
		b.WriteString("(read_source path::Name for the bodies not shown)\n")
	}
	if len(o.Withheld) > 0 {
		fmt.Fprintf(&b, "source withheld for the %d-token budget (use read_source): %s\n", o.Budget, strings.Join(o.Withheld, ", "))
	}
	if o.Truncated {
		fmt.Fprintf(&b, "more hits left out for the budget\n")
	}
	writeFreshness(&b, o.Envelope)
	return b.String()
}

// pkgBase is the last element of an import path.
func pkgBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// namesSymbol reports whether the question spells the symbol's name as a
// word of its own (Parse, parse, Command.Execute), not merely its parts.
func namesSymbol(question string, sym graph.Symbol) bool {
	for _, f := range strings.FieldsFunc(question, func(r rune) bool {
		return r == ' ' || r == ',' || r == '?' || r == '(' || r == ')' || r == '`' || r == '"' || r == '\''
	}) {
		if strings.EqualFold(f, sym.Name) || f == sym.QualifiedName {
			return true
		}
	}
	return false
}
