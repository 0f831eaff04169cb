package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// rankWeights are ts_rank's weights of the D, C, B and A fields (body;
// signature and path; doc; name): the same order of importance as the
// sqlite store's BM25 weights.
const rankWeights = "{0.1, 0.3, 0.4, 1.0}"

// SearchText implements graph.Reader with PostgreSQL full-text search
// (ts_rank over the weighted tsvector of migration 3).
func (r *reader) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	// A tsquery source matching any term: every term is made of letters
	// and digits only (sqlbase.SearchTerms), so nothing in it is tsquery
	// syntax.
	expr, limit := sqlbase.Search(q, func(t string) string { return t }, " | ")
	if expr == "" {
		return nil, nil
	}
	var b builder
	from := r.from(&b, "symbols", "s")
	// The query is a FROM item, parsed once: sessions use generic plans
	// (see Open), in which to_tsquery in the select list would be called
	// again for every row.
	from = " FROM to_tsquery('english', " + b.Arg(expr) + ") AS tq," + strings.TrimPrefix(from, " FROM")
	b.Conds = append(b.Conds, "s.search @@ tq")
	if len(q.Repositories) > 0 {
		b.Where("r.name = ANY(%s)", q.Repositories)
	}
	if len(q.Kinds) > 0 {
		var kinds []int16
		for _, k := range q.Kinds {
			c, ok := codes.Kind[k]
			if !ok {
				return nil, fmt.Errorf("unknown kind %q", k)
			}
			kinds = append(kinds, c)
		}
		b.Where("s.kind = ANY(%s)", kinds)
	}
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	rows, err := r.tx.Query(ctx, `SELECT `+symbolColumns+`, ts_rank('`+rankWeights+`', s.search, tq) AS score`+
		from+b.Clause()+` ORDER BY score DESC, r.name, s.path, s.start_line, s.id LIMIT `+b.Arg(limit), b.Args...)
	if err != nil {
		return nil, fmt.Errorf("searching text: %w", err)
	}
	defer rows.Close()
	return sqlbase.Collect(rows, func(sc sqlbase.Scanner) (graph.TextHit, error) {
		var h graph.TextHit
		var id rowID
		var kind int16
		var score float32
		dest := sqlbase.AppendSymbolFields(append(make([]any, 0, 22), &id.snap, &id.id), &h.Symbol, &kind)
		err := sc.Scan(append(dest, &score)...)
		h.Symbol.Kind, h.Score = sqlbase.Kind(kind), float64(score)
		return h, err
	}, "reading search hits")
}
