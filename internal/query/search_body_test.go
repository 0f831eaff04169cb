package query

import "testing"

// TestSearchCodeBodyCalls checks that a function is found by the names
// its body calls and selects, not only by its name, doc, signature and
// literals: a question about discarding a body finds drainBody.
func TestSearchCodeBodyCalls(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/bodywords.txtar")
	o := ok[*SearchCodeOutput](t, f, "search_code", `{"question":"copy into discard","limit":3}`)
	if len(o.Results) == 0 || o.Results[0].QualifiedName != "drainBody" {
		t.Errorf("search_code: got %s, want drainBody first", o.Text())
	}
}
