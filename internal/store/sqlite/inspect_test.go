package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestInspect: a database is read without being written (no -wal or
// -shm left where there were none, the bytes unchanged), its schema
// version read; a file that is not SQLite is DATABASE_CORRUPT.
func TestInspect(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "sextant.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	before, _ := os.ReadFile(path)
	h, err := Inspect(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if h.SchemaVersion != SchemaVersion || h.Repositories != 0 || h.SQLite == "" {
		t.Errorf("Inspect = %+v, want schema %d, 0 repositories, a SQLite version", h, SchemaVersion)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("Inspect changed the database file")
	}
	bad := filepath.Join(dir, "bad.db")
	if err := os.WriteFile(bad, []byte("this is not an SQLite database, not even its header......................................................"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Inspect(ctx, bad); graph.CodeOf(err) != graph.CodeDatabaseCorrupt {
		t.Errorf("Inspect of a file that is not SQLite: %v, want DATABASE_CORRUPT", err)
	}
}
