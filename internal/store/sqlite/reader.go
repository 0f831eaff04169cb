package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
	"github.com/sextant-dev/sextant/internal/store/textindex"
)

// reader is the Reader of the sqlite store: one read transaction on one
// read connection, pinned at creation. Every query joins each symbol's
// snapshot to repositories.current_snapshot, which inside the transaction
// names the snapshots current when the Reader was created.
type reader struct {
	conn  *sql.Conn
	tx    *sql.Tx
	names *names.Cache                      // the store's name tables, shared by its readers
	strs  *names.Snapshots[internedStrings] // the store's interned strings per published snapshot, likewise
	text  *textindex.Cache                  // the store's full-text indexes per published snapshot, likewise
	db    *sql.DB                           // the read pool, which stmts prepare on
	stmts *stmtCache                        // the store's prepared read statements; nil runs each text afresh

	closeOnce sync.Once
	closeErr  error
}

// Close implements graph.Reader: it ends the read transaction and returns
// the connection to the pool. Calling it again does nothing.
func (r *reader) Close() error {
	r.closeOnce.Do(func() {
		err := r.tx.Rollback()
		if errors.Is(err, sql.ErrTxDone) {
			err = nil
		}
		r.closeErr = errors.Join(err, r.conn.Close())
		if r.closeErr != nil {
			r.closeErr = fmt.Errorf("closing reader: %w", r.closeErr)
		}
	})
	return r.closeErr
}

// builder accumulates a WHERE clause and its numbered arguments (?1, ?2).
type builder = sqlbase.Builder[sqlbase.Question]

// prefixUpper returns the least string greater than every string with
// prefix p in byte order, and false when there is none (p is empty or all
// 0xff bytes). With it a prefix test is a range scan: p <= s < upper.
func prefixUpper(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// prefixCond returns a range condition on col for the prefix p, adding
// its arguments to b.
func prefixCond(b *builder, col, p string) string {
	if p == "" {
		return "1"
	}
	lo := b.Arg(p)
	if hi, ok := prefixUpper(p); ok {
		return fmt.Sprintf("(%s >= %s AND %s < %s)", col, lo, col, b.Arg(hi))
	}
	return fmt.Sprintf("%s >= %s", col, lo)
}

// symbolColumns select a symbol: its row id, then what
// sqlbase.AppendSymbolFields scans.
const symbolColumns = `s.id, s.key, r.name, u.package_path, u.package_name, u.module_path, u.path,
	` + sqlbase.SymbolColumns

// symbolFrom joins symbols to their repositories' current snapshots. The
// CROSS JOIN makes SQLite loop over the (few) repositories outside and
// search symbols by an index on (snapshot_id, ...) inside; left to itself,
// without statistics, the planner may scan symbols instead.
const symbolFrom = ` FROM repositories r
	CROSS JOIN symbols s ON s.snapshot_id = r.current_snapshot
	JOIN units u ON u.id = s.unit_id`

// symbolByIDFrom is symbolFrom for loading symbols by row id: symbols is
// the outer loop, so SQLite looks the ids up in the table rather than
// scanning a snapshot's index for them, which it would otherwise do,
// having no statistics to tell it that a snapshot holds many rows.
const symbolByIDFrom = ` FROM symbols s
	CROSS JOIN repositories r ON r.current_snapshot = s.snapshot_id
	JOIN units u ON u.id = s.unit_id`

// scanSymbols reads rows selected with symbolColumns.
func scanSymbols(rows *sql.Rows) ([]graph.Symbol, []int64, error) {
	defer rows.Close()
	return sqlbase.ScanSymbols[int64, int64](rows, func(dest []any, id *int64) []any { return append(dest, id) })
}

func (r *reader) querySymbols(ctx context.Context, query string, args ...any) ([]graph.Symbol, []int64, error) {
	rows, err := r.query(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("querying symbols: %w", err)
	}
	return scanSymbols(rows)
}

// snapshotOf returns the pinned current snapshot of the repository named
// name, or an error wrapping graph.ErrNotFound when there is none.
func (r *reader) snapshotOf(ctx context.Context, name string) (int64, error) {
	var id int64
	err := r.queryRow(ctx,
		`SELECT current_snapshot FROM repositories WHERE name = ? AND current_snapshot IS NOT NULL`, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("repository %q: %w", name, graph.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("looking up repository %q: %w", name, err)
	}
	return id, nil
}

// Repositories implements graph.Reader.
func (r *reader) Repositories(ctx context.Context) ([]graph.RepositoryStatus, error) {
	return r.statuses(ctx, "")
}

// Repository implements graph.Reader. A repository that exists but has no
// published snapshot is not found, as it is not listed by Repositories.
func (r *reader) Repository(ctx context.Context, name string) (graph.RepositoryStatus, error) {
	st, err := r.statuses(ctx, name)
	if err != nil {
		return graph.RepositoryStatus{}, err
	}
	if len(st) == 0 {
		return graph.RepositoryStatus{}, fmt.Errorf("repository %q: %w", name, graph.ErrNotFound)
	}
	return st[0], nil
}

// statuses returns the published repositories, or only the one named name.
func (r *reader) statuses(ctx context.Context, name string) ([]graph.RepositoryStatus, error) {
	var b builder
	if name != "" {
		b.Where("r.name = %s", name)
	}
	rows, err := r.query(ctx, `SELECT r.id, r.name, r.root, r.vcs_head, r.current_snapshot,
		s.id, s.created_at, s.packages, s.files, s.symbols, s.diagnostics, s.amended, s.stage, s.build, s.indexers, s.format
		FROM repositories r JOIN snapshots s ON s.id = coalesce(r.current_revision, r.current_snapshot)`+b.Clause()+` ORDER BY r.name`, b.Args...)
	if err != nil {
		return nil, fmt.Errorf("listing repositories: %w", err)
	}
	var out []graph.RepositoryStatus
	bySnap := map[int64]int{}
	for rows.Next() {
		var st graph.RepositoryStatus
		var data, created int64
		var amended, indexers string
		if err := rows.Scan(&st.ID, &st.Name, &st.Root, &st.VCSHead, &data, &st.Snapshot.ID, &created,
			&st.Packages, &st.Files, &st.Symbols, &st.Diagnostics, &amended, &st.Snapshot.Stage,
			&st.Snapshot.Build, &indexers, &st.Snapshot.Format); err != nil {
			rows.Close()
			return nil, fmt.Errorf("listing repositories: %w", err)
		}
		st.Snapshot.RepositoryID = st.ID
		st.Snapshot.CreatedAt = time.UnixMilli(created)
		st.Snapshot.Amended = splitLines(amended)
		st.Snapshot.Indexers = splitLines(indexers)
		bySnap[data] = len(out)
		out = append(out, st)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing repositories: %w", err)
	}
	if len(out) == 0 {
		return nil, nil
	}

	rows, err = r.query(ctx, `SELECT m.snapshot_id, m.path, m.dir, m.go_version
		FROM modules m JOIN repositories r ON r.current_snapshot = m.snapshot_id`+b.Clause()+`
		ORDER BY m.dir, m.path`, b.Args...)
	if err != nil {
		return nil, fmt.Errorf("listing modules: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var snap int64
		var m graph.Module
		if err := rows.Scan(&snap, &m.Path, &m.Dir, &m.GoVersion); err != nil {
			return nil, fmt.Errorf("listing modules: %w", err)
		}
		if i, ok := bySnap[snap]; ok {
			out[i].Modules = append(out[i].Modules, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing modules: %w", err)
	}
	return out, nil
}

// FindSymbols implements graph.Reader. An empty Mode means MatchExact; an
// unknown mode or kind is an INVALID_ARGUMENT error. Repository names in
// the query that do not exist simply match nothing. Ties left by the
// documented ranking are broken by column, then by the order symbols were
// written, so pages are stable.
//
// Every mode matches, ranks and pages in memory, over the name table
// cached per snapshot (names.go); only the page's rows are then read,
// and none for a brief query.
func (r *reader) FindSymbols(ctx context.Context, q graph.SymbolQuery) ([]graph.Symbol, int, error) {
	return r.findInMemory(ctx, q)
}

// symbolsByID loads the symbols with the given row ids, in that order.
func (r *reader) symbolsByID(ctx context.Context, ids []int64) ([]graph.Symbol, error) {
	const chunk = 500
	pos := make(map[int64]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	out := make([]graph.Symbol, len(ids))
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		var b builder
		ph := make([]string, len(part))
		for i, id := range part {
			ph[i] = b.Arg(id)
		}
		syms, got, err := r.querySymbols(ctx, `SELECT `+symbolColumns+symbolByIDFrom+
			` WHERE s.id IN (`+strings.Join(ph, ", ")+`)`, b.Args...)
		if err != nil {
			return nil, err
		}
		for i, s := range syms {
			out[pos[got[i]]] = s
		}
	}
	return out, nil
}

// SymbolByKey implements graph.Reader. Should two current snapshots hold
// the key, the symbol of the repository first by name wins.
func (r *reader) SymbolByKey(ctx context.Context, key string) (graph.Symbol, error) {
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+symbolFrom+
		` WHERE s.key = ? ORDER BY r.name, s.id LIMIT 1`, key)
	return sqlbase.OneSymbol(syms, err, key)
}

// LookupSymbols implements graph.Reader. It returns the symbols whose
// qualified name is exactly l.QualifiedName (none when it is empty) and
// that pass l's other filters, ordered by repository, path and position.
// A repository that does not exist matches nothing.
func (r *reader) LookupSymbols(ctx context.Context, l graph.Lookup) ([]graph.Symbol, error) {
	if l.QualifiedName == "" {
		return nil, nil
	}
	var b builder
	if strings.ContainsAny(l.QualifiedName, ".#") {
		b.Where("s.qname = %s", l.QualifiedName)
	} else {
		b.Where("s.lname = %s AND s.name = %s AND s.qname IS NULL", strings.ToLower(l.QualifiedName), l.QualifiedName)
	}
	sqlbase.LookupFilters(&b, l, "u", prefixCond)
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+symbolFrom+b.Clause()+
		` ORDER BY r.name, u.path, s.start_line, s.start_col, s.id`, b.Args...)
	return syms, err
}

// Children implements graph.Reader. Source order is by file path, then
// position. An empty repo searches every repository; a repo that has no
// published snapshot is an error wrapping graph.ErrNotFound.
func (r *reader) Children(ctx context.Context, repo, parentKey string) ([]graph.Symbol, error) {
	var b builder
	b.Where("s.parent = %s", parentKey)
	if repo != "" {
		snap, err := r.snapshotOf(ctx, repo)
		if err != nil {
			return nil, err
		}
		b.Where("s.snapshot_id = %s", snap)
	}
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+symbolFrom+b.Clause()+
		` ORDER BY r.name, u.path, s.start_line, s.start_col, s.id`, b.Args...)
	return syms, err
}

// File implements graph.Reader.
func (r *reader) File(ctx context.Context, repo, path string) (graph.File, error) {
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return graph.File{}, err
	}
	f, err := sqlbase.ScanFile(r.queryRow(ctx,
		`SELECT `+sqlbase.FileColumns+` FROM files WHERE snapshot_id = ? AND path = ?`, snap, path))
	if errors.Is(err, sql.ErrNoRows) {
		return graph.File{}, fmt.Errorf("file %s in %s: %w", path, repo, graph.ErrNotFound)
	}
	if err != nil {
		return graph.File{}, fmt.Errorf("reading file %s: %w", path, err)
	}
	return f, nil
}

// Files implements graph.Reader. An unknown repository is an error
// wrapping graph.ErrNotFound.
func (r *reader) Files(ctx context.Context, repo string) ([]graph.File, error) {
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	rows, err := r.query(ctx, `SELECT `+sqlbase.FileColumns+` FROM files WHERE snapshot_id = ? ORDER BY path`, snap)
	if err != nil {
		return nil, fmt.Errorf("listing files: %w", err)
	}
	defer rows.Close()
	return sqlbase.Collect(rows, sqlbase.ScanFile, "listing files")
}

const packageColumns = `path, name, module_path, dir, hash, test_only, errors, api`

func scanPackage(sc sqlbase.Scanner) (graph.Package, error) {
	var p graph.Package
	err := sc.Scan(&p.Path, &p.Name, &p.ModulePath, &p.Dir, &p.Hash, &p.TestOnly, &p.Errors, &p.API)
	return p, err
}

// Package implements graph.Reader. Should a snapshot hold two packages
// with the same import path, the first written wins.
func (r *reader) Package(ctx context.Context, repo, importPath string) (graph.Package, error) {
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return graph.Package{}, err
	}
	p, err := scanPackage(r.queryRow(ctx,
		`SELECT `+packageColumns+` FROM packages WHERE snapshot_id = ? AND path = ? ORDER BY rowid LIMIT 1`,
		snap, importPath))
	if errors.Is(err, sql.ErrNoRows) {
		return graph.Package{}, fmt.Errorf("package %s in %s: %w", importPath, repo, graph.ErrNotFound)
	}
	if err != nil {
		return graph.Package{}, fmt.Errorf("reading package %s: %w", importPath, err)
	}
	return p, nil
}

// Packages implements graph.Reader. An unknown repository is an error
// wrapping graph.ErrNotFound.
func (r *reader) Packages(ctx context.Context, repo string) ([]graph.Package, error) {
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	rows, err := r.query(ctx,
		`SELECT `+packageColumns+` FROM packages WHERE snapshot_id = ? ORDER BY path, rowid`, snap)
	if err != nil {
		return nil, fmt.Errorf("listing packages: %w", err)
	}
	defer rows.Close()
	return sqlbase.Collect(rows, scanPackage, "listing packages")
}

// Diagnostics implements graph.Reader. They are ordered by path (those
// without a file first), line and column. An unknown repository is an
// error wrapping graph.ErrNotFound.
func (r *reader) Diagnostics(ctx context.Context, repo string, limit int) ([]graph.Diagnostic, error) {
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := r.query(ctx, `SELECT `+sqlbase.DiagnosticColumns+` FROM diagnostics
		WHERE snapshot_id = ? ORDER BY path, line, col, package, rowid LIMIT ?`, snap, limit)
	if err != nil {
		return nil, fmt.Errorf("listing diagnostics: %w", err)
	}
	defer rows.Close()
	return sqlbase.Collect(rows, sqlbase.ScanDiagnostic, "listing diagnostics")
}
