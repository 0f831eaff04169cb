// Package rank orders search_code's full-text hits by what BM25 does not
// see: a question's words with their synonyms, abbreviations and
// inflections, the symbol's kind, whether it is public API, how much of
// the question its name, doc summary and results say, whether the question
// names its package, how often it is referenced and whether it is
// deprecated.
package rank

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// RefPool is how many of the best hits get their references counted and
// their deprecation weighed.
const RefPool = 40

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
	"launch": {"start", "run"}, "print": {"write"}, "find": {"lookup", "search"}, "lookup": {"find"},
}

// irregular are English verbs whose forms share no root of four letters,
// each form mapped to the plain verb, so that "hide" finds MarkHidden
// ("ran" is left out: "the command that ran" is not asking for Run).
var irregular = map[string]string{
	"hidden": "hide", "hid": "hide", "found": "find", "written": "write", "wrote": "write",
	"began": "begin", "begun": "begin", "chosen": "choose", "chose": "choose", "built": "build",
	"sent": "send", "kept": "keep", "held": "hold", "thrown": "throw", "threw": "throw",
	"taken": "take", "took": "take", "given": "give", "gave": "give", "broken": "break", "broke": "break",
}

// returnWords introduce what a question wants a function to return
// ("execute the command and return the command that ran").
var returnWords = map[string]bool{"return": true, "returns": true, "returning": true, "returned": true}

// Concept is one word of a question with the other forms it may take in
// code: the full word of an abbreviation and its synonyms. A symbol covers
// the Concept when it uses any of them (in any inflection, see sameWord).
type Concept struct {
	forms  []string
	result bool // the question asks for it as a function's result
}

// Question splits a question into the words searched for: identifiers
// are split as the index splits them, stop words are dropped, each word
// once, followed by their synonyms. It also returns the question's
// concepts, one per word the question itself uses, save the words that
// say "return", which mark the concepts after them as wanted results.
func Question(q string) ([]string, []Concept) {
	var words []string
	var concepts []Concept
	seen := map[string]bool{}
	index := map[string]int{} // of a word's Concept
	results := false
	for _, w := range graph.SearchWords(q) {
		if stopWords[w] {
			continue
		}
		if returnWords[w] {
			results = true
		} else if i, ok := index[w]; ok {
			concepts[i].result = concepts[i].result || results
		} else {
			index[w] = len(concepts)
			concepts = append(concepts, Concept{forms: append(graph.ExpandAbbreviations([]string{w}), synonyms[w]...), result: results})
		}
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	for _, c := range concepts {
		for _, syn := range synonyms[c.forms[0]] {
			if !seen[syn] {
				seen[syn] = true
				words = append(words, syn)
			}
		}
	}
	// Two words of the question written apart may be one word in code
	// ("multi-line" and Multiline, "look up" and Lookup), and "not
	// decoded" is Undecoded: the word joined is searched for too, a form
	// of the concepts of the words it joins.
pairs:
	for _, pair := range compounds(q) {
		joined, of := pair[0]+pair[1], pair[:]
		if pair[0] == "not" {
			joined, of = "un"+pair[1], pair[1:]
		}
		var at []int
		for _, w := range of {
			i, ok := index[w]
			if !ok {
				continue pairs // a stop word, or "return"
			}
			at = append(at, i)
		}
		for _, i := range at {
			concepts[i].forms = append(concepts[i].forms, joined)
		}
		if !seen[joined] {
			seen[joined] = true
			words = append(words, joined)
		}
	}
	return words, concepts
}

// phrasal are verbs of two words that code writes as one (Lookup,
// Setup, Shutdown).
var phrasal = map[[2]string]bool{}

func init() {
	for _, p := range strings.Split("look up,set up,shut down,log in,log out,sign in,sign up,back up,clean up,tear down,start up,roll back,fall back,call back,check out,write back,read back", ",") {
		a, b, _ := strings.Cut(p, " ")
		phrasal[[2]string{a, b}] = true
	}
}

// compounds returns the pairs of words a question writes apart that may
// be one word in code: lower-case words joined by a hyphen, the phrasal
// verbs, and "not" with the word after it. Other neighbours are not
// joined: "string value" is two words there, not the type stringValue.
func compounds(q string) [][2]string {
	var out [][2]string
	fields := strings.Fields(q)
	for i, f := range fields {
		fields[i] = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	for i, f := range fields {
		if x, y, ok := strings.Cut(f, "-"); ok && lowerWord(x) && lowerWord(y) {
			out = append(out, [2]string{x, y})
		}
		if i+1 < len(fields) {
			if pair := [2]string{f, fields[i+1]}; phrasal[pair] || f == "not" && lowerWord(pair[1]) {
				out = append(out, pair)
			}
		}
	}
	return out
}

// lowerWord reports whether s is a word of lower-case letters.
func lowerWord(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLower(r) }) < 0
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

// The features a hit is ranked by, each the log of a factor of its score.
const (
	fText       = iota // its full-text (BM25) score
	fKind              // kindWeight
	fAPI               // public API (exported, outside internal/), test code
	fName              // how much of its name the question says, and its package (nameBoost, namesPackage)
	fCover             // how much of the question its name, doc summary and signature say (coverageBoost)
	fResult            // whether it returns what the question asks for (resultBoost)
	fUses              // how often it is referenced (of the best RefPool only)
	fDeprecated        // whether it or its package is deprecated (of the best RefPool only)
	nFeatures
)

// featureNames name the features in a trace.
var featureNames = [nFeatures]string{"text", "kind", "api", "name", "cover", "result", "uses", "deprecated"}

// weights are the features' weights: a hit's score is the exponential
// of their weighted sum, the product of its factors each raised to its
// weight. The kind's was fitted on search-bench's tuning modules
// (bench/cmd/search-fit): every fit chose 3 (cubing kindWeight: a field
// counts 0.22 of a function, a package 0.06), which lifts their written
// questions from 60 to 62 of 83 first (top five 73 to 75) and their
// generated questions' top five from 24 to 26 of 220, with the context
// bench unchanged. The others stay 1: fitted too, they gained one
// written question on a module left out of the fit and cost the context
// bench a top five.
var weights = [nFeatures]float64{1, 3, 1, 1, 1, 1, 1, 1}

type features [nFeatures]float64

func (f *features) score() float64 {
	s := 0.0
	for i, x := range f {
		s += weights[i] * x
	}
	return math.Exp(s)
}

// Hits re-scores full-text hits with what BM25 does not see: the
// symbol's kind, whether it is public API, how much of the question its
// name, doc summary and results say, whether the question names its
// package, how often it is referenced and whether it is deprecated.
func Hits(ctx context.Context, v *session.View, hits []graph.TextHit, concepts []Concept, includeTests bool) []graph.TextHit {
	var b strings.Builder // initials; += would copy them once per Concept
	for _, c := range concepts {
		b.WriteString(c.forms[0][:1])
	}
	initials := b.String()
	caches := map[string]*wordsCache{}
	var all []scored
	for _, h := range hits {
		if h.Symbol.TestOnly && !includeTests {
			continue
		}
		repo := h.Symbol.Repository
		c, ok := caches[repo]
		if !ok {
			c = wordsCacheOf(ctx, v, repo)
			caches[repo] = c
		}
		f := hitFeatures(h, c.of(h.Symbol), concepts, initials)
		h.Score = f.score()
		all = append(all, scored{h, f})
	}
	sort.SliceStable(all, func(i, j int) bool { return hitLess(all[i].hit, all[j].hit) })
	pool := RefPool
	if tracing() {
		pool = len(all) // every hit's features for the trace
	}
	best := make([]graph.TextHit, min(len(all), pool))
	for i := range best {
		best[i] = all[i].hit
	}
	uses, err := useCounts(ctx, v, best, caches)
	for i := range best {
		sym, f := &all[i].hit.Symbol, &all[i].f
		if err == nil {
			f[fUses] = math.Log1p(0.15 * math.Log1p(float64(uses[sym.Key])))
		}
		// What its doc or its package's doc calls deprecated is kept for
		// old callers; a question is after what to use now.
		if caches[sym.Repository].packageDeprecated(ctx, v, sym) || deprecated(sym.Doc) {
			f[fDeprecated] = math.Log(0.5)
		}
		if i < RefPool {
			all[i].hit.Score = f.score()
		}
	}
	trace(concepts, all)
	out := make([]graph.TextHit, len(all))
	for i := range all {
		out[i] = all[i].hit
	}
	sort.SliceStable(out, func(i, j int) bool { return hitLess(out[i], out[j]) })
	return out
}

// scored is a hit with its features.
type scored struct {
	hit graph.TextHit
	f   features
}

// useCounts returns how often each of hits is referenced, tests
// included: from the caches where they hold it, the rest in one query.
// A count is kept with the snapshot of the hit's repository, so uses
// another repository's later snapshot adds are counted once this one
// changes too.
func useCounts(ctx context.Context, v *session.View, hits []graph.TextHit, caches map[string]*wordsCache) (map[string]int, error) {
	uses := make(map[string]int, len(hits))
	var missing []string
	for _, h := range hits {
		if n, ok := caches[h.Symbol.Repository].uses(h.Symbol.Key); ok {
			uses[h.Symbol.Key] = n
		} else {
			missing = append(missing, h.Symbol.Key)
		}
	}
	if len(missing) == 0 {
		return uses, nil
	}
	refs, _, err := v.Reader().Refs(ctx, graph.RefQuery{Targets: missing, IncludeTests: true})
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		uses[r.Target]++
	}
	for _, h := range hits {
		if slices.Contains(missing, h.Symbol.Key) {
			caches[h.Symbol.Repository].setUses(h.Symbol.Key, uses[h.Symbol.Key])
		}
	}
	return uses, nil
}

// symWords is what the re-ranking derives from a symbol's text, each
// list with abbreviations expanded: a question's best hits are often
// another's, and a snapshot's symbols do not change.
type symWords struct {
	name    [][]string // each word of its name, with its expansions (see nameBoost)
	cover   []string   // its qualified name, doc summary and package name (see coverageBoost)
	sig     []string   // its signature's, "" last
	results []string   // its results', for a function or method (see resultBoost)
}

// deriveWords makes the symWords of sym.
func deriveWords(sym graph.Symbol) *symWords {
	sw := &symWords{}
	words := graph.SearchWords(sym.Name)
	if len(words) > 1 {
		words = words[:len(words)-1] // the joined form SearchWords appends
	}
	for _, w := range words {
		sw.name = append(sw.name, graph.ExpandAbbreviations([]string{w}))
	}
	sw.cover = append(graph.ExpandAbbreviations(graph.SearchWords(sym.QualifiedName)), summaryWords(sym.Doc, sym.Name)...)
	sw.cover = append(sw.cover, sym.PackageName)
	sw.sig = append(graph.ExpandAbbreviations(graph.SearchWords(sym.Signature)), "")
	if sym.Kind == graph.KindFunc || sym.Kind == graph.KindMethod || sym.Kind == graph.KindInterfaceMethod {
		sw.results = graph.ExpandAbbreviations(graph.SearchWords(resultsOf(sym.Signature, sym.Name)))
	}
	return sw
}

// wordsCache keeps, for the calls that follow, what the re-ranking
// reads of a repository's snapshot: each symbol's symWords and
// reference count, by key, and whether each package is deprecated; a
// nil cache keeps nothing.
type wordsCache struct {
	mu         sync.Mutex
	m          map[string]*symWords
	refs       map[string]int
	deprecated map[string]bool // by package path
}

// maxCachedWords bounds each map of a wordsCache: past it, the map
// starts afresh.
const maxCachedWords = 20_000

// wordsCacheOf returns the session's wordsCache of repo's pinned
// snapshot, nil when the session has no facts of it.
func wordsCacheOf(ctx context.Context, v *session.View, repo string) *wordsCache {
	facts, err := v.Facts(ctx, repo)
	if err != nil {
		return nil
	}
	c, err := facts.Memo("rank.words", func() (any, error) {
		return &wordsCache{m: map[string]*symWords{}, refs: map[string]int{}, deprecated: map[string]bool{}}, nil
	})
	if err != nil {
		return nil
	}
	return c.(*wordsCache)
}

// of returns the symWords of sym, made on first use.
func (c *wordsCache) of(sym graph.Symbol) *symWords {
	if c == nil {
		return deriveWords(sym)
	}
	c.mu.Lock()
	sw := c.m[sym.Key]
	c.mu.Unlock()
	if sw != nil {
		return sw
	}
	sw = deriveWords(sym)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = bounded(c.m)
	c.m[sym.Key] = sw
	return sw
}

// uses returns the reference count of key when the cache holds it.
func (c *wordsCache) uses(key string) (int, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.refs[key]
	return n, ok
}

func (c *wordsCache) setUses(key string, n int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refs = bounded(c.refs)
	c.refs[key] = n
}

// packageDeprecated reports whether the doc of sym's package calls it
// deprecated.
func (c *wordsCache) packageDeprecated(ctx context.Context, v *session.View, sym *graph.Symbol) bool {
	if c != nil {
		c.mu.Lock()
		dep, ok := c.deprecated[sym.PackagePath]
		c.mu.Unlock()
		if ok {
			return dep
		}
	}
	pkgs, err := v.Reader().LookupSymbols(ctx, graph.Lookup{QualifiedName: sym.PackagePath, PackagePath: sym.PackagePath, Repository: sym.Repository})
	if err != nil {
		return false // not kept: the next call asks again
	}
	dep := false
	for _, p := range pkgs {
		dep = dep || p.Kind == graph.KindPackage && deprecated(p.Doc)
	}
	if c != nil {
		c.mu.Lock()
		c.deprecated = bounded(c.deprecated)
		c.deprecated[sym.PackagePath] = dep
		c.mu.Unlock()
	}
	return dep
}

// bounded returns m, or a new map when m holds maxCachedWords entries.
func bounded[V any](m map[string]V) map[string]V {
	if len(m) >= maxCachedWords {
		return map[string]V{}
	}
	return m
}

// hitFeatures returns a hit's features but its uses and deprecation,
// which Hits weighs for the best hits only.
func hitFeatures(h graph.TextHit, sw *symWords, concepts []Concept, initials string) features {
	var f features
	sym := h.Symbol
	f[fText] = math.Log(max(h.Score, 1e-9))
	f[fKind] = math.Log(kindWeight(sym.Kind))
	// Public API (exported, outside internal/) over what only its own
	// module may use.
	api := 1.0
	switch {
	case sym.Exported && !isInternal(sym.PackagePath):
		api = 1.5
	case sym.Exported:
		api = 1.2
	}
	if sym.TestOnly {
		api *= 0.5
	}
	f[fAPI] = math.Log(api)
	name := nameBoost(sw, concepts)
	if namesPackage(sym.PackageName, concepts, initials) {
		name += 0.3
	}
	f[fName] = math.Log(name)
	f[fCover] = math.Log(coverageBoost(sw, concepts))
	f[fResult] = math.Log(resultBoost(sw, concepts))
	return f
}

func hitLess(a, b graph.TextHit) bool {
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
}

// nameBoost favours symbols the question names: the share of the words of
// the symbol's own name (abbreviations expanded) that the question uses.
func nameBoost(sw *symWords, concepts []Concept) float64 {
	words := sw.name
	if len(words) == 0 {
		return 1
	}
	hit := 0
	for _, w := range words {
		if coversAny(concepts, w) {
			hit++
		}
	}
	// A one-word name matched counts less than a longer one: "name" in a
	// question says less than "suggestions for".
	return 1 + float64(hit)/float64(len(words))*(0.5+0.25*float64(min(hit, 2)))
}

// coverageBoost favours symbols that say most of what the question asks:
// the share of its concepts found in the symbol's qualified name, the
// first sentence of its doc comment (which by Go convention says what it
// is or does) or its package name, and at sigCredit those found only in
// its signature.
func coverageBoost(sw *symWords, concepts []Concept) float64 {
	if len(concepts) == 0 {
		return 1
	}
	hit := 0.0
	for _, c := range concepts {
		if covers(c, sw.cover) {
			hit++
			continue
		}
		if covers(c, sw.sig) {
			hit += sigCredit
		}
	}
	return 1 + hit/float64(len(concepts))
}

// sigCredit is what a concept found only in a symbol's signature (its
// parameters, results and their types: "into a pointer v", "returns a
// bool") counts in coverageBoost, beside one in its name or doc
// summary. Fitted on search-bench's tuning modules (0, 0.5 and 1 tried:
// 0.5 lifted their generated questions' top-5 from 21 to 25 of 220
// without moving context-bench's 28/36 first and 33/36 top-5; 1 lifted
// them to 28 but cost context-bench a top-5).
const sigCredit = 0.5

// resultBoost favours functions whose results are what the question asks
// to be returned: "return the command" and func() (*Command, error).
func resultBoost(sw *symWords, concepts []Concept) float64 {
	want, hit := 0, 0
	for _, c := range concepts {
		if c.result {
			want++
			if covers(c, sw.results) {
				hit++
			}
		}
	}
	if hit == 0 {
		return 1
	}
	return 1 + 0.5*float64(hit)/float64(want)
}

// resultsOf returns the result list of a function signature as printed
// in the index ("func (c *T) Name[P any](a int) (x *T, err error)" gives
// "(x *T, err error)"), or "" when it has none or sig is not one.
func resultsOf(sig, name string) string {
	i := strings.Index(sig, " "+name+"(")
	if i < 0 {
		if i = strings.Index(sig, " "+name+"["); i < 0 {
			return ""
		}
	}
	depth, seenParams := 0, false
	for j := i + 1 + len(name); j < len(sig); j++ {
		switch sig[j] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth == 0 && sig[j] == ')' {
				seenParams = true
			}
		}
		if seenParams && depth == 0 {
			return strings.TrimSpace(sig[j+1:])
		}
	}
	return ""
}

// summaryWords returns the words of the first sentence of a doc comment,
// abbreviations expanded, without the symbol's own name it usually starts
// with.
func summaryWords(doc, name string) []string {
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	for i := 0; i+1 < len(doc); i++ {
		if doc[i] == '.' && (doc[i+1] == ' ' || doc[i+1] == '\n') {
			doc = doc[:i]
			break
		}
	}
	fields := strings.Fields(doc)
	if len(fields) > 0 && (fields[0] == "A" || fields[0] == "An" || fields[0] == "The") {
		fields = fields[1:]
	}
	if len(fields) > 0 && fields[0] == name {
		fields = fields[1:]
	}
	return graph.ExpandAbbreviations(graph.SearchWords(strings.Join(fields, " ")))
}

// deprecated reports whether a doc comment has a paragraph that starts
// with "Deprecated:", Go's convention for an API kept only for old users.
func deprecated(doc string) bool {
	return strings.HasPrefix(doc, "Deprecated:") || strings.Contains(doc, "\n\nDeprecated:")
}

// covers reports whether any of words is a form of the Concept.
func covers(c Concept, words []string) bool {
	for _, w := range words {
		for _, f := range c.forms {
			if sameWord(f, w) {
				return true
			}
		}
	}
	return false
}

// coversAny reports whether words cover any of the concepts.
func coversAny(concepts []Concept, words []string) bool {
	for _, c := range concepts {
		if covers(c, words) {
			return true
		}
	}
	return false
}

// namesPackage reports whether the question names package pkg: as one of
// its words, as words run together (objectpath), or by initials (rta for
// "rapid type analysis").
func namesPackage(pkg string, concepts []Concept, initials string) bool {
	if pkg == "" {
		return false
	}
	if coversAny(concepts, []string{pkg}) {
		return true
	}
	if len(pkg) >= 3 && strings.Contains(initials, pkg) {
		return true
	}
	covered := 0
	for _, c := range concepts {
		for _, w := range c.forms {
			if w = stem(w); len(w) >= 3 && strings.Contains(pkg, w) {
				covered += len(w)
				break
			}
		}
	}
	return covered*10 >= len(pkg)*8
}

// derivations are the endings by which words of one root differ:
// inflections and the common derivations of English (parse, parser,
// parsing; delete, deletion; analyze, analysis).
var derivations = map[string]bool{"": true, "e": true, "s": true, "es": true, "ed": true, "er": true, "ers": true,
	"or": true, "ors": true, "ing": true, "ion": true, "ions": true, "ation": true, "ations": true,
	"ment": true, "ments": true, "ize": true, "izes": true, "yze": true, "yzes": true, "ysis": true}

// sameWord reports whether two lower-case words are forms of one word:
// equal once inflections are folded (stem), or a common root of at least
// four letters followed by endings of derivations.
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	// Forms of one word start alike: stem and derivations change endings,
	// and every irregular form starts as its verb does (TestIrregularFirst).
	// Most pairs a ranking compares differ there, and stop here.
	if a == "" || b == "" || a[0] != b[0] {
		return false
	}
	a, b = stem(a), stem(b)
	if a == b {
		return true
	}
	if v, ok := irregular[a]; ok && v == b {
		return true
	}
	if v, ok := irregular[b]; ok && v == a {
		return true
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for ; p >= 4; p-- {
		if derivations[a[p:]] && derivations[b[p:]] {
			return true
		}
	}
	return false
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
