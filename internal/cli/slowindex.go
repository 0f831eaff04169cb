package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sextant-dev/sextant/internal/query"
)

// slowIndexEnv names a hidden setting for tests of a call's patience,
// which need an index that takes longer than a call waits, reliably: a
// duration each load unit of every indexing run waits before it loads.
// Set, every run also writes a line when it starts, so a test can count
// the runs.
const slowIndexEnv = "SEXTANT_TEST_LOAD_DELAY"

// slowIndex wraps index with the delay slowIndexEnv asks for, if any.
func slowIndex(index query.IndexFunc) query.IndexFunc {
	delay, err := time.ParseDuration(os.Getenv(slowIndexEnv))
	if err != nil || delay <= 0 {
		return index
	}
	return func(ctx context.Context, root string, progress func(query.Progress)) error {
		fmt.Fprintf(os.Stderr, "sextant: index run started for %s\n", root)
		return index(ctx, root, func(p query.Progress) {
			if progress != nil {
				progress(p)
			}
			if p.Phase == "load" {
				// The progress callback runs on the indexing goroutine,
				// before the unit it announces is loaded.
				select {
				case <-time.After(delay):
				case <-ctx.Done():
				}
			}
		})
	}
}
