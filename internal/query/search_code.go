package query

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Bounds of search_code.
const (
	defaultSearchLimit  = 5
	maxSearchLimit      = 20
	defaultSearchBudget = 2000
	searchPool          = 200 // full-text hits re-ranked
	searchRefPool       = 40  // of those, how many get their references counted
	maxDefinitions      = 8   // further definitions of one name listed with it
)

// SearchCodeInput is the input of search_code.
type SearchCodeInput struct {
	Question     string `json:"question" jsonschema:"what the code does, in words (e.g. parse the config file)"`
	Repository   string `json:"repository,omitempty" jsonschema:"search one repository, by name"`
	Limit        int    `json:"limit,omitempty" jsonschema:"symbols to return, 1 to 20 (default 5)"`
	Budget       int    `json:"budget,omitempty" jsonschema:"max tokens, 150 to 8000 (default 2000)"`
	IncludeTests bool   `json:"include_tests,omitempty" jsonschema:"also rank symbols of _test.go files"`
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
	Source        string  `json:"source,omitempty" jsonschema:"its source from disk, when the budget allowed"`
	SourceLine    int     `json:"source_line,omitempty" jsonschema:"first line of source"`
}

// SearchCodeOutput is the answer of search_code.
type SearchCodeOutput struct {
	Envelope
	Words    []string    `json:"words" jsonschema:"the words searched for"`
	Budget   int         `json:"budget" jsonschema:"token budget applied"`
	Results  []SearchHit `json:"results" jsonschema:"best first"`
	Withheld []string    `json:"withheld,omitempty" jsonschema:"hits whose source did not fit; use read_source"`
}

// stopWords are question words that say nothing about the code.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by can code do does for from how i if in is it its
		of on or that the this to what when where which who why with me my we you there
		defined declared located`) {
		stopWords[w] = true
	}
}

// synonyms are words a question may use for what code and its docs say
// otherwise; each is searched for as well.
var synonyms = map[string][]string{
	"walk": {"traverse", "visit"}, "traverse": {"walk", "visit"}, "visit": {"walk", "traverse"},
	"ast": {"syntax"}, "remove": {"delete"}, "delete": {"remove"}, "create": {"new", "make"},
	"make": {"new", "create"}, "stop": {"close", "shutdown"}, "begin": {"start"}, "start": {"begin", "run"},
	"launch": {"start", "run"}, "print": {"write"},
}

// questionWords splits a question into the words searched for: identifiers
// are split as the index splits them, stop words are dropped, each word
// once.
func questionWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range graph.SearchWords(q) {
		if stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	for _, w := range out {
		for _, syn := range synonyms[w] {
			if !seen[syn] {
				seen[syn] = true
				out = append(out, syn)
			}
		}
	}
	return out
}

// kindWeight scales a hit by its kind: declarations an agent reads (funcs,
// methods, types) over fields and package-level values.
func kindWeight(k graph.Kind) float64 {
	switch k {
	case graph.KindFunc, graph.KindMethod, graph.KindType, graph.KindInterface:
		return 1.0
	case graph.KindInterfaceMethod, graph.KindConst, graph.KindVar:
		return 0.8
	case graph.KindPackage:
		return 0.4
	}
	return 0.6 // fields
}

// SearchCode finds the symbols that best match a question in words.
func (s *Service) SearchCode(ctx context.Context, in SearchCodeInput, progress func(Progress)) (*SearchCodeOutput, error) {
	if err := checkSelectors("question", in.Question, "repository", in.Repository); err != nil {
		return nil, err
	}
	words := questionWords(in.Question)
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
	budget := in.Budget
	switch {
	case budget == 0:
		budget = defaultSearchBudget
	case budget < minSourceBudget || budget > maxSourceBudget:
		return nil, invalid("budget", "must be from %d to %d tokens (got %d)", minSourceBudget, maxSourceBudget, budget)
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.close()
	q := graph.TextQuery{Words: words, Limit: searchPool}
	if in.Repository != "" {
		if _, err := v.repo(in.Repository); err != nil {
			return nil, err
		}
		q.Repositories = []string{in.Repository}
	}
	hits, err := v.r.SearchText(ctx, q)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "searching")
	}
	ranked := v.rankHits(ctx, hits, words, in.IncludeTests)
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
		same, err := v.r.LookupSymbols(ctx, lookup)
		if err == nil {
			for _, s := range same {
				if len(defs) > maxDefinitions {
					break
				}
				other := name{s.PackagePath, s.QualifiedName}
				if s.Key != h.Symbol.Key && (in.IncludeTests || !s.TestOnly) && sameKindFamily(s.Kind, h.Symbol.Kind) && (other == n || !picked[other]) {
					picked[other] = true
					defs = append(defs, graph.TextHit{Symbol: s, Score: h.Score})
				}
			}
		}
		for _, d := range defs {
			sym := d.Symbol
			v.use(sym.Repository)
			out.Results = append(out.Results, SearchHit{Rank: rank, QualifiedName: sym.QualifiedName, PackagePath: sym.PackagePath,
				Kind: string(sym.Kind), Repository: sym.Repository, Path: sym.Path, StartLine: sym.StartLine, EndLine: sym.EndLine,
				Signature: sym.Signature, StableKey: sym.Key, Score: math.Round(d.Score*100) / 100})
		}
	}
	out.Envelope = v.envelope()
	out.page(len(out.Results), 0, len(out.Results), "", "")
	// Bodies in rank order while they fit; the headers always do.
	limitBytes := budget * 4
	syms := map[string]graph.Symbol{}
	for _, h := range ranked {
		syms[h.Symbol.Key] = h.Symbol
	}
	for i := range out.Results {
		r := &out.Results[i]
		sym, ok := syms[r.StableKey]
		if !ok {
			if sym, err = v.r.SymbolByKey(ctx, r.StableKey); err != nil {
				continue
			}
		}
		vs, err := v.verify(ctx, sym)
		if err != nil {
			out.Withheld = append(out.Withheld, pkgBase(r.PackagePath)+"."+r.QualifiedName+" (file changed; not found)")
			continue
		}
		r.Source, r.SourceLine = vs.file.text(vs.decl.Line, vs.to), vs.decl.Line
		r.StartLine, r.EndLine = vs.decl.Line, vs.to
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

// rankHits re-scores full-text hits with graph signals: kind, exported,
// test-only, and how often the symbol is referenced.
func (v *view) rankHits(ctx context.Context, hits []graph.TextHit, words []string, includeTests bool) []graph.TextHit {
	qstems := map[string]bool{}
	for _, w := range graph.ExpandAbbreviations(words) {
		qstems[stem(w)] = true
	}
	var initials string
	for _, w := range words {
		initials += w[:1]
	}
	var out []graph.TextHit
	for _, h := range hits {
		if h.Symbol.TestOnly && !includeTests {
			continue
		}
		score := h.Score * kindWeight(h.Symbol.Kind)
		// Public API (exported, outside internal/) over what only its
		// own module may use.
		switch {
		case h.Symbol.Exported && !isInternal(h.Symbol.PackagePath):
			score *= 1.5
		case h.Symbol.Exported:
			score *= 1.2
		}
		if h.Symbol.TestOnly {
			score *= 0.5
		}
		h.Score = score * nameBoost(h.Symbol, qstems, initials)
		out = append(out, h)
	}
	sortHits(out)
	for i := range out[:min(len(out), searchRefPool)] {
		_, n, err := v.r.Refs(ctx, graph.RefQuery{Targets: []string{out[i].Symbol.Key}, IncludeTests: true, Limit: 1})
		if err == nil {
			out[i].Score *= 1 + 0.15*math.Log1p(float64(n))
		}
	}
	sortHits(out)
	return out
}

func sortHits(hs []graph.TextHit) {
	sort.SliceStable(hs, func(i, j int) bool {
		a, b := hs[i], hs[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Symbol.Repository != b.Symbol.Repository {
			return a.Symbol.Repository < b.Symbol.Repository
		}
		if a.Symbol.Path != b.Symbol.Path {
			return a.Symbol.Path < b.Symbol.Path
		}
		return a.Symbol.StartLine < b.Symbol.StartLine
	})
}

// Text renders the ranked hits, each with its source when it fit.
func (o *SearchCodeOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "search: %s\n", strings.Join(o.Words, " "))
	if len(o.Results) == 0 {
		b.WriteString("no symbol matches; try other words, or find_symbol for a name\n")
	}
	for _, r := range o.Results {
		fmt.Fprintf(&b, "%d. %s.%s (%s) %s:%d-%d\n", r.Rank, pkgBase(r.PackagePath), r.QualifiedName, r.Kind, r.Path, r.StartLine, r.EndLine)
		if r.Source == "" {
			fmt.Fprintf(&b, "   %s\n", quoteContent(r.Signature))
			continue
		}
		for i, line := range strings.Split(r.Source, "\n") {
			fmt.Fprintf(&b, "%d\t%s\n", r.SourceLine+i, quoteContent(line))
		}
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

// nameBoost favours symbols the question names: the share of the words of
// the symbol's own name (abbreviations expanded) that the question uses,
// and whether it names the symbol's package.
func nameBoost(sym graph.Symbol, qstems map[string]bool, initials string) float64 {
	words := graph.SearchWords(sym.Name)
	if len(words) > 1 {
		words = words[:len(words)-1] // the joined form SearchWords appends
	}
	hit := 0
	for _, w := range words {
		full, ok := graph.ExpandAbbreviations([]string{w}), false
		for _, f := range full {
			ok = ok || qstems[stem(f)]
		}
		if ok {
			hit++
		}
	}
	boost := 1.0
	if len(words) > 0 {
		// A one-word name matched counts less than a longer one: "name"
		// in a question says less than "suggestions for".
		boost += float64(hit) / float64(len(words)) * (0.5 + 0.25*float64(min(hit, 2)))
	}
	if namesPackage(sym.PackageName, qstems, initials) {
		boost += 0.3
	}
	return boost
}

// namesPackage reports whether the question names package pkg: as one of
// its words, as words run together (objectpath), or by initials (rta for
// "rapid type analysis").
func namesPackage(pkg string, qstems map[string]bool, initials string) bool {
	if pkg == "" || qstems[stem(pkg)] {
		return pkg != ""
	}
	if len(pkg) >= 3 && strings.Contains(initials, pkg) {
		return true
	}
	covered := 0
	for w := range qstems {
		if len(w) >= 3 && strings.Contains(pkg, w) {
			covered += len(w)
		}
	}
	return covered*10 >= len(pkg)*8
}

// stem folds the common English inflections of a lower-case word, enough
// to match "profiles" with "profile" and "matches" with "match".
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	}
	return w
}

// isInternal reports whether an import path is under an internal/ directory.
func isInternal(p string) bool {
	return strings.HasPrefix(p, "internal/") || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal")
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
