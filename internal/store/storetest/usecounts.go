package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// testUseCounts checks the counts of uses against the fixture's
// references: uses in _test.go files left out, uses from another package
// external, and a use of another repository's symbol not counted.
func testUseCounts(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	key := func(id string) string { return fx.symbols[id].Key }
	const srv = "example.com/alpha/server"
	want := map[string][]graph.UseCount{
		alpha: {
			// server.go:22 and mux.go:50 in its package, client.go:12 outside;
			// server_test.go:7 is a test.
			{Target: key("NewServeMux@alpha"), Package: srv, Refs: 3, External: 1, Calls: 2},
			{Target: key("ServeMux@alpha"), Package: srv, Refs: 3, External: 1},
			{Target: key("ServeMux.mu@alpha"), Package: srv, Refs: 2},
		},
		beta: {
			// beta.go:5 uses alpha's NewServeMux: not a symbol of beta.
			{Target: key("Serve@beta"), Package: "example.com/beta", Refs: 1, Calls: 1},
		},
	}
	for repo, w := range want {
		slices.SortFunc(w, func(a, b graph.UseCount) int { return strings.Compare(a.Target, b.Target) })
		got, err := r.UseCounts(ctx, repo)
		if err != nil {
			t.Fatalf("UseCounts(%s): %v", repo, err)
		}
		if !slices.Equal(got, w) {
			t.Errorf("UseCounts(%s) =\n%+v\nwant\n%+v", repo, got, w)
		}
	}
	if _, err := r.UseCounts(ctx, "nope"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("UseCounts(nope) err = %v, want one wrapping graph.ErrNotFound", err)
	}
}
