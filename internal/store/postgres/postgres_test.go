package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
	"github.com/sextant-dev/sextant/internal/store/storetest"
)

func open(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// TestConformance runs the store suite against PostgreSQL, each store in a
// schema of its own.
func TestConformance(t *testing.T) {
	pgtest.URL(t)
	storetest.Run(t, func(t *testing.T) graph.Store { return open(t, pgtest.Schema(t)) })
}

// TestMigrations checks that a second Open of a migrated database changes
// nothing, and that a database migrated by a newer build is refused with
// ErrNewerSchema and a message saying what to do.
func TestMigrations(t *testing.T) {
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	s := open(t, dsn)
	s.Close()
	s = open(t, dsn) // already at the version: a no-op
	s.Close()

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, `SELECT max(version) FROM sextant_schema`).Scan(&v); err != nil || v != postgres.SchemaVersion {
		t.Fatalf("recorded version = %d, %v; want %d", v, err, postgres.SchemaVersion)
	}

	// A database at version 1 (before effects, text search, implicit
	// references of their own, languages, snapshot provenance and the
	// format of their records) is upgraded on open, its snapshots of
	// format 0; an
	// implicit reference stored under its target key + "~implicit" moves
	// to the key.
	if _, err := conn.Exec(ctx, `DROP TABLE effects;
		DROP TABLE test_cover, test_runs, test_recordings, test_decls;
		ALTER TABLE symbols DROP COLUMN w_name, DROP COLUMN w_doc, DROP COLUMN w_sig,
			DROP COLUMN w_body, DROP COLUMN w_path, DROP COLUMN language;
		ALTER TABLE refs DROP COLUMN implicit;
		ALTER TABLE snapshots DROP COLUMN build, DROP COLUMN indexers, DROP COLUMN format;
		INSERT INTO snapshots (id, repo_id, created_at) OVERRIDING SYSTEM VALUE VALUES (7, 1, 0);
		INSERT INTO refs (snapshot_id, seq, target, path, line, col, end_col, kind, test_only)
			VALUES (7, 0, 'K', 'p.go', 3, 2, 5, 1, false), (7, 1, 'K~implicit', 'p.go', 4, 2, 5, 1, false);
		DELETE FROM sextant_schema WHERE version >= 2`); err != nil {
		t.Fatal(err)
	}
	s = open(t, dsn)
	s.Close()
	var effects bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('effects') IS NOT NULL AND to_regclass('test_decls') IS NOT NULL`).Scan(&effects); err != nil || !effects {
		t.Fatalf("after upgrading from version 1: effects and test_decls tables = %v, %v", effects, err)
	}
	var refs string
	if err := conn.QueryRow(ctx, `SELECT string_agg(target || ' ' || line || ' ' || implicit, ', ' ORDER BY seq)
		FROM refs WHERE snapshot_id = 7`).Scan(&refs); err != nil || refs != "K 3 false, K 4 true" {
		t.Errorf("after upgrading from version 1: references %q, %v; want K 3 false, K 4 true", refs, err)
	}
	var format int
	if err := conn.QueryRow(ctx, `SELECT format FROM snapshots WHERE id = 7`).Scan(&format); err != nil || format != 0 {
		t.Errorf("after upgrading from version 1: the snapshot's format %d, %v; want 0", format, err)
	}
	if err := conn.QueryRow(ctx, `SELECT max(version) FROM sextant_schema`).Scan(&v); err != nil || v != postgres.SchemaVersion {
		t.Fatalf("after upgrading from version 1: version = %d, %v; want %d", v, err, postgres.SchemaVersion)
	}

	if _, err := conn.Exec(ctx, `INSERT INTO sextant_schema (version, name) VALUES ($1, 'from the future')`,
		postgres.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	_, err = postgres.Open(ctx, dsn)
	if !errors.Is(err, postgres.ErrNewerSchema) {
		t.Fatalf("Open of a newer schema: err = %v, want ErrNewerSchema", err)
	}
	if !strings.Contains(err.Error(), "upgrade sextant") {
		t.Errorf("error %q does not say what to do", err)
	}

	// A schema holding someone else's tables is not taken over.
	other := pgtest.Schema(t)
	c2, err := pgx.Connect(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	if _, err := c2.Exec(ctx, `CREATE TABLE repositories (x int)`); err != nil {
		t.Fatal(err)
	}
	if _, err := postgres.Open(ctx, other); err == nil || !strings.Contains(err.Error(), "not a sextant database") {
		t.Errorf("Open of a foreign schema: err = %v, want 'not a sextant database'", err)
	}
}

// TestRedact checks that no form of connection string keeps its password
// in what Redact returns or in the errors Open returns.
func TestRedact(t *testing.T) {
	tests := []struct{ in, secret string }{
		{"postgres://alice:s3cret-pw@db.example:5432/graph?sslmode=disable", "s3cret-pw"},
		{"postgresql://alice:s3cret-pw@db.example/graph", "s3cret-pw"},
		{"postgres://alice@db.example/graph?password=s3cret-pw", "s3cret-pw"},
		{"host=db.example user=alice password=s3cret-pw dbname=graph", "s3cret-pw"},
		{"host=db.example user=alice password='s3 cret-pw' dbname=graph", "cret-pw"},
	}
	for _, tt := range tests {
		if got := postgres.Redact(tt.in); strings.Contains(got, tt.secret) {
			t.Errorf("Redact(%q) = %q, still holds the password", tt.in, got)
		}
	}
	// A server that refuses the password: the error names the server
	// but not the password.
	bad := replacePassword(t, pgtest.URL(t), "wrong-pw-4711")
	_, err := postgres.Open(context.Background(), bad)
	if err == nil {
		t.Fatal("Open with a wrong password succeeded")
	}
	if strings.Contains(err.Error(), "wrong-pw-4711") {
		t.Errorf("Open error holds the password: %v", err)
	}
}

// TestModulesOfNewSnapshot: a snapshot's modules are kept by the store
// after the first read; a new snapshot of the repository is read anew,
// and a second store on the same database reads them too.
func TestModulesOfNewSnapshot(t *testing.T) {
	pgtest.URL(t)
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	s := open(t, dsn)
	defer s.Close()
	publish := func(mods ...graph.Module) {
		t.Helper()
		repo, err := s.EnsureRepository(ctx, "/r", "r")
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.BeginSnapshot(ctx, repo, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddModules(ctx, mods); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	modules := func(st graph.Store) []string {
		t.Helper()
		r, err := st.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		list, err := r.Repositories(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("Repositories = %+v, %v", list, err)
		}
		var out []string
		for _, m := range list[0].Modules {
			out = append(out, m.Dir+"="+m.Path)
		}
		return out
	}
	publish(graph.Module{Path: "example.com/a", Dir: "."})
	for range 2 { // read, then kept
		if got := modules(s); strings.Join(got, " ") != ".=example.com/a" {
			t.Fatalf("modules %v, want example.com/a at .", got)
		}
	}
	publish(graph.Module{Path: "example.com/a", Dir: "."}, graph.Module{Path: "example.com/b", Dir: "b"})
	want := ".=example.com/a b=example.com/b"
	if got := modules(s); strings.Join(got, " ") != want {
		t.Errorf("after a new snapshot, modules %v, want %s", got, want)
	}
	other := open(t, dsn)
	defer other.Close()
	if got := modules(other); strings.Join(got, " ") != want {
		t.Errorf("another store reads modules %v, want %s", got, want)
	}
}
