package sqlite

import (
	"context"
	"strings"
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

// TestUpgradeToWords opens a version 13 database, whose search rows are
// an FTS5 table: the upgrade keeps every row under its symbol's id in a
// plain table, and search finds the old snapshot's symbols by them.
func TestUpgradeToWords(t *testing.T) {
	ctx := context.Background()
	s := upgraded(t, 13,
		`CREATE VIRTUAL TABLE symbol_fts USING fts5(name, doc, signature, body, path, tokenize = 'porter unicode61')`,
		`INSERT INTO symbol_fts (rowid, name, doc, signature, body, path) SELECT id, name, doc, signature, body, path FROM symbol_text`,
		`DROP TABLE symbol_text`,
		`ALTER TABLE symbol_fts RENAME TO symbol_text`)
	var table string
	var rows, syms int
	if err := s.rdb.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'symbol_text'`).Scan(&table); err != nil || strings.Contains(table, "fts5") {
		t.Errorf("symbol_text after upgrade: %q, %v; want a plain table", table, err)
	}
	err := s.rdb.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM symbol_text t JOIN symbols s ON s.id = t.id), (SELECT count(*) FROM symbols)`).Scan(&rows, &syms)
	if err != nil || rows != 3 || syms != 3 {
		t.Errorf("after upgrade: %d search rows of %d symbols, %v; want 3 of 3", rows, syms, err)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.SearchText(ctx, graph.TextQuery{Words: []string{"g1", "2"}})
	if err != nil || len(hits) == 0 || hits[0].Symbol.Name != "G1_2" {
		t.Errorf("search after upgrade: %v, %v; want G1_2 first", hits, err)
	}
}
