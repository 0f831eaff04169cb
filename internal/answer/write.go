package answer

import (
	"fmt"
	"strings"
)

// WritePaging says, in a text rendering, how to fetch the next page.
func WritePaging(b *strings.Builder, env Envelope) {
	if env.NextCursor != nil {
		fmt.Fprintf(b, "more: pass cursor %s\n", *env.NextCursor)
	}
}

// WriteMore says what a cut page left out and how to fetch it.
func WriteMore(b *strings.Builder, env Envelope, offset int, budgetCut bool, what string) {
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

// WriteFreshness says, in a text rendering, that the answer's snapshot
// predates the disk, and why.
func WriteFreshness(b *strings.Builder, env Envelope) {
	if env.Fresh {
		return
	}
	fmt.Fprintf(b, "STALE: snapshot %d predates the disk: %s\n", env.SnapshotID, strings.Join(env.StaleReasons, "; "))
}
