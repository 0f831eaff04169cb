package overlay

import (
	"context"

	"github.com/sextant-dev/sextant/internal/graph"
)

// UseCounts implements graph.Reader from the side that answers for repo:
// an overlay repository's uses are those of its working copy.
func (r *reader) UseCounts(ctx context.Context, repo string) ([]graph.UseCount, error) {
	return r.side(repo).UseCounts(ctx, repo)
}
