package textindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestSearchAsFTS5 holds Search to SQLite: on rows of words drawn at
// random (a few frequent, most rare, as in code), every query's best
// rows are FTS5's, ties by row, and their scores are its bm25() with
// Weights, to the last bit or two: SQLite takes the logarithm of an
// IDF from its C library (musl's, in the pure-Go SQLite on Linux), this
// package from Go's math.Log.
func TestSearchAsFTS5(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields(`parse parses parsing parser config configure configuration retry retries
		request requests send sent client server handler handle handles route router match matches
		flag flags command commands run runs running error errors write writes written file files
		path paths value values default string strings int bool time duration timeout close closed
		read reader writer buffer buffered lock unlock mutex context cancel cancelled watch event events`)
	word := func() string {
		// Zipf-like: the first words far more often than the last.
		return vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64())]
	}
	text := func(n int) string {
		ws := make([]string, rng.IntN(n+1))
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE w USING fts5(name, doc, signature, body, path, tokenize = 'porter unicode61')`); err != nil {
		t.Fatal(err)
	}
	bd := NewBuilder()
	kinds := []graph.Kind{graph.KindFunc, graph.KindType, graph.KindField}
	for id := int64(1); id <= 3000; id++ {
		r := Row{ID: id, Kind: kinds[id%3], Fields: [Fields]string{text(3), text(20), text(8), text(40), text(4)}}
		if _, err := db.Exec(`INSERT INTO w (rowid, name, doc, signature, body, path) VALUES (?, ?, ?, ?, ?, ?)`,
			id, r.Fields[0], r.Fields[1], r.Fields[2], r.Fields[3], r.Fields[4]); err != nil {
			t.Fatal(err)
		}
		bd.Add(r)
	}
	ix := bd.Index()
	weights := fmt.Sprint(Weights[0], ", ", Weights[1], ", ", Weights[2], ", ", Weights[3], ", ", Weights[4])
	for q := 0; q < 200; q++ {
		words := make([]string, 1+rng.IntN(6))
		for i := range words {
			words[i] = word()
		}
		if q%10 == 0 {
			words = append(words, "absent")
		}
		var want []Hit
		terms := make([]string, len(words))
		for i, w := range words {
			terms[i] = `"` + w + `"`
		}
		rows, err := db.Query(`SELECT rowid, -bm25(w, `+weights+`) AS score FROM w WHERE w MATCH ? ORDER BY score DESC, rowid LIMIT 50`,
			strings.Join(terms, " OR "))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var h Hit
			if err := rows.Scan(&h.ID, &h.Score); err != nil {
				t.Fatal(err)
			}
			want = append(want, h)
		}
		rows.Close()
		got := Search([]*Index{ix}, words, nil, 50)
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, FTS5 %d", words, len(got), len(want))
		}
		for i := range want {
			if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-12*want[i].Score {
				t.Fatalf("%q: hit %d is row %d scoring %v, FTS5 row %d scoring %v", words, i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
			}
		}
	}
}

// TestSearchSplit: rows split over several indexes rank as the one index
// of all of them would, ties in the order of the indexes; a kind filter
// drops rows without changing the others' scores.
func TestSearchSplit(t *testing.T) {
	rows := []Row{
		{ID: 1, Kind: graph.KindFunc, Fields: [Fields]string{"parse config", "", "", "", ""}},
		{ID: 2, Kind: graph.KindType, Fields: [Fields]string{"config", "parses it", "", "", ""}},
		{ID: 3, Kind: graph.KindFunc, Fields: [Fields]string{"parse config", "", "", "", ""}},
		{ID: 4, Kind: graph.KindFunc, Fields: [Fields]string{"write", "", "", "", "config"}},
		{ID: 5, Kind: graph.KindField, Fields: [Fields]string{"unrelated", "", "", "", ""}},
	}
	one, a, b := NewBuilder(), NewBuilder(), NewBuilder()
	for i, r := range rows {
		one.Add(r)
		if i < 2 {
			a.Add(r)
		} else {
			b.Add(r)
		}
	}
	whole := Search([]*Index{one.Index()}, []string{"parsing", "config"}, nil, 10)
	ixs := []*Index{a.Index(), b.Index()}
	split := Search(ixs, []string{"parsing", "config"}, nil, 10)
	ids := func(hs []Hit) (out []int64) {
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}
	if fmt.Sprint(ids(whole)) != "[1 3 2 4]" || fmt.Sprint(ids(split)) != fmt.Sprint(ids(whole)) {
		t.Fatalf("one index %v, split %v; want [1 3 2 4] both", ids(whole), ids(split))
	}
	for i := range whole {
		if whole[i].Score != split[i].Score {
			t.Errorf("hit %d scores %v in one index, %v split", i, whole[i].Score, split[i].Score)
		}
	}
	if split[1].Index != 1 || split[0].Index != 0 {
		t.Errorf("hits' indexes %d, %d; want 0, 1", split[0].Index, split[1].Index)
	}
	funcs := Search(ixs, []string{"parsing", "config"}, []graph.Kind{graph.KindFunc}, 2)
	if fmt.Sprint(ids(funcs)) != "[1 3]" || funcs[0].Score != whole[0].Score {
		t.Errorf("funcs only, limit 2: %v", funcs)
	}
	if got := Search(ixs, []string{"absent"}, nil, 10); len(got) != 0 {
		t.Errorf("a word no row holds found %v", got)
	}
}

func TestTerms(t *testing.T) {
	if got, want := Terms([]string{"ParseConfig", "parse", "HTTP-server"}), []string{"parse", "config", "parseconfig", "http", "server"}; !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

// TestCache: a snapshot's index is made once however many ask at once, a
// failed load is not kept, and a snapshot older than the newest seen of
// its repository gets an index made for each call, not kept.
func TestCache(t *testing.T) {
	ctx := context.Background()
	var c Cache
	var loads atomic.Int32
	load := func(fail bool) func(context.Context, func(Row)) error {
		return func(_ context.Context, add func(Row)) error {
			loads.Add(1)
			add(Row{ID: 1, Fields: [Fields]string{"parse config"}})
			if fail {
				return errors.New("broken")
			}
			return nil
		}
	}
	if _, err := c.Index(ctx, "a", 2, Loader{All: load(true)}); err == nil {
		t.Fatal("a failed load gave no error")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ix, err := c.Index(ctx, "a", 2, Loader{All: load(false)})
			if err != nil || len(Search([]*Index{ix}, []string{"config"}, nil, 5)) != 1 {
				t.Errorf("index of a@2: %v, %v", ix, err)
			}
		})
	}
	wg.Wait()
	if n := loads.Load(); n != 2 {
		t.Errorf("%d loads for a failed one and 8 concurrent calls; want 2", n)
	}
	c.Index(ctx, "a", 3, Loader{All: load(false)})
	c.Index(ctx, "a", 2, Loader{All: load(false)})
	c.Index(ctx, "a", 2, Loader{All: load(false)})
	if n := loads.Load(); n != 5 {
		t.Errorf("%d loads after a@3 and a@2 twice; want 5 (a@2 no longer kept)", n)
	}
}

// TestFind: a query's words are tokenized as the rows are, so a word
// with a diacritic finds the row that holds it folded; an unknown kind
// is an error before any index is read; no words read none either.
func TestFind(t *testing.T) {
	bd := NewBuilder()
	bd.Add(Row{ID: 7, Kind: graph.KindFunc, Fields: [Fields]string{"café", "", "", "", ""}})
	bd.Add(Row{ID: 8, Kind: graph.KindFunc, Fields: [Fields]string{"tea", "", "", "", ""}})
	ix := bd.Index()
	read := 0
	indexes := func() ([]*Index, error) { read++; return []*Index{ix}, nil }
	symbols := func(hits []Hit) ([]graph.Symbol, error) {
		out := make([]graph.Symbol, len(hits))
		for i, h := range hits {
			out[i] = graph.Symbol{Name: fmt.Sprint(h.ID)}
		}
		return out, nil
	}
	for _, w := range []string{"Café", "cafe", "CAFÉS"} {
		hits, err := Find(graph.TextQuery{Words: []string{w}}, indexes, symbols)
		if err != nil || len(hits) != 1 || hits[0].Symbol.Name != "7" {
			t.Errorf("Find(%q) = %v, %v; want row 7", w, hits, err)
		}
	}
	if _, err := Find(graph.TextQuery{Words: []string{"tea"}, Kinds: []graph.Kind{"widget"}}, indexes, symbols); err == nil {
		t.Error("an unknown kind gave no error")
	}
	if hits, err := Find(graph.TextQuery{Words: []string{"-"}}, indexes, symbols); err != nil || hits != nil {
		t.Errorf("no words: %v, %v", hits, err)
	}
	if read != 3 {
		t.Errorf("indexes read %d times; want 3, for the three questions with words and known kinds", read)
	}
}
