package main

import (
	"context"
	"path/filepath"

	"github.com/sextant-dev/sextant/bench/internal/harness"
)

// prepareCorpus returns the directory to index: -corpus as given, or a
// writable copy of -module with its dependencies downloaded.
func prepareCorpus(ctx context.Context, o options, work string) (string, error) {
	if o.corpus != "" {
		return filepath.Abs(o.corpus)
	}
	return harness.FetchModule(ctx, o.module, work)
}
