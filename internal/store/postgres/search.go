package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// rankWeights are ts_rank's weights of the D, C, B and A fields (body;
// signature and path; doc; name): the same order of importance as the
// sqlite store's BM25 weights.
const rankWeights = "{0.1, 0.3, 0.4, 1.0}"

// defaultSearchLimit is the number of hits SearchText returns when the
// query sets none.
const defaultSearchLimit = 100

// searchWords returns the words a symbol is found by, per field, as the
// sqlite store indexes them: identifiers split into words, the name's
// abbreviations expanded.
func searchWords(sym *graph.Symbol) (name, doc, sig, body, path string) {
	words := func(s string) string { return strings.Join(graph.SearchWords(s), " ") }
	name = strings.Join(graph.ExpandAbbreviations(graph.SearchWords(sym.QualifiedName)), " ")
	if sym.Name != sym.QualifiedName {
		name += " " + words(sym.Name) // the member's own name counts twice
	}
	return name, words(sym.Doc), words(sym.Signature), words(sym.Text), words(sym.Path + " " + sym.PackagePath)
}

// tsQuery turns words into a tsquery source matching any of them. Every
// term is made of letters and digits only (graph.SearchWords), so nothing
// in it is tsquery syntax.
func tsQuery(words []string) string {
	var terms []string
	seen := map[string]bool{}
	for _, w := range words {
		for _, part := range graph.SearchWords(w) {
			if !seen[part] {
				seen[part] = true
				terms = append(terms, part)
			}
		}
	}
	return strings.Join(terms, " | ")
}

// SearchText implements graph.Reader with PostgreSQL full-text search
// (ts_rank over the weighted tsvector of migration 3).
func (r *reader) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	expr := tsQuery(q.Words)
	if expr == "" {
		return nil, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	var b builder
	from := r.from(&b, "symbols", "s")
	// The query is a FROM item, parsed once: sessions use generic plans
	// (see Open), in which to_tsquery in the select list would be called
	// again for every row.
	from = " FROM to_tsquery('english', " + b.arg(expr) + ") AS tq," + strings.TrimPrefix(from, " FROM")
	b.conds = append(b.conds, "s.search @@ tq")
	if len(q.Repositories) > 0 {
		b.where("r.name = ANY(%s)", q.Repositories)
	}
	if len(q.Kinds) > 0 {
		var kinds []int16
		for _, k := range q.Kinds {
			c, ok := kindCodes[k]
			if !ok {
				return nil, fmt.Errorf("unknown kind %q", k)
			}
			kinds = append(kinds, c)
		}
		b.where("s.kind = ANY(%s)", kinds)
	}
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	rows, err := r.tx.Query(ctx, `SELECT `+symbolColumns+`, ts_rank('`+rankWeights+`', s.search, tq) AS score`+
		from+b.clause()+` ORDER BY score DESC, r.name, s.path, s.start_line, s.id LIMIT `+b.arg(limit), b.args...)
	if err != nil {
		return nil, fmt.Errorf("searching text: %w", err)
	}
	defer rows.Close()
	var hits []graph.TextHit
	for rows.Next() {
		var h graph.TextHit
		s := &h.Symbol
		var id rowID
		var kind int16
		var score float32
		if err := rows.Scan(&id.snap, &id.id, &s.Key, &s.Repository, &s.PackagePath, &s.PackageName, &s.ModulePath,
			&s.Path, &s.Name, &s.QualifiedName, &kind, &s.Signature, &s.Doc, &s.Receiver, &s.Parent,
			&s.Exported, &s.TestOnly, &s.StartLine, &s.StartCol, &s.EndLine, &s.EndCol, &score); err != nil {
			return nil, fmt.Errorf("reading search hits: %w", err)
		}
		s.Kind = nameOf(kindNames[:], kind)
		h.Score = float64(score)
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading search hits: %w", err)
	}
	return hits, nil
}
