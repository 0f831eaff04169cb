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

// searchSlack is how many more rows than asked for the full-text index
// alone ranks before the rows are joined to their symbols (see
// SearchText).
const searchSlack = 2

// SearchText implements graph.Reader with SQLite FTS5 and BM25.
//
// BM25 is computed for every row that matches any term, and joining each
// of them to its symbol, unit and repository before sorting cost as much
// again (on prometheus, a question's words match a quarter of the rows).
// So the full-text index alone ranks its best searchSlack×limit rows
// first, and only those are joined and filtered. That is the answer
// whenever it cannot differ from ranking every row: when the index had
// no more rows than those, or when the last hit kept scores above the
// last row ranked (a row not ranked scores no more than that, so it could
// neither enter nor break a tie). Otherwise (most rows filtered out by
// repository or kind) every matching row is ranked as before.
func (r *reader) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	expr, limit := sqlbase.Search(q, ftsTerm, " OR ")
	if expr == "" {
		return nil, nil
	}
	var b builder
	match := b.Arg(expr)
	ranked := limit * searchSlack
	rankedArg := b.Arg(ranked) // unused by the second query; its number is below the ones it uses
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
	order := ` ORDER BY score DESC, r.name, u.path, s.start_line, s.id LIMIT ` + b.Arg(limit)
	joins := ` JOIN symbols s ON s.id = hit.id
		JOIN repositories r ON r.current_snapshot = s.snapshot_id
		JOIN units u ON u.id = s.unit_id`
	query := `WITH hit AS MATERIALIZED (SELECT rowid AS id, -bm25(symbol_text, ` + searchWeights + `) AS score
			FROM symbol_text WHERE symbol_text MATCH ` + match + ` ORDER BY score DESC LIMIT ` + rankedArg + `),
		least AS (SELECT count(*) AS n, min(score) AS low FROM hit)
		SELECT ` + symbolColumns + `, hit.score AS score, least.n, least.low
		FROM hit CROSS JOIN least` + joins + b.Clause() + order
	var n int
	var low float64
	hits, err := r.searchHits(ctx, query, b.Args, &n, &low)
	// n and low come with the rows: none kept, nothing is known.
	if err != nil || len(hits) > 0 && (n < ranked || len(hits) == limit && hits[limit-1].Score > low) {
		return hits, err
	}
	query = `WITH hit AS (SELECT rowid AS id, -bm25(symbol_text, ` + searchWeights + `) AS score
			FROM symbol_text WHERE symbol_text MATCH ` + match + `)
		SELECT ` + symbolColumns + `, hit.score AS score, 0, 0
		FROM hit` + joins + b.Clause() + order
	return r.searchHits(ctx, query, b.Args, &n, &low)
}

// searchHits runs a query of SearchText, whose rows are symbolColumns, the
// score, and two numbers it scans into n and low.
func (r *reader) searchHits(ctx context.Context, query string, args []any, n *int, low *float64) ([]graph.TextHit, error) {
	rows, err := r.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("searching text: %w", err)
	}
	defer rows.Close()
	return sqlbase.Collect(rows, func(sc sqlbase.Scanner) (graph.TextHit, error) {
		var h graph.TextHit
		var id, kind int64
		dest := sqlbase.AppendSymbolFields(append(make([]any, 0, 23), &id), &h.Symbol, &kind)
		err := sc.Scan(append(dest, &h.Score, n, low)...)
		h.Symbol.Kind = sqlbase.Kind(kind)
		return h, err
	}, "reading search hits")
}
