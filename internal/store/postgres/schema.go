package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations holds the schema as numbered SQL files, NNN_what.sql, each
// applied once, in order, in one transaction with its version record.
//
//go:embed migrations/*.sql
var migrations embed.FS

// ErrNewerSchema is returned (wrapped) by Open when the database was
// migrated by a newer Sextant than this build: an older build cannot know
// what the newer schema changed, so it refuses to read or write it.
var ErrNewerSchema = errors.New("database schema is newer than this build supports")

// migration is one embedded schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the embedded migrations by version. Versions
// start at 1 and have no gaps, which a test checks.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s: name is not NNN_what.sql", e.Name())
		}
		b, err := migrations.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the newest schema version this build knows: the number
// of its embedded migrations.
var SchemaVersion = func() int {
	ms, err := loadMigrations()
	if err != nil {
		panic(err) // the embedded files are part of the build; a test covers this
	}
	return len(ms)
}()

// migrationLock is the key of the transaction-level advisory lock that
// serialises migrations, so servers starting at once against a new
// database create the schema once.
const migrationLock = 0x5e7a47 // "sextant"

// schemaVersion returns the version recorded in sextant_schema, 0 when the
// table does not exist (an empty database, or one never used by Sextant).
func schemaVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('sextant_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("reading schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM sextant_schema`).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading schema version: %w", err)
	}
	return v, nil
}

// migrate brings the database to SchemaVersion, applying the missing
// migrations in one transaction under an advisory lock. A database already
// at that version costs one query. A newer one is refused with
// ErrNewerSchema; so is a schema that has Sextant's tables but no version
// record (not something this build created).
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	v, err := schemaVersion(ctx, pool)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return newerSchema(v)
	}
	if v == SchemaVersion {
		return nil
	}
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("beginning migration: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("locking schema: %w", err)
	}
	if v, err = schemaVersion(ctx, tx); err != nil { // migrated meanwhile?
		return err
	}
	if v > SchemaVersion {
		return newerSchema(v)
	}
	if v == 0 {
		var foreign bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass('repositories') IS NOT NULL`).Scan(&foreign); err != nil {
			return fmt.Errorf("inspecting schema: %w", err)
		}
		if foreign {
			return errors.New("the schema has a repositories table but no sextant_schema table; it is not a sextant database (choose another database or search_path)")
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE sextant_schema (
			version integer PRIMARY KEY,
			name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("creating sextant_schema: %w", err)
		}
	}
	for _, m := range ms[v:] {
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("applying migration %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sextant_schema (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return fmt.Errorf("recording migration %s: %w", m.name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("committing migrations: %w", err)
	}
	return nil
}

func newerSchema(v int) error {
	return fmt.Errorf("schema version %d, this build supports up to %d; upgrade sextant or use another database: %w",
		v, SchemaVersion, ErrNewerSchema)
}
