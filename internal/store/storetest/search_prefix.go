package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// testSearchTextPrefix: the answer to a small limit is the start of the
// answer to a large one, ties included, whatever the filters drop. A
// store may rank a few of the best rows before joining them to their
// symbols; this holds it to ranking as if it had ranked every row.
func testSearchTextPrefix(t *testing.T, s graph.Store) {
	ctx := context.Background()
	write := func(name, pkg string, syms []graph.Symbol) {
		t.Helper()
		w := begin(t, s, ensure(t, s, name))
		defer w.Abort()
		var fs []graph.File
		for _, sy := range syms {
			if !slices.ContainsFunc(fs, func(f graph.File) bool { return f.Path == sy.Path }) {
				fs = append(fs, graph.File{Path: sy.Path, Package: pkg})
			}
		}
		if err := w.AddPackage(ctx, graph.Package{Path: pkg, Name: "p", ModulePath: pkg, Dir: "p"}, fs, syms, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Many rows alike (equal scores), in a repository the filtered
	// questions leave out, beside fewer in the one they keep.
	var wide, narrow []graph.Symbol
	for i := range 60 {
		wide = append(wide, sym("wide", "example.com/wide", "p", fmt.Sprintf("p/f%02d.go", i%7), fmt.Sprintf("RetryRequest%d", i), graph.KindFunc, 10+i, func(s *graph.Symbol) {
			s.Doc = "retries a request"
		}))
	}
	for i := range 12 {
		kind := graph.KindFunc
		if i%3 == 0 {
			kind = graph.KindType
		}
		narrow = append(narrow, sym("narrow", "example.com/narrow", "p", fmt.Sprintf("p/g%d.go", i%2), fmt.Sprintf("Retry%d", i), kind, 10+i, func(s *graph.Symbol) {
			s.Doc = "retries a request"
			if i%4 == 0 {
				s.Doc = "retries a failed request again"
			}
		}))
	}
	write("wide", "example.com/wide", wide)
	write("narrow", "example.com/narrow", narrow)
	r := read(t, s)
	defer r.Close()
	search := func(q graph.TextQuery) []string {
		t.Helper()
		hits, err := r.SearchText(ctx, q)
		if err != nil {
			t.Fatalf("SearchText(%+v): %v", q, err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%s@%s %.6f", h.Symbol.QualifiedName, h.Symbol.Repository, h.Score))
		}
		return out
	}
	for _, q := range []graph.TextQuery{
		{Words: []string{"retry", "request"}},
		{Words: []string{"retry", "failed"}},
		{Words: []string{"retry", "request"}, Repositories: []string{"narrow"}},
		{Words: []string{"retry", "again"}, Repositories: []string{"narrow"}},
		{Words: []string{"retry", "request"}, Repositories: []string{"narrow"}, Kinds: []graph.Kind{graph.KindType}},
	} {
		q.Limit = 1000
		all := search(q)
		if len(all) == 0 {
			t.Fatalf("SearchText(%+v): no hits", q)
		}
		for limit := 1; limit <= len(all)+1; limit++ {
			q.Limit = limit
			if got, want := search(q), all[:min(limit, len(all))]; !slices.Equal(got, want) {
				t.Errorf("SearchText(%v, %v, %v, limit %d) =\n%v\nwant the start of the answer to limit 1000:\n%v", q.Words, q.Repositories, q.Kinds, limit, got, want)
			}
		}
	}
}
