// Package textindex is the stores' full-text search in memory: per
// snapshot, the terms of each symbol's search row (name, doc comment,
// signature, body, paths, as sqlbase.SearchColumns writes them) with
// their weighted counts, and BM25 over them as SQLite's FTS5 computes it
// for search_code (its tokenizer "porter unicode61", its bm25() with the
// column weights of Weights).
//
// SQLite's full-text query computed BM25 for every row that held any of
// a question's words before the best were known (on prometheus a fifth
// of the rows, half of a search_code call's time, most of it reading
// each row's length); here a question is scored from postings in memory
// in a small fraction of that. Both stores rank through it, so a
// question gets the same answer from either. What differs from FTS5:
// the statistics (row count, average length, how many rows hold a term)
// are those of the repositories searched, not of every row the database
// holds, which is the same for a database of one repository.
package textindex

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
)

// Fields is the number of columns of a search row: name, doc,
// signature, body, path.
const Fields = 5

// Weights are the BM25 weights of the fields, in order: a word in the
// name says most about what a symbol is, a word of its doc or signature
// somewhat less, a literal in its body or a path element least. Tuned on
// the search_code question set in bench/.
var Weights = [Fields]uint32{10, 4, 2, 1, 3}

// BM25's parameters, FTS5's.
const (
	k1 = 1.2
	b  = 0.75
)

// Row is one symbol's search row as a store reads it, with the path and
// line that order it among the snapshot's rows.
type Row struct {
	ID     int64 // the store's row id of the symbol
	Kind   graph.Kind
	Path   string
	Line   int
	Fields [Fields]string
}

// Index is the search rows of one snapshot, numbered in the order ties
// are broken in: by path, line and row id.
type Index struct {
	ids    []int64
	kinds  []graph.Kind
	paths  []string // what orders the rows, with lines and ids
	lines  []int32
	length []uint32 // tokens of each row, all fields
	tokens int64    // tokens of all rows
	terms  map[string]int32
	post   [][]posting // by term
}

// posting is a row holding a term, with the term's count in each of
// the row's fields times the field's weight, summed.
type posting struct {
	row  uint32
	freq uint32
}

// termCount is a term of a row added to a Builder, with its weighted
// count in the row.
type termCount struct {
	term int32
	freq uint32
}

// Builder makes an Index from rows added one at a time, in any order.
type Builder struct {
	terms map[string]int32
	stems map[string]int32 // a word as tokenized → its term
	df    []int32          // by term: the rows holding it
	freq  []uint32         // by term: its weighted count in the row being added
	order []int32          // the terms of that row, in first-seen order
	docs  []doc
	pairs []termCount       // each doc's terms and counts, doc after doc
	paths map[string]string // interned: a file's rows share its path
}

// doc is a row added: what orders it, and where its terms are in pairs.
type doc struct {
	id         int64
	kind       graph.Kind
	path       string
	line       int
	length     uint32
	start, end int
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{terms: map[string]int32{}, stems: map[string]int32{}}
}

// Add adds a row: its words are made terms now, the row's text is not
// kept.
func (bd *Builder) Add(r Row) {
	n := uint32(0)
	for f, text := range r.Fields {
		w := Weights[f]
		Words(text, func(word string) {
			t, ok := bd.stems[word]
			if !ok {
				stem := Stem(word)
				if t, ok = bd.terms[stem]; !ok {
					t = int32(len(bd.df))
					bd.terms[stem] = t
					bd.df = append(bd.df, 0)
					bd.freq = append(bd.freq, 0)
				}
				bd.stems[strings.Clone(word)] = t
			}
			if bd.freq[t] == 0 {
				bd.order = append(bd.order, t)
			}
			bd.freq[t] += w
			n++
		})
	}
	start := len(bd.pairs)
	for _, t := range bd.order {
		bd.pairs = append(bd.pairs, termCount{term: t, freq: bd.freq[t]})
		bd.df[t]++
		bd.freq[t] = 0
	}
	bd.order = bd.order[:0]
	p, ok := bd.paths[r.Path]
	if !ok {
		if bd.paths == nil {
			bd.paths = map[string]string{}
		}
		p = r.Path
		bd.paths[p] = p
	}
	bd.docs = append(bd.docs, doc{id: r.ID, kind: r.Kind, path: p, line: r.Line, length: n, start: start, end: len(bd.pairs)})
}

// Index returns the index of the rows added; the Builder is not used
// after it.
func (bd *Builder) Index() *Index {
	bd.sortDocs()
	ix := newIndex(len(bd.docs), bd.terms, len(bd.df))
	for t, n := range bd.df {
		ix.post[t] = make([]posting, 0, n)
	}
	for row, d := range bd.docs {
		ix.setRow(uint32(row), d)
		for _, p := range bd.pairs[d.start:d.end] {
			ix.post[p.term] = append(ix.post[p.term], posting{row: uint32(row), freq: p.freq})
		}
	}
	*bd = Builder{}
	return ix
}

// sortDocs puts the docs added in the order of an index's rows.
func (bd *Builder) sortDocs() {
	slices.SortFunc(bd.docs, func(a, b doc) int { return compareRows(a.path, a.line, a.id, b.path, b.line, b.id) })
}

// compareRows orders rows by path, line and id.
func compareRows(pathA string, lineA int, idA int64, pathB string, lineB int, idB int64) int {
	return cmp.Or(strings.Compare(pathA, pathB), cmp.Compare(lineA, lineB), cmp.Compare(idA, idB))
}

// newIndex returns an index of rows rows and terms terms, its rows and
// postings to be filled in.
func newIndex(rows int, terms map[string]int32, nterms int) *Index {
	return &Index{
		ids:    make([]int64, rows),
		kinds:  make([]graph.Kind, rows),
		paths:  make([]string, rows),
		lines:  make([]int32, rows),
		length: make([]uint32, rows),
		terms:  terms,
		post:   make([][]posting, nterms),
	}
}

// setRow sets row of ix to what d is, but its terms.
func (ix *Index) setRow(row uint32, d doc) {
	ix.ids[row], ix.kinds[row], ix.paths[row], ix.lines[row], ix.length[row] = d.id, d.kind, d.path, int32(d.line), d.length
	ix.tokens += int64(d.length)
}

// Hit is a row a search found: the index it is in (its position in the
// list searched), its store row id and its score.
type Hit struct {
	Index int
	ID    int64
	Score float64
	row   uint32
}

// Search returns the best limit rows of the indexes for words, as
// FTS5's bm25() ranks a query matching any of them: best first, ties in
// the order of the indexes, then of their rows. Each word is one term
// of the query (two words of one stem count twice, as two phrases do in
// FTS5). A row of a kind not in kinds (when it is not empty) is left
// out, after the statistics are counted.
func Search(ixs []*Index, words []string, kinds []graph.Kind, limit int) []Hit {
	if limit <= 0 || len(words) == 0 {
		return nil
	}
	// The statistics, over every row of the indexes searched.
	var rows, tokens int64
	for _, ix := range ixs {
		rows += int64(len(ix.ids))
		tokens += ix.tokens
	}
	if rows == 0 {
		return nil
	}
	avg := float64(tokens) / float64(rows)
	terms := make([]string, len(words))
	idf := make([]float64, len(words))
	for i, w := range words {
		terms[i] = queryTerm(w)
		var hit int64
		for _, ix := range ixs {
			if t, ok := ix.terms[terms[i]]; ok {
				hit += int64(len(ix.post[t]))
			}
		}
		idf[i] = math.Log((float64(rows-hit) + 0.5) / (float64(hit) + 0.5))
		if idf[i] <= 0 {
			idf[i] = 1e-6
		}
	}
	var best []Hit
	for n, ix := range ixs {
		best = ix.score(n, terms, idf, avg, kinds, limit, best)
	}
	return best
}

// queryTerm is the term of a query's word: the word tokenized as the
// rows are (folded: "Café" is "cafe") and stemmed. A word the tokenizer
// splits (a letter joined by a mark it does not count as a diacritic)
// is its first token.
func queryTerm(w string) string {
	term, first := "", true
	Words(w, func(tok string) {
		if first {
			term, first = Stem(tok), false
		}
	})
	return term
}

// scratch is a score per row and the rows scored, reused between
// searches.
type scratch struct {
	score   []float64
	touched []uint32
}

var scratches sync.Pool

// score adds the rows of ix that hold any of terms to best, kept to
// the best limit.
func (ix *Index) score(n int, terms []string, idf []float64, avg float64, kinds []graph.Kind, limit int, best []Hit) []Hit {
	sc, _ := scratches.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer scratches.Put(sc)
	if cap(sc.score) < len(ix.ids) {
		sc.score = make([]float64, len(ix.ids))
	}
	score := sc.score[:len(ix.ids)]
	touched := sc.touched[:0]
	// Term at a time in the query's order: each row's sum is added up in
	// the order bm25() adds it.
	for i, term := range terms {
		t, ok := ix.terms[term]
		if !ok {
			continue
		}
		for _, p := range ix.post[t] {
			if score[p.row] == 0 {
				touched = append(touched, p.row)
			}
			f := float64(p.freq)
			d := float64(ix.length[p.row])
			score[p.row] += idf[i] * (float64(f*(k1+1.0)) / (f + float64(k1*(1-b+float64(b*d)/avg))))
		}
	}
	for _, row := range touched {
		s := score[row]
		score[row] = 0
		if len(kinds) > 0 && !slices.Contains(kinds, ix.kinds[row]) {
			continue
		}
		h := Hit{Index: n, ID: ix.ids[row], Score: s, row: row}
		if len(best) == limit && !before(h, best[limit-1]) {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, h, func(o, h Hit) int {
			if before(h, o) {
				return 1
			}
			return -1
		})
		best = slices.Insert(best, i, h)
		if len(best) > limit {
			best = best[:limit]
		}
	}
	sc.touched = touched
	return best
}

// before reports whether h ranks before o: a higher score, else an
// earlier index, else an earlier row.
func before(h, o Hit) bool {
	if h.Score != o.Score {
		return h.Score > o.Score
	}
	if h.Index != o.Index {
		return h.Index < o.Index
	}
	return h.row < o.row
}

// Cache holds the indexes of snapshots, one per snapshot id (see
// names.Snapshots), the newest of each repository: a reader still
// pinning an older one gets an index made for it alone, as an index is
// several megabytes. It is safe for concurrent use; the zero value is
// ready.
type Cache struct {
	init    sync.Once
	indexes names.Snapshots[cached]

	mu     sync.Mutex
	deltas map[string][]delta // by repository: its amends, oldest first (see Amended)

	whole, amended atomic.Int64 // indexes made (see Made)
}

// Made returns how many indexes the Cache made from all of a snapshot's
// rows, and how many from an index of a snapshot it amends.
func (c *Cache) Made() (whole, amended int64) { return c.whole.Load(), c.amended.Load() }

type cached struct {
	once  sync.Once
	ix    *Index
	err   error
	ready atomic.Bool // ix is made
}

// Loader reads a snapshot's rows for the Cache: All of them, in any
// order, or (nil when the store cannot) those whose ids are in [lo, hi).
type Loader struct {
	All   func(ctx context.Context, add func(Row)) error
	Range func(ctx context.Context, lo, hi int64, add func(Row)) error
}

// Index returns the index of snapshot id of repository repo, made on
// first use (once, however many callers ask at the same time): from the
// index of a snapshot it amends when the Cache holds one (see Amended),
// else from all its rows, made terms as load reads them, on a goroutine
// of their own.
func (c *Cache) Index(ctx context.Context, repo string, id int64, load Loader) (*Index, error) {
	c.init.Do(func() { c.indexes.DropOlder = true })
	if e := c.indexes.Peek(id); e != nil && e.ready.Load() {
		return e.ix, nil
	}
	// Before Get, which drops the older snapshot's index.
	var base *Index
	var removed map[int64]bool
	var ranges [][2]int64
	if load.Range != nil {
		base, removed, ranges = c.chain(repo, id)
	}
	e := c.indexes.Get(repo, id)
	e.once.Do(func() {
		if base != nil {
			var rows []Row
			if rows, e.err = readAdded(ctx, load.Range, ranges); e.err == nil {
				e.ix = base.amend(removed, rows)
				c.amended.Add(1)
			}
		} else if e.ix, e.err = build(ctx, load.All); e.err == nil {
			c.whole.Add(1)
		}
		e.ready.Store(e.err == nil)
	})
	if e.err != nil {
		c.indexes.Forget(id, e) // let a later call retry
	}
	return e.ix, e.err
}

// build makes an index of the rows load adds.
func build(ctx context.Context, load func(ctx context.Context, add func(Row)) error) (*Index, error) {
	rows := make(chan Row, 256)
	built := make(chan *Index)
	go func() {
		bd := NewBuilder()
		for r := range rows {
			bd.Add(r)
		}
		built <- bd.Index()
	}()
	err := load(ctx, func(r Row) { rows <- r })
	close(rows)
	ix := <-built
	if err != nil {
		return nil, err
	}
	return ix, nil
}

// Find answers a TextQuery from the indexes of the repositories it
// searches, in the order of their names (which indexes reads, once the
// query is known to be one): the best rows, each loaded by symbols
// (which returns the symbols of the hits, in their order). The limit is
// the query's, 100 when it sets none; an unknown kind is an error.
func Find(q graph.TextQuery, indexes func() ([]*Index, error), symbols func([]Hit) ([]graph.Symbol, error)) ([]graph.TextHit, error) {
	for _, k := range q.Kinds {
		if _, ok := graph.ParseKind(string(k)); !ok {
			return nil, fmt.Errorf("unknown kind %q", k)
		}
	}
	terms := Terms(q.Words)
	if len(terms) == 0 {
		return nil, nil
	}
	ixs, err := indexes()
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	hits := Search(ixs, terms, q.Kinds, limit)
	if len(hits) == 0 {
		return nil, nil
	}
	syms, err := symbols(hits)
	if err != nil {
		return nil, fmt.Errorf("searching text: %w", err)
	}
	out := make([]graph.TextHit, len(hits))
	for i, h := range hits {
		out[i] = graph.TextHit{Symbol: syms[i], Score: h.Score}
	}
	return out, nil
}

// Terms returns the distinct terms of a query's words, in order: each
// word split as graph.SearchWords splits identifiers.
func Terms(words []string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, w := range words {
		for _, part := range graph.SearchWords(w) {
			if !seen[part] {
				seen[part] = true
				terms = append(terms, part)
			}
		}
	}
	return terms
}
