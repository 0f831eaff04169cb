package postgres

import (
	"context"
	"fmt"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// AddEffects implements graph.SnapshotWriter. Records are stored as
// given; an unknown effect or a record without a function is an error.
func (w *writer) AddEffects(ctx context.Context, recs []graph.EffectRecord) error {
	if err := w.lock(); err != nil {
		return err
	}
	defer w.mu.Unlock()
	for _, r := range recs {
		if _, ok := codes.Effect[r.Effect]; !ok || r.Function == "" {
			return fmt.Errorf("effect record of %q: unknown effect %q", r.Function, r.Effect)
		}
	}
	w.effects = append(w.effects, recs...)
	return nil
}

// copyEffects writes the buffered effect records of snapshot id.
func (w *writer) copyEffects(copyTable copyFunc, id int64) error {
	return copyTable("effects", []string{"snapshot_id", "func", "effect", "direct", "certain", "path", "line", "col",
		"next", "callee", "detail"}, len(w.effects), func(i int) []any {
		r := &w.effects[i]
		return []any{id, r.Function, codes.Effect[r.Effect], r.Direct, r.Certain, r.Path, r.Line, r.Col,
			nullable(r.Next), nullable(r.Callee), nullable(r.Detail)}
	})
}

// EffectRecords implements graph.Reader: the records of these functions
// in every pinned snapshot, ordered by function key, then effect code,
// then repository name. Duplicate and unknown keys are ignored.
func (r *reader) EffectRecords(ctx context.Context, keys []string) ([]graph.EffectRecord, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	var b builder
	from := r.from(&b, "effects", "x")
	b.Where("x.func = ANY(%s)", uniq(keys))
	rows, err := r.tx.Query(ctx, `SELECT x.func, x.effect, x.direct, x.certain, x.path, x.line, x.col,
		coalesce(x.next, ''), coalesce(x.callee, ''), coalesce(x.detail, '')`+from+b.Clause()+`
		ORDER BY x.func, x.effect, r.name`, b.Args...)
	if err != nil {
		return nil, fmt.Errorf("querying effect records: %w", err)
	}
	defer rows.Close()
	var out []graph.EffectRecord
	for rows.Next() {
		var e graph.EffectRecord
		var code int16
		if err := rows.Scan(&e.Function, &code, &e.Direct, &e.Certain, &e.Path, &e.Line, &e.Col,
			&e.Next, &e.Callee, &e.Detail); err != nil {
			return nil, fmt.Errorf("reading effect records: %w", err)
		}
		e.Effect = sqlbase.Effect(code)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading effect records: %w", err)
	}
	return out, nil
}
