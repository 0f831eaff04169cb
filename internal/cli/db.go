package cli

import (
	"context"
	"flag"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// dbFlag registers --db on fs.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", "", "database file (default $SEXTANT_DB, else sextant/sextant.db in the user cache directory)")
}

// openStore opens the database named by --db, $SEXTANT_DB or the default.
func openStore(ctx context.Context, e env, path string) (graph.Store, error) {
	if path == "" {
		path = e.getenv("SEXTANT_DB")
	}
	if path == "" {
		p, err := sqlite.DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	return sqlite.Open(ctx, path)
}
