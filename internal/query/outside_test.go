package query

import (
	"slices"
	"testing"
)

// TestReferencesThroughOutsideInterfaces checks that find_references of
// a method counts the calls made through an interface declared outside
// the index (net/http.Handler, io.Writer) that its type satisfies, where
// gopls counts them: in the method's own package. Calls through the
// outside interface elsewhere, and those in the package of a related
// interface of the index, are not its uses.
func TestReferencesThroughOutsideInterfaces(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/outside.txtar")
	refs := func(args string) []string {
		var out []string
		for p := range refSet(ok[*FindReferencesOutput](t, f, "find_references", args)) {
			out = append(out, p)
		}
		slices.Sort(out)
		return out
	}
	// srv.go: 16 h.ServeHTTP (http.Handler), 31 H{}.ServeHTTP; api.go: 19 Via's call of Handler.ServeHTTP.
	if got, want := refs(`{"qualified_name":"H.ServeHTTP"}`), []string{"api/api.go:19:4 call", "srv/srv.go:16:4 call", "srv/srv.go:31:6 call"}; !slices.Equal(got, want) {
		t.Errorf("find_references H.ServeHTTP = %v, want %v", got, want)
	}
	if got, want := refs(`{"qualified_name":"W.Write"}`), []string{"srv/srv.go:26:4 call"}; !slices.Equal(got, want) {
		t.Errorf("find_references W.Write = %v, want %v", got, want)
	}
	// Handler.ServeHTTP: its own call, Route's call through the outside
	// interface in its package, and H's call in srv (a method of a type
	// satisfying it), but not srv's call through http.Handler.
	if got, want := refs(`{"qualified_name":"Handler.ServeHTTP"}`), []string{"api/api.go:14:4 call", "api/api.go:19:4 call", "srv/srv.go:31:6 call"}; !slices.Equal(got, want) {
		t.Errorf("find_references Handler.ServeHTTP = %v, want %v", got, want)
	}
}
