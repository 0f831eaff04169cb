package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// searchWeights are the BM25 weights of the symbol_text columns (name,
// doc, signature, body, path), tuned on the search_code question set in
// bench/: a word in the name says most about what a symbol is, a word of
// its doc or signature somewhat less, a literal in its body or a path
// element least.
const searchWeights = "10.0, 4.0, 2.0, 1.0, 3.0"

// defaultSearchLimit is the number of hits SearchText returns when the
// query sets none.
const defaultSearchLimit = 100

// searchColumns returns the words a symbol is indexed under, one string
// per symbol_text column. Identifiers are split into words
// (graph.SearchWords) so that "parse config" finds ParseConfig.
func searchColumns(sym *graph.Symbol) (name, doc, sig, body, path string) {
	words := func(s string) string { return string(graph.AppendSearchText(nil, s)) }
	name = strings.Join(graph.ExpandAbbreviations(graph.SearchWords(sym.QualifiedName)), " ")
	if sym.Name != sym.QualifiedName {
		name += " " + words(sym.Name) // the member's own name counts twice
	}
	return name, words(sym.Doc), words(sym.Signature), words(sym.Text),
		words(sym.Path + " " + sym.PackagePath)
}

// matchExpr turns words into an FTS5 query that matches any of them.
// Words are quoted, so nothing in them is FTS5 syntax; a word with
// characters SearchWords would not produce is split by it first.
func matchExpr(words []string) string {
	var terms []string
	seen := map[string]bool{}
	for _, w := range words {
		for _, part := range graph.SearchWords(w) {
			if !seen[part] {
				seen[part] = true
				terms = append(terms, `"`+part+`"`)
			}
		}
	}
	return strings.Join(terms, " OR ")
}

// SearchText implements graph.Reader with SQLite FTS5 and BM25.
func (r *reader) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	expr := matchExpr(q.Words)
	if expr == "" {
		return nil, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	var b builder
	b.where("symbol_text MATCH %s", expr)
	if len(q.Repositories) > 0 {
		var ph []string
		for _, name := range q.Repositories {
			ph = append(ph, b.arg(name))
		}
		b.conds = append(b.conds, "r.name IN ("+strings.Join(ph, ", ")+")")
	}
	if len(q.Kinds) > 0 {
		var ph []string
		for _, k := range q.Kinds {
			c, ok := kindCodes[k]
			if !ok {
				return nil, fmt.Errorf("unknown kind %q", k)
			}
			ph = append(ph, b.arg(c))
		}
		b.conds = append(b.conds, "s.kind IN ("+strings.Join(ph, ", ")+")")
	}
	query := `SELECT ` + symbolColumns + `, -bm25(symbol_text, ` + searchWeights + `) AS score
		FROM symbol_text
		JOIN symbols s ON s.id = symbol_text.rowid
		JOIN repositories r ON r.current_snapshot = s.snapshot_id
		JOIN units u ON u.id = s.unit_id` + b.clause() + `
		ORDER BY score DESC, r.name, u.path, s.start_line, s.id LIMIT ` + b.arg(limit)
	rows, err := r.query(ctx, query, b.args...)
	if err != nil {
		return nil, fmt.Errorf("searching text: %w", err)
	}
	defer rows.Close()
	var hits []graph.TextHit
	for rows.Next() {
		var h graph.TextHit
		s := &h.Symbol
		var id, kind int64
		if err := rows.Scan(&id, &s.Key, &s.Repository, &s.PackagePath, &s.PackageName, &s.ModulePath, &s.Path,
			&s.Name, &s.QualifiedName, &kind, &s.Signature, &s.Doc, &s.Receiver, &s.Parent,
			&s.Exported, &s.TestOnly, &s.StartLine, &s.StartCol, &s.EndLine, &s.EndCol, &h.Score); err != nil {
			return nil, fmt.Errorf("reading search hits: %w", err)
		}
		s.Kind = kindOf(kind)
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading search hits: %w", err)
	}
	return hits, nil
}
