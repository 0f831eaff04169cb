package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/overlay"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// dbFlag registers --db on fs.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", "", "database: a file, or a postgres://user:password@host/db URL for the shared graph (default $SEXTANT_DB, else sextant/sextant.db in the user cache directory)")
}

// dbName returns the database named by --db, else $SEXTANT_DB, else "".
func dbName(e env, flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return e.getenv("SEXTANT_DB")
}

// openStore opens the database named by --db, $SEXTANT_DB or the default:
// PostgreSQL for a postgres:// URL, else an SQLite file. Errors about a
// PostgreSQL database name it without its password.
func openStore(ctx context.Context, e env, name string) (graph.Store, error) {
	name = dbName(e, name)
	if postgres.IsURL(name) {
		return postgres.Open(ctx, name)
	}
	if name == "" {
		p, err := sqlite.DefaultPath()
		if err != nil {
			return nil, err
		}
		name = p
	}
	return sqlite.Open(ctx, name)
}

// openServingStore opens the store that serve and the tool subcommands
// answer from. For a shared PostgreSQL graph that is an overlay: the roots
// are indexed into the local SQLite database ($SEXTANT_LOCAL_DB, else the
// default file), never published into the shared graph, and answers
// combine the two (internal/store/overlay). Otherwise it is openStore's.
func openServingStore(ctx context.Context, e env, name string) (graph.Store, error) {
	name = dbName(e, name)
	if !postgres.IsURL(name) {
		return openStore(ctx, e, name)
	}
	shared, err := postgres.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	path := e.getenv("SEXTANT_LOCAL_DB")
	if path == "" {
		if path, err = sqlite.DefaultPath(); err != nil || postgres.IsURL(path) {
			shared.Close()
			return nil, fmt.Errorf("the local index of the overlay: %v (set SEXTANT_LOCAL_DB to a file)", err)
		}
	}
	local, err := sqlite.Open(ctx, path)
	if err != nil {
		shared.Close()
		return nil, err
	}
	return overlay.New(shared, local), nil
}
