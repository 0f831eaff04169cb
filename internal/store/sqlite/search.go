package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// searchWeights are the BM25 weights of the symbol_text columns (name,
// doc, signature, body, path), tuned on the search_code question set in
// bench/: a word in the name says most about what a symbol is, a word of
// its doc or signature somewhat less, a literal in its body or a path
// element least.
const searchWeights = "10.0, 4.0, 2.0, 1.0, 3.0"

// ftsTerm quotes a search term for an FTS5 query, so nothing in it is
// FTS5 syntax.
func ftsTerm(t string) string { return `"` + t + `"` }

// SearchText implements graph.Reader with SQLite FTS5 and BM25.
func (r *reader) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	expr, limit := sqlbase.Search(q, ftsTerm, " OR ")
	if expr == "" {
		return nil, nil
	}
	var b builder
	b.Where("symbol_text MATCH %s", expr)
	if len(q.Repositories) > 0 {
		var ph []string
		for _, name := range q.Repositories {
			ph = append(ph, b.Arg(name))
		}
		b.Conds = append(b.Conds, "r.name IN ("+strings.Join(ph, ", ")+")")
	}
	if len(q.Kinds) > 0 {
		var ph []string
		for _, k := range q.Kinds {
			c, ok := codes.Kind[k]
			if !ok {
				return nil, fmt.Errorf("unknown kind %q", k)
			}
			ph = append(ph, b.Arg(c))
		}
		b.Conds = append(b.Conds, "s.kind IN ("+strings.Join(ph, ", ")+")")
	}
	query := `SELECT ` + symbolColumns + `, -bm25(symbol_text, ` + searchWeights + `) AS score
		FROM symbol_text
		JOIN symbols s ON s.id = symbol_text.rowid
		JOIN repositories r ON r.current_snapshot = s.snapshot_id
		JOIN units u ON u.id = s.unit_id` + b.Clause() + `
		ORDER BY score DESC, r.name, u.path, s.start_line, s.id LIMIT ` + b.Arg(limit)
	rows, err := r.query(ctx, query, b.Args...)
	if err != nil {
		return nil, fmt.Errorf("searching text: %w", err)
	}
	defer rows.Close()
	return sqlbase.Collect(rows, func(sc sqlbase.Scanner) (graph.TextHit, error) {
		var h graph.TextHit
		var id, kind int64
		dest := sqlbase.AppendSymbolFields(append(make([]any, 0, 21), &id), &h.Symbol, &kind)
		err := sc.Scan(append(dest, &h.Score)...)
		h.Symbol.Kind = sqlbase.Kind(kind)
		return h, err
	}, "reading search hits")
}
