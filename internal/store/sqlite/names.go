package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// The store keeps, per snapshot, the columns that name matching and
// ranking read (names.Cache), so fuzzy, substring and prefix searches scan
// memory instead of every symbol row, and the interned strings of its
// data set (internedStrings). An amended snapshot (see amend.go) changes
// the rows of its data set in place, so both are cached by the published
// snapshot id (rev), which every amend renews, and loaded from the data
// set id.

// nameTable returns the name table of published snapshot rev of
// repository repo, loading it from data set data through r on first use.
func (r *reader) nameTable(ctx context.Context, repo string, rev, data int64) (*names.Table, error) {
	return r.names.Table(ctx, repo, rev, func(ctx context.Context) ([]names.Entry, error) {
		return loadNames(ctx, r, data)
	})
}

func loadNames(ctx context.Context, r *reader, id int64) ([]names.Entry, error) {
	rows, err := r.query(ctx, `SELECT s.id, s.name, s.lname, coalesce(s.qname, s.name), u.path, s.kind,
		s.exported, s.test_only, s.start_line, s.start_col, s.key, s.signature, s.end_line, s.end_col
		FROM symbols s JOIN units u ON u.id = s.unit_id WHERE s.snapshot_id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("loading symbol names: %w", err)
	}
	defer rows.Close()
	var out []names.Entry
	for rows.Next() {
		var e names.Entry
		var kind int64
		if err := rows.Scan(&e.ID, &e.Name, &e.LName, &e.QN, &e.Path, &kind, &e.Exported, &e.Test,
			&e.StartLine, &e.StartCol, &e.Key, &e.Signature, &e.EndLine, &e.EndCol); err != nil {
			return nil, fmt.Errorf("loading symbol names: %w", err)
		}
		e.Kind = sqlbase.Kind(kind)
		out = append(out, e)
	}
	names.Intern(out) // many symbols share a file
	return out, rows.Err()
}

// findInMemory answers FindSymbols from the name tables of the pinned
// snapshots: filter, rank, page, then load only the page's rows.
func (r *reader) findInMemory(ctx context.Context, q graph.SymbolQuery) ([]graph.Symbol, int, error) {
	if _, _, err := names.Search(q, nil); err != nil {
		return nil, 0, err // an unknown mode or kind, before any table loads
	}
	repos, err := r.pinnedSnapshots(ctx, q.Repositories)
	if err != nil {
		return nil, 0, err
	}
	tables := make([]names.RepoTable, 0, len(repos))
	for _, rs := range repos {
		t, err := r.nameTable(ctx, rs.name, rs.revision, rs.snapshot)
		if err != nil {
			return nil, 0, err
		}
		tables = append(tables, names.RepoTable{Repo: rs.name, Table: t})
	}
	page, total, err := names.Search(q, tables)
	if err != nil || len(page) == 0 {
		return nil, total, err
	}
	if q.Brief {
		// The table holds all a brief answer shows: no row to read.
		syms := make([]graph.Symbol, len(page))
		for i, c := range page {
			syms[i] = c.Entry.Brief(c.Repo)
		}
		return syms, total, nil
	}
	ids := make([]int64, len(page))
	for i, c := range page {
		ids[i] = c.ID
	}
	syms, err := r.symbolsByID(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	return syms, total, nil
}

type pinned struct {
	name     string
	snapshot int64 // the data set its rows are keyed by
	revision int64 // the published snapshot id
}

// pinnedSnapshots returns the current snapshot of each repository (all of
// them when names is empty) as this reader sees it.
func (r *reader) pinnedSnapshots(ctx context.Context, names []string) ([]pinned, error) {
	rows, err := r.query(ctx, `SELECT name, current_snapshot, coalesce(current_revision, current_snapshot)
		FROM repositories WHERE current_snapshot IS NOT NULL ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("listing snapshots: %w", err)
	}
	defer rows.Close()
	var out []pinned
	for rows.Next() {
		var p pinned
		if err := rows.Scan(&p.name, &p.snapshot, &p.revision); err != nil {
			return nil, fmt.Errorf("listing snapshots: %w", err)
		}
		if len(names) == 0 || slices.Contains(names, p.name) {
			out = append(out, p)
		}
	}
	return out, rows.Err()
}
