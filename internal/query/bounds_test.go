package query

import (
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestListBudgetBounded: the list tools' budget has an upper bound like
// every numeric argument; a huge one no longer wraps (budget*4 characters)
// into a budget that fits nothing.
func TestListBudgetBounded(t *testing.T) {
	f := newFixture(t, "testdata/shapes.txtar")
	for _, tool := range []string{"find_references", "find_implementations", "get_callers", "get_callees"} {
		for _, b := range []string{"4611686018427387904", "2000000"} {
			e := fails(t, f, tool, `{"qualified_name":"Shape.Area","budget":`+b+`}`, graph.CodeInvalidArgument)
			if e.Data["field"] != "budget" || !strings.Contains(e.Message, "1000000") {
				t.Errorf("%s with budget %s: %v, want INVALID_ARGUMENT on budget naming its range", tool, b, e)
			}
		}
	}
}
