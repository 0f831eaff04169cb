package query

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// OverviewLanguage is one language of a repository's snapshot.
type OverviewLanguage struct {
	Language   string `json:"language" jsonschema:"go, typescript, javascript or python"`
	Files      int    `json:"files" jsonschema:"its files indexed"`
	Symbols    int    `json:"symbols" jsonschema:"its symbols indexed"`
	Indexer    string `json:"indexer,omitempty" jsonschema:"what indexed it: go/types, scip-typescript, scip-python"`
	Version    string `json:"version,omitempty" jsonschema:"the indexer's version, as the snapshot recorded it"`
	NotIndexed string `json:"not_indexed,omitempty" jsonschema:"why it was found but not indexed, with the command that installs its indexer"`
}

// overviewLanguages counts the snapshot's files and symbols of each
// language, and names the languages found but not indexed (the index's
// skipped diagnostics that say so); none for a repository of Go alone,
// which costs a read of its files. Of the snapshot's symbols, Go has what
// the other languages do not; each indexer's version is the one the
// snapshot recorded (graph.Snapshot.Indexers).
func overviewLanguages(ctx context.Context, v *session.View, st graph.RepositoryStatus, skipped []string) ([]OverviewLanguage, error) {
	repo, total := st.Name, st.Symbols
	files, err := v.Reader().Files(ctx, repo)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading files")
	}
	rows := map[string]*OverviewLanguage{}
	var order []string
	row := func(lang string) *OverviewLanguage {
		if rows[lang] == nil {
			rows[lang] = &OverviewLanguage{Language: lang, Indexer: indexerOf(lang)}
			order = append(order, lang)
		}
		return rows[lang]
	}
	for _, f := range files {
		if lang := graph.LanguageOf(f.Path); lang != "" {
			row(lang).Files++
		}
	}
	others := 0
	if len(order) > 1 || len(order) == 1 && order[0] != graph.LanguageGo {
		syms, _, err := v.Reader().FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring, Repositories: []string{repo}})
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading symbols")
		}
		for _, s := range syms {
			if !s.IsGo() {
				row(s.Lang()).Symbols++
				others++
			}
		}
	}
	if r := rows[graph.LanguageGo]; r != nil {
		r.Symbols = max(0, total-others)
	}
	for _, rec := range st.Snapshot.Indexers {
		// "language tool version", as the index wrote it; TypeScript's
		// indexer serves JavaScript too.
		f := strings.Fields(rec)
		if len(f) != 3 {
			continue
		}
		for _, r := range rows {
			if r.Indexer == f[1] {
				r.Version = f[2]
			}
		}
	}
	for _, s := range skipped {
		if lang, why, ok := graph.NotIndexedOf(s); ok && rows[lang] == nil {
			r := row(lang)
			r.Indexer, r.NotIndexed = "", why
		}
	}
	if len(order) == 1 && order[0] == graph.LanguageGo {
		return nil, nil
	}
	out := make([]OverviewLanguage, 0, len(order))
	for _, l := range order {
		out = append(out, *rows[l])
	}
	slices.SortStableFunc(out, func(a, b OverviewLanguage) int {
		return cmp.Or(b.Files-a.Files, strings.Compare(a.Language, b.Language))
	})
	return out, nil
}

// indexerOf names what indexes a language.
func indexerOf(lang string) string {
	switch lang {
	case graph.LanguageGo:
		return "go/types"
	case "typescript", "javascript":
		return "scip-typescript"
	case "python":
		return "scip-python"
	}
	return ""
}
