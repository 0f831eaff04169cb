package query

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/rank"
)

// The bounds of a question, as the README's security model states them.
const (
	questionBytesLimit = 2048
	questionWordsLimit = 64
)

// TestSearchCodeQuestionBounds: a question over the byte or word limit is
// INVALID_ARGUMENT naming the field and the limit, before any search; one
// at the limits is answered, and echoes no more than its words.
func TestSearchCodeQuestionBounds(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/shapes.txtar")
	question := func(q string) string {
		b, _ := json.Marshal(map[string]string{"question": q})
		return string(b)
	}
	refused := func(what, q string, limit int) {
		t.Helper()
		_, err := f.call(t, "search_code", question(q))
		e, coded := asError(err)
		switch {
		case !coded || e.Code != graph.CodeInvalidArgument:
			t.Errorf("question of %s: %v, want INVALID_ARGUMENT", what, err)
		case e.Data["field"] != "question" || !strings.Contains(e.Message, fmt.Sprint(limit)):
			t.Errorf("question of %s: %q (data %v); want the field and the limit %d", what, e.Message, e.Data, limit)
		}
	}
	refused(fmt.Sprintf("%d bytes", questionBytesLimit+5), "area "+strings.Repeat("x", questionBytesLimit), questionBytesLimit)
	refused(fmt.Sprintf("%d words", questionWordsLimit+1), strings.Join(distinctWords(questionWordsLimit+1), " "), questionWordsLimit)
	// Stop words and repeats are not searched, so they do not count.
	o := ok[*SearchCodeOutput](t, f, "search_code", question("the area of the"+strings.Repeat(" area", questionWordsLimit)))
	if len(o.Words) != 1 || o.Words[0] != "area" {
		t.Errorf("repeated word: searched %q, want [area]", o.Words)
	}
	at := strings.Join(distinctWords(questionWordsLimit-1), " ") + " area"
	o = ok[*SearchCodeOutput](t, f, "search_code", question(at))
	if len(o.Words) != questionWordsLimit {
		t.Errorf("question of %d words: searched %d", questionWordsLimit, len(o.Words))
	}
}

// distinctWords returns n different words of letters alone, none a stop
// word, an abbreviation or a synonym, so each is one searched word.
func distinctWords(n int) []string {
	words := make([]string, n)
	for i := range words {
		w := []byte("zq")
		for j := i; ; j /= 26 {
			w = append(w, byte('a'+j%26))
			if j < 26 {
				break
			}
		}
		words[i] = string(w)
	}
	return words
}

// TestSearchRankingLinear: the work of ranking grows linearly with the
// question's concepts. It counts the bytes allocated by splitting a
// question of n and of 2n words and re-ranking one fixed set of hits
// for it (no timing): doubling the question may at most double them.
func TestSearchRankingLinear(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/shapes.txtar")
	ctx := context.Background()
	v, err := f.svc.open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	hits, err := v.Reader().SearchText(ctx, graph.TextQuery{Words: []string{"area", "shape", "name", "radius", "side"}, Limit: searchPool})
	if err != nil || len(hits) < 5 {
		t.Fatalf("search: %d hits, %v", len(hits), err)
	}
	allocated := func(n int) uint64 {
		q := strings.Join(distinctWords(n), " ")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, concepts := rank.Question(q)
		rank.Hits(ctx, v, append([]graph.TextHit(nil), hits...), concepts, true)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	allocated(100) // warm the statement cache and the name tables
	const n = 8000
	small, large := allocated(n), allocated(2*n)
	t.Logf("ranking allocated %d bytes for %d words, %d for %d", small, n, large, 2*n)
	if large > small*5/2 {
		t.Errorf("ranking for %d words allocated %d bytes, for %d words %d: %.1f times as much, want at most 2.5",
			n, small, 2*n, large, float64(large)/float64(small))
	}
}
