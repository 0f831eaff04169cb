package overlay_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/overlay"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/store/storetest"
)

func openSQLite(t *testing.T, name string) graph.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatalf("opening %s: %v", name, err)
	}
	return s
}

// TestConformance runs the store suite against an overlay whose local
// index is SQLite, over a shared graph in SQLite: every write goes to the
// local side, so each repository is one only the working copy has, and
// the overlay must answer for it as a store of its own would.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) graph.Store {
		return overlay.New(openSQLite(t, "shared.db"), openSQLite(t, "local.db"))
	})
}

// TestConformancePostgres is TestConformance over a shared graph in
// PostgreSQL, as `sextant serve --shared` runs it.
func TestConformancePostgres(t *testing.T) {
	pgtest.URL(t)
	storetest.Run(t, func(t *testing.T) graph.Store {
		shared, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatalf("opening the shared graph: %v", err)
		}
		return overlay.New(shared, openSQLite(t, "local.db"))
	})
}
