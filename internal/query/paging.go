package query

import (
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
)

// The paging helpers of the answer package, under the names the tools use.
var (
	fingerprint  = answer.Fingerprint
	decodeCursor = answer.DecodeCursor
	pageLimit    = answer.PageLimit
)

// writePaging says, in a text rendering, how to fetch the next page.
func writePaging(b *strings.Builder, env Envelope) {
	if env.NextCursor != nil {
		fmt.Fprintf(b, "more: pass cursor %s\n", *env.NextCursor)
	}
}

// writeMore says what a cut page left out and how to fetch it.
func writeMore(b *strings.Builder, env Envelope, offset int, budgetCut bool, what string) {
	if env.NextCursor == nil {
		return
	}
	why := "limit"
	if budgetCut {
		why = "budget"
	}
	fmt.Fprintf(b, "more: %d of %d %s left out (%s); next page: cursor %s\n",
		env.Total-offset-env.Returned, env.Total, what, why, *env.NextCursor)
}
