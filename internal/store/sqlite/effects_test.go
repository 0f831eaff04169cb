package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestUpgradeEffects opens a database of the version before effect rows,
// holding a published snapshot: the upgrade adds the effects table, drops
// the snapshot (it has no rows, and would answer "not analysed"), keeps
// the repository, and effect records then round-trip.
func TestUpgradeEffects(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range slices.Concat(schemaV1, schemaV2, []string{
		`INSERT INTO meta (key, value) VALUES ('schema_version', '2')`,
		`INSERT INTO repositories (id, name, root, vcs_head, current_snapshot) VALUES (4, 'fx', '` + filepath.Clean("/src/fx") + `', 'abc', 2)`,
		`INSERT INTO snapshots (id, repo_id, created_at, symbols) VALUES (2, 4, 0, 0)`,
	}) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 2 database: %v", err)
	}
	defer s.Close()
	if v, err := schemaVersion(ctx, s.rdb); err != nil || v != SchemaVersion {
		t.Errorf("schema version after upgrade = %d, %v; want %d", v, err, SchemaVersion)
	}
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM snapshots`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d snapshots survive the upgrade (%v), want none", n, err)
	}
	repo, err := s.EnsureRepository(ctx, "/src/fx", "other")
	if err != nil || repo.ID != 4 || repo.Name != "fx" {
		t.Fatalf("EnsureRepository after upgrade = %+v, %v; want the kept repository 4, fx", repo, err)
	}
	w, err := s.BeginSnapshot(ctx, repo, "")
	if err != nil {
		t.Fatal(err)
	}
	rec := graph.EffectRecord{Function: "k", Effect: graph.EffectTime, Direct: true, Certain: true, Path: "a.go",
		Line: 1, Col: 2, Callee: "time.Now", Detail: "calls time.Now"}
	if err := w.AddEffects(ctx, []graph.EffectRecord{rec}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := r.EffectRecords(ctx, []string{"k"}); err != nil || len(got) != 1 || got[0] != rec {
		t.Errorf("EffectRecords after upgrade = %+v, %v; want %+v", got, err, rec)
	}
}
