package main

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// The baselines' names in the results.
const (
	methodGrep = "grep"
	methodBM25 = "bm25"
)

// stopWords are the question words neither baseline searches for.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by can code do does for from how i if in is it its
		of on or that the this to what when where which who why with me my we you there
		not no all any one this these those has have had was were will would should may
		into than then them they their so such but also only each`) {
		stopWords[w] = true
	}
}

// doc is one declaration both baselines rank.
type doc struct {
	pkg, qn, key string
	docText      string // its doc comment, lower-cased (grep)
	source       string // its declaration as in the file, lower-cased (grep)
	nameTerms    []string
	docTerms     []string
}

// corpus is one module's declarations, read once, for the baselines.
type corpus struct {
	docs  []doc
	byKey map[string]int
	// BM25 over names and doc comments.
	postings map[string][]posting
	lengths  []int
	total    int
}

type posting struct{ doc, tf int }

// newCorpus reads the declarations of syms (outside tests; no fields,
// interface methods or packages) from the files under dir.
func newCorpus(dir string, syms []graph.Symbol) (*corpus, error) {
	c := &corpus{byKey: map[string]int{}, postings: map[string][]posting{}}
	files := map[string][]string{}
	for _, s := range syms {
		switch s.Kind {
		case graph.KindFunc, graph.KindMethod, graph.KindType, graph.KindInterface, graph.KindConst, graph.KindVar:
		default:
			continue
		}
		if s.TestOnly {
			continue
		}
		lines, ok := files[s.Path]
		if !ok {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s.Path)))
			if err != nil {
				return nil, err
			}
			lines = strings.Split(strings.ToLower(string(b)), "\n")
			files[s.Path] = lines
		}
		src := ""
		if s.StartLine >= 1 && s.EndLine <= len(lines) && s.StartLine <= s.EndLine {
			src = strings.Join(lines[s.StartLine-1:s.EndLine], "\n")
		}
		d := doc{pkg: s.PackagePath, qn: s.QualifiedName, key: s.Key, docText: strings.ToLower(s.Doc), source: withoutDoc(src, s.Doc),
			nameTerms: graph.SearchWords(s.QualifiedName), docTerms: graph.SearchWords(s.Doc)}
		c.byKey[s.Key] = len(c.docs)
		c.docs = append(c.docs, d)
	}
	for i, d := range c.docs {
		tf := map[string]int{}
		for _, t := range d.nameTerms {
			tf[t]++
		}
		for _, t := range d.docTerms {
			tf[t]++
		}
		for t, n := range tf {
			c.postings[t] = append(c.postings[t], posting{i, n})
		}
		n := len(d.nameTerms) + len(d.docTerms)
		c.lengths = append(c.lengths, n)
		c.total += n
	}
	return c, nil
}

// withoutDoc returns a declaration's source without the lines of its
// doc comment, which a Python docstring puts inside the declaration: the
// lines whose text, without indentation and quotes, is a line of doc.
// grepRank counts the doc comment apart, so that it can mask it.
func withoutDoc(src, doc string) string {
	docLines := map[string]bool{}
	for l := range strings.Lines(strings.ToLower(doc)) {
		if l = strings.TrimSpace(l); l != "" {
			docLines[l] = true
		}
	}
	if len(docLines) == 0 {
		return src
	}
	var b strings.Builder
	for l := range strings.Lines(src) {
		if docLines[strings.TrimSpace(strings.Trim(strings.TrimSpace(l), `"'`))] {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// queryWords are a question's words, lower-cased, without stop words,
// each once.
func queryWords(q string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}) {
		if len(f) > 1 && !stopWords[f] && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// grepRank is what an agent gets without Sextant: it greps for each word
// of the question, case-insensitively, and reads the declarations with
// the most of the question's words first, then the most hits. The
// target's doc comment is masked (it is not grepped).
func (c *corpus) grepRank(q question, limit int) int {
	words := queryWords(q.Question)
	type hit struct {
		doc, words, hits int
	}
	var hits []hit
	for i, d := range c.docs {
		h := hit{doc: i}
		for _, w := range words {
			n := strings.Count(d.source, w)
			if d.key != q.Key {
				n += strings.Count(d.docText, w)
			}
			if n > 0 {
				h.words++
				h.hits += n
			}
		}
		if h.words > 0 {
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Or(b.words-a.words, b.hits-a.hits) })
	order := make([]int, len(hits))
	for i, h := range hits {
		order[i] = h.doc
	}
	return c.rankOf(order, q, limit)
}

// BM25's parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25Rank is plain BM25 over each declaration's name and doc comment
// as words (identifiers split), no stemming, no weights; the target's doc
// comment is masked: its words count neither in its row nor in the
// collection's statistics.
func (c *corpus) bm25Rank(q question, limit int) int {
	words := graph.SearchWords(q.Question)
	var terms []string
	for _, w := range words {
		if !stopWords[w] && !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	target, masked := c.byKey[q.Key]
	masked = masked && q.Key != ""
	n := float64(len(c.docs))
	total := c.total
	if masked {
		total -= len(c.docs[target].docTerms)
	}
	avg := float64(total) / n
	scores := map[int]float64{}
	for _, t := range terms {
		ps := c.postings[t]
		df := len(ps)
		var targetTF int
		if masked {
			for _, p := range ps {
				if p.doc == target {
					df--
					targetTF = count(c.docs[target].nameTerms, t)
					if targetTF > 0 {
						df++
					}
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for _, p := range ps {
			tf, dl := p.tf, c.lengths[p.doc]
			if masked && p.doc == target {
				tf, dl = targetTF, len(c.docs[target].nameTerms)
				if tf == 0 {
					continue
				}
			}
			scores[p.doc] += idf * float64(tf) * (bm25K1 + 1) / (float64(tf) + bm25K1*(1-bm25B+bm25B*float64(dl)/avg))
		}
	}
	order := make([]int, 0, len(scores))
	for d := range scores {
		order = append(order, d)
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(scores[b], scores[a]), a-b) })
	return c.rankOf(order, q, limit)
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// rankOf is the 1-based rank of q's answer among the distinct names of
// order (best first), 0 when it is not among the first limit.
func (c *corpus) rankOf(order []int, q question, limit int) int {
	seen := map[[2]string]bool{}
	for _, i := range order {
		d := c.docs[i]
		name := [2]string{d.pkg, d.qn}
		if seen[name] {
			continue
		}
		seen[name] = true
		if len(seen) > limit {
			return 0
		}
		if q.matches(d.pkg, d.qn) {
			return len(seen)
		}
	}
	return 0
}
