package sqlite

import (
	"context"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// dropFormat turns a database back into one from before schema version
// 13, for the upgrade tests.
var dropFormat = []string{`ALTER TABLE snapshots DROP COLUMN format`}

// TestUpgradeToFormat opens a version 12 database, whose snapshots do not
// say the format of their records: the upgrade adds the column, the old
// snapshot serves on as format 0 (which no build writes), an amend of it
// keeps that format, since the records it does not re-derive are the
// old ones, and a snapshot indexed whole has this build's.
func TestUpgradeToFormat(t *testing.T) {
	ctx := context.Background()
	s := upgraded(t, 12, dropFormat...)
	sts, err := graph.Repositories(ctx, s)
	if err != nil || len(sts) != 1 || sts[0].Symbols == 0 || sts[0].Snapshot.Format != 0 {
		t.Fatalf("repositories after upgrade = %+v, %v; want the old snapshot, of format 0", sts, err)
	}
	repo := graph.Repository{ID: sts[0].ID, Name: sts[0].Name, Root: sts[0].Root}
	aw, err := s.BeginAmend(ctx, repo, sts[0].Snapshot.ID, "amended")
	if err != nil {
		t.Fatal(err)
	}
	if err := aw.RemoveDirs(ctx, []string{"p0"}); err != nil {
		t.Fatal(err)
	}
	amended, err := aw.Publish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sts, err := graph.Repositories(ctx, s); err != nil || amended.Format != 0 || sts[0].Snapshot.Format != 0 {
		t.Errorf("an amend of a format 0 snapshot: %d from Publish, read back %+v, %v; want format 0", amended.Format, sts, err)
	}
	whole := publishGeneration(t, s, repo, 2, 3)
	if sts, err := graph.Repositories(ctx, s); err != nil || whole.Format != graph.IndexFormat || sts[0].Snapshot.Format != graph.IndexFormat {
		t.Errorf("a snapshot indexed whole: %d from Publish, read back %+v, %v; want format %d", whole.Format, sts, err, graph.IndexFormat)
	}
	aw, err = s.BeginAmend(ctx, repo, whole.ID, "amended again")
	if err != nil {
		t.Fatal(err)
	}
	if err := aw.RemoveDirs(ctx, []string{"p0"}); err != nil {
		t.Fatal(err)
	}
	if again, err := aw.Publish(ctx); err != nil || again.Format != graph.IndexFormat {
		t.Errorf("an amend of a snapshot of this build's format: %+v, %v; want format %d", again, err, graph.IndexFormat)
	}
}
