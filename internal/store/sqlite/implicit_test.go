package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestUpgradeToImplicit opens a version 8 database, whose implicit
// references are stored under their target key + "~implicit": after the
// upgrade they are read back under the key itself, marked implicit, and
// found by RefQuery.Implicit alone, the snapshot is kept, and no interned
// string is such a target any more. B~implicit names a key the snapshot
// did not intern otherwise.
func TestUpgradeToImplicit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v8.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := applyAll(ctx, tx, schemaV6); err != nil {
		t.Fatal(err)
	}
	if err := upgradeToPacked(ctx, tx); err != nil {
		t.Fatal(err)
	}
	uses := func(pos ...[2]int32) []byte {
		var p packer
		for _, lc := range pos {
			p.use(useEntry{line: lc[0], col: lc[1], endCol: lc[1] + 5, encl: 5, kind: 1})
		}
		return p.buf
	}
	stmts := slices.Concat(schemaStage, []string{
		`INSERT INTO meta (key, value) VALUES ('schema_version', '8')`,
		`INSERT INTO repositories (id, name, root, vcs_head, current_snapshot) VALUES (4, 'tools', '/src/tools', 'abc', 2)`,
		`INSERT INTO snapshots (id, repo_id, created_at) VALUES (2, 4, 0)`,
		`INSERT INTO interned (id, snapshot_id, value) VALUES (1, 2, 'A'), (2, 2, 'A~implicit'), (3, 2, 'p.go'),
			(4, 2, 'B~implicit'), (5, 2, 'E')`,
	})
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for _, row := range []struct {
		target int
		uses   []byte
	}{{1, uses([2]int32{3, 2})}, {2, uses([2]int32{3, 2}, [2]int32{5, 1})}, {4, uses([2]int32{7, 1})}} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO refs (snapshot_id, target, path, uses) VALUES (2, ?, 3, ?)`,
			row.target, row.uses); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 8 database: %v", err)
	}
	defer s.Close()
	if v, err := schemaVersion(ctx, s.rdb); err != nil || v != SchemaVersion {
		t.Errorf("schema version after upgrade = %d, %v; want %d", v, err, SchemaVersion)
	}
	var left int
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM interned WHERE value LIKE '%~implicit'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d interned implicit targets left after the upgrade (%v), want none", left, err)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	read := func(q graph.RefQuery) string {
		t.Helper()
		refs, total, err := r.Refs(ctx, q)
		if err != nil || total != len(refs) {
			t.Fatalf("Refs(%+v) = %d of %d, %v", q, len(refs), total, err)
		}
		var out []string
		for _, ref := range refs {
			out = append(out, fmt.Sprintf("%s %s:%d:%d in %s implicit=%v", ref.Target, ref.Path, ref.Line, ref.Col,
				ref.Enclosing, ref.Implicit))
		}
		return strings.Join(out, "; ")
	}
	for _, c := range []struct {
		q    graph.RefQuery
		want string
	}{
		{graph.RefQuery{Targets: []string{"A", "B"}}, "A p.go:3:2 in E implicit=false"},
		{graph.RefQuery{Implicit: []string{"A", "B"}},
			"A p.go:3:2 in E implicit=true; A p.go:5:1 in E implicit=true; B p.go:7:1 in E implicit=true"},
		{graph.RefQuery{Targets: []string{"A"}, Implicit: []string{"A"}},
			"A p.go:3:2 in E implicit=false; A p.go:3:2 in E implicit=true; A p.go:5:1 in E implicit=true"},
		{graph.RefQuery{Targets: []string{"A~implicit"}}, ""},
	} {
		if got := read(c.q); got != c.want {
			t.Errorf("Refs(%+v)\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}
