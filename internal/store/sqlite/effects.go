package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// Effect rows (schema version 3). The statements and the upgrade live in
// this file, apart from the other versions', so that a renumbering of
// schema versions at a merge touches only the version constant and the
// chain in migrate.

// schemaEffects creates the table of effect records: one row per effect
// of a function (graph.EffectRecord), keyed by snapshot like everything
// else. Keys are stored as text rather than interned ids: the interned
// table is numbered at Publish, after the records arrive, and a
// snapshot's records are far fewer than its references (about one per
// function and effect). effect is a small integer (effectNames).
var schemaEffects = []string{
	`CREATE TABLE effects (
		snapshot_id INTEGER NOT NULL,
		func TEXT NOT NULL,
		effect INTEGER NOT NULL,
		direct INTEGER NOT NULL,
		certain INTEGER NOT NULL,
		path TEXT NOT NULL,
		line INTEGER NOT NULL,
		col INTEGER NOT NULL,
		next TEXT,
		callee TEXT,
		detail TEXT
	)`,
	`CREATE INDEX effects_func ON effects (snapshot_id, func)`,
}

// upgradeEffects adds the effects table to a database of the previous
// version. Snapshots written before it have no effect rows, and serving
// them would answer "not analysed" for every function, so, as the
// version 2 upgrade does, it drops every snapshot (the store is a cache;
// the next call re-indexes) and keeps the repositories.
func upgradeEffects(ctx context.Context, tx *sql.Tx) error {
	for _, table := range []string{"refs", "edges", "implements", "interned",
		"symbols", "units", "files", "packages", "modules", "diagnostics", "snapshots"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table); err != nil {
			return fmt.Errorf("emptying %s: %w", table, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE repositories SET current_snapshot = NULL, vcs_head = ''`); err != nil {
		return fmt.Errorf("resetting repositories: %w", err)
	}
	if ok, err := hasTable(ctx, tx, "effects"); err != nil || ok {
		return err
	}
	for _, stmt := range schemaEffects {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("creating effects table: %w", err)
		}
	}
	return nil
}

// AddEffects implements graph.SnapshotWriter. Records are stored as
// given; an unknown effect is an error.
func (w *writer) AddEffects(ctx context.Context, recs []graph.EffectRecord) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	if len(recs) == 0 {
		return nil
	}
	for _, r := range recs {
		if _, ok := codes.Effect[r.Effect]; !ok || r.Function == "" {
			return fmt.Errorf("effect record of %q: unknown effect %q", r.Function, r.Effect)
		}
	}
	// Many rows per statement (see batch): a statement per row cost more
	// than the rows themselves. Sorted by function, the entries of
	// effects_func are appended rather than put at random places of it;
	// the sort is stable, so a function's records keep the order given.
	if !slices.IsSortedFunc(recs, func(a, b graph.EffectRecord) int { return strings.Compare(a.Function, b.Function) }) {
		recs = slices.Clone(recs)
		slices.SortStableFunc(recs, func(a, b graph.EffectRecord) int { return strings.Compare(a.Function, b.Function) })
	}
	b := &batch{head: `INSERT INTO effects (snapshot_id, func, effect, direct, certain, path, line, col,
		next, callee, detail) VALUES `, cols: 11}
	defer b.close(w.wtx())
	for _, r := range recs {
		if err := b.add(ctx, w.wtx(), w.snapID, r.Function, codes.Effect[r.Effect], r.Direct, r.Certain,
			r.Path, r.Line, r.Col, nullable(r.Next), nullable(r.Callee), nullable(r.Detail)); err != nil {
			return fmt.Errorf("inserting effect record of %s: %w", r.Function, err)
		}
	}
	if err := b.flush(ctx, w.wtx()); err != nil {
		return fmt.Errorf("inserting effect records: %w", err)
	}
	return nil
}

// nullable stores "" as NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// EffectRecords implements graph.Reader.
func (r *reader) EffectRecords(ctx context.Context, keys []string) ([]graph.EffectRecord, error) {
	var out []graph.EffectRecord
	err := chunks(keys, func(part []string) error {
		var b builder
		in := inList(&b, part)
		rows, err := r.query(ctx, `SELECT x.func, x.effect, x.direct, x.certain, x.path, x.line, x.col,
			coalesce(x.next, ''), coalesce(x.callee, ''), coalesce(x.detail, '')
			FROM repositories r CROSS JOIN effects x ON x.snapshot_id = r.current_snapshot AND x.func IN `+in+`
			ORDER BY x.func, x.effect, r.name`, b.Args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e graph.EffectRecord
			var code int64
			if err := rows.Scan(&e.Function, &code, &e.Direct, &e.Certain, &e.Path, &e.Line, &e.Col,
				&e.Next, &e.Callee, &e.Detail); err != nil {
				return err
			}
			e.Effect = sqlbase.Effect(code)
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("querying effect records: %w", err)
	}
	if len(keys) > keyChunk {
		sortEffectRecords(out)
	}
	return out, nil
}

// sortEffectRecords orders records from several chunks by function key,
// then effect code.
func sortEffectRecords(recs []graph.EffectRecord) {
	slices.SortStableFunc(recs, func(a, b graph.EffectRecord) int {
		return cmp.Or(strings.Compare(a.Function, b.Function), cmp.Compare(codes.Effect[a.Effect], codes.Effect[b.Effect]))
	})
}
