package sqlite

import (
	"context"
	"fmt"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
	"github.com/sextant-dev/sextant/internal/store/textindex"
)

// SearchText implements graph.Reader: BM25 over the search rows of the
// pinned snapshots, in memory (textindex), each snapshot's index read
// from symbol_text on its first search, or made from the index of the
// snapshot it amends (see writer.Publish).
func (r *reader) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	indexes := func() ([]*textindex.Index, error) {
		pins, err := r.pinnedSnapshots(ctx, q.Repositories)
		if err != nil {
			return nil, err
		}
		ixs := make([]*textindex.Index, len(pins))
		for i, p := range pins {
			data := p.snapshot
			ixs[i], err = r.text.Index(ctx, p.name, p.revision, textindex.Loader{
				All: func(ctx context.Context, add func(textindex.Row)) error {
					return loadText(ctx, r, data, add, "")
				},
				Range: func(ctx context.Context, lo, hi int64, add func(textindex.Row)) error {
					return loadText(ctx, r, data, add, " AND s.id >= ? AND s.id < ?", lo, hi)
				},
			})
			if err != nil {
				return nil, err
			}
		}
		return ixs, nil
	}
	return textindex.Find(q, indexes, func(hits []textindex.Hit) ([]graph.Symbol, error) {
		ids := make([]int64, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		return r.symbolsByID(ctx, ids)
	})
}

// loadText adds the search rows of data set id, those that cond (a
// condition on s, the symbol, with its arguments) selects.
func loadText(ctx context.Context, r *reader, id int64, add func(textindex.Row), cond string, args ...any) error {
	rows, err := r.query(ctx, `SELECT s.id, s.kind, u.path, s.start_line, t.name, t.doc, t.signature, t.body, t.path
		FROM symbols s JOIN units u ON u.id = s.unit_id JOIN symbol_text t ON t.rowid = s.id
		WHERE s.snapshot_id = ?`+cond, append([]any{id}, args...)...)
	if err != nil {
		return fmt.Errorf("loading search rows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var row textindex.Row
		var kind int64
		f := &row.Fields
		if err := rows.Scan(&row.ID, &kind, &row.Path, &row.Line, &f[0], &f[1], &f[2], &f[3], &f[4]); err != nil {
			return fmt.Errorf("loading search rows: %w", err)
		}
		row.Kind = sqlbase.Kind(kind)
		add(row)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("loading search rows: %w", err)
	}
	return nil
}
