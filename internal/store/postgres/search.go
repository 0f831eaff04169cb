package postgres

import (
	"context"
	"fmt"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
	"github.com/sextant-dev/sextant/internal/store/textindex"
)

// SearchText implements graph.Reader: BM25 over the search rows of the
// pinned snapshots, in memory (textindex), each snapshot's index read
// from its symbols' word columns on its first search, as the sqlite
// store ranks them: a question gets the same answer from either store.
func (r *reader) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	var pins []pinned // of the indexes, in their order
	indexes := func() ([]*textindex.Index, error) {
		var ixs []*textindex.Index
		for _, p := range r.pins {
			if len(q.Repositories) > 0 && !containsString(q.Repositories, p.name) {
				continue
			}
			snap := p.snapshot
			ix, err := r.text.Index(ctx, p.name, snap, textindex.Loader{All: func(ctx context.Context, add func(textindex.Row)) error {
				return loadText(ctx, r, snap, add)
			}})
			if err != nil {
				return nil, err
			}
			pins, ixs = append(pins, p), append(ixs, ix)
		}
		return ixs, nil
	}
	return textindex.Find(q, indexes, func(hits []textindex.Hit) ([]graph.Symbol, error) {
		ids := make([]rowID, len(hits))
		for i, h := range hits {
			ids[i] = rowID{snap: pins[h.Index].snapshot, id: int32(h.ID)}
		}
		return r.symbolsByID(ctx, ids)
	})
}

// loadText adds the search rows of snapshot snap.
func loadText(ctx context.Context, r *reader, snap int64, add func(textindex.Row)) error {
	rows, err := r.tx.Query(ctx, `SELECT s.id, s.kind, s.path, s.start_line, s.w_name, s.w_doc, s.w_sig, s.w_body, s.w_path
		FROM symbols s WHERE s.snapshot_id = $1`, snap)
	if err != nil {
		return fmt.Errorf("loading search rows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var row textindex.Row
		var id, line int32
		var kind int16
		f := &row.Fields
		if err := rows.Scan(&id, &kind, &row.Path, &line, &f[0], &f[1], &f[2], &f[3], &f[4]); err != nil {
			return fmt.Errorf("loading search rows: %w", err)
		}
		row.ID, row.Kind, row.Line = int64(id), sqlbase.Kind(kind), int(line)
		add(row)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("loading search rows: %w", err)
	}
	return nil
}
