package cli

import (
	"context"
	"flag"
	"fmt"
	"sync"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/query"
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
	path, err := sqlitePath(name)
	if err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, path)
}

// sqlitePath is the SQLite file a database name other than a PostgreSQL
// URL means: the name itself, else the default file.
func sqlitePath(name string) (string, error) {
	if name != "" {
		return name, nil
	}
	return sqlite.DefaultPath()
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

// openIndexStore is openStore for `sextant index`, which writes: an
// SQLite database found damaged (DATABASE_CORRUPT, at open or by its
// quick_check) is moved aside and rebuilt (sqlite.OpenOrRebuild), and
// the move is reported on stderr. The index is a cache of what indexing
// computes; writing into a damaged file would publish a snapshot that may
// never be read back.
func openIndexStore(ctx context.Context, e env, name string) (graph.Store, error) {
	if name = dbName(e, name); postgres.IsURL(name) {
		return openStore(ctx, e, name)
	}
	path, err := sqlitePath(name)
	if err != nil {
		return nil, err
	}
	st, rebuilt, err := sqlite.OpenOrRebuild(ctx, path)
	if err != nil {
		return nil, err
	}
	if rebuilt != nil {
		fmt.Fprintf(e.stderr, "sextant: %s\nsextant: moved the damaged file to %s and indexing into a new one; servers still open on it keep reading the damaged copy until restarted\n",
			query.EscapeControls(query.ErrorOf(rebuilt.Damage).Text()), rebuilt.MovedTo)
	}
	return st, nil
}

// checkedIndex is index preceded, once, by the store's quick_check
// (QuickCheck) for a server: it refuses to write into a damaged database
// (DATABASE_CORRUPT, the reads say so too) rather than publish snapshots
// there. The check reads the whole file, so it runs once per process,
// before the first write; `sextant index` rebuilds a damaged file.
func checkedIndex(st graph.Store, index query.IndexFunc) query.IndexFunc {
	c, ok := st.(interface{ QuickCheck(context.Context) error })
	if !ok {
		return index
	}
	var (
		once    sync.Once
		damaged error
	)
	return func(ctx context.Context, root string, progress func(query.Progress)) error {
		once.Do(func() {
			if err := c.QuickCheck(ctx); graph.CodeOf(err) == graph.CodeDatabaseCorrupt {
				damaged = err
			}
		})
		if damaged != nil {
			return damaged
		}
		return index(ctx, root, progress)
	}
}
