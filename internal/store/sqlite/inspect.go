package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
)

// Health is what Inspect reads of a database file.
type Health struct {
	SchemaVersion int // the layout the file was written with; SchemaVersion is this build's
	Repositories  int // repositories indexed in it
	SQLite        string
}

// Inspect opens the database at path read-only, creating, migrating and
// locking nothing, and reads its schema version and how many
// repositories it holds; `sextant doctor` reports it. A file SQLite finds
// damaged is DATABASE_CORRUPT as for Open. A layout newer than this
// build's is not an error here: the caller compares it with
// SchemaVersion.
func Inspect(ctx context.Context, path string) (Health, error) {
	var h Health
	abs, err := filepath.Abs(path)
	if err != nil {
		return h, err
	}
	// mode=ro opens no write connection; a WAL file whose shared-memory
	// file cannot be made read-only is read as it stands (immutable).
	for _, params := range []string{"mode=ro&_pragma=busy_timeout(" + busyTimeoutMS + ")", "mode=ro&immutable=1"} {
		if h, err = inspect(ctx, fileURI(abs)+"?"+params); err == nil {
			return h, nil
		}
		if isCorrupt(err) {
			return h, corruptError(abs, err.Error(), err)
		}
	}
	return h, fmt.Errorf("reading %s: %w", abs, err)
}

func inspect(ctx context.Context, uri string) (Health, error) {
	var h Health
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return h, err
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&h.SQLite); err != nil {
		return h, err
	}
	if h.SchemaVersion, err = schemaVersion(ctx, db); err != nil {
		return h, err
	}
	if h.SchemaVersion > 0 {
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM repositories`).Scan(&h.Repositories); err != nil {
			return h, err
		}
	}
	return h, nil
}
