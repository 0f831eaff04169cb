package overview

import (
	"context"
	"time"

	"github.com/sextant-dev/sextant/internal/git"
)

// churnCommits is how many of the latest commits RecentChanges reads,
// and churnTimeout how long git may take to list them.
const (
	churnCommits = 500
	churnTimeout = 3 * time.Second
)

// RecentChanges counts, per file (relative to root, forward slashes), the
// commits among the latest churnCommits of the git work tree at root that
// changed it, and returns how many commits it read. It reads the history
// through internal/git, so the repository's own configuration can start
// no program and reach no remote, and a deadline bounds it. Any failure
// (no git, not a work tree, a missing object, the deadline) returns
// nothing: history is a hint, never needed for an answer.
func RecentChanges(ctx context.Context, root string) (map[string]int, int) {
	ctx, cancel := context.WithTimeout(ctx, churnTimeout)
	defer cancel()
	repo, err := git.Open(ctx, root)
	if err != nil {
		return nil, 0
	}
	history, err := repo.History(ctx, churnCommits)
	if err != nil {
		return nil, 0
	}
	counts := map[string]int{}
	for _, files := range history {
		for _, f := range files {
			counts[f]++
		}
	}
	return counts, len(history)
}
