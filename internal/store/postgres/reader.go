package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
)

// reader is the Reader of the postgres store: one REPEATABLE READ, READ
// ONLY transaction on one pooled connection. Every query joins its rows'
// snapshot to repositories.current_snapshot, which inside the transaction
// names the snapshots current when the Reader was created. Its methods may
// be called from several goroutines; they take turns on the connection.
type reader struct {
	mu       sync.Mutex
	conn     *pgxpool.Conn
	tx       *pgx.Conn // conn's connection, inside the read transaction
	names    *names.Cache
	statuses []graph.RepositoryStatus // the published repositories of the view, by name
	pins     []pinned                 // their current snapshots
	snaps    map[string]int64         // the same, as a map

	closed bool
}

// Close implements graph.Reader: it ends the transaction and returns the
// connection to the pool, in the background, so a request does not wait
// for the round trip. Calling it again does nothing.
func (r *reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	go func() {
		if _, err := r.tx.Exec(context.Background(), `ROLLBACK`); err != nil {
			// The connection's state is unknown: do not return it to
			// the pool (Release closes a connection left in a
			// transaction or broken).
			r.tx.Close(context.Background())
		}
		r.conn.Release()
	}()
	return nil
}

// lock serialises the reader's use of its connection; it fails on a
// closed reader.
func (r *reader) lock() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errors.New("reader is closed")
	}
	return nil
}

// builder accumulates a WHERE clause and its numbered arguments.
type builder struct {
	conds []string
	args  []any
}

func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

func (b *builder) where(format string, args ...any) {
	ph := make([]any, len(args))
	for i, a := range args {
		ph[i] = b.arg(a)
	}
	b.conds = append(b.conds, fmt.Sprintf(format, ph...))
}

func (b *builder) clause() string {
	if len(b.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(b.conds, " AND ")
}

// prefixCond is a byte-wise prefix test on col: with COLLATE "C" columns,
// left(col, n) = p is exact, and for a range-scannable form the planner
// gets col >= p as well.
func (b *builder) prefixCond(col, p string) string {
	if p == "" {
		return "true"
	}
	ph := b.arg(p)
	return fmt.Sprintf("(%[1]s >= %[2]s AND starts_with(%[1]s, %[2]s))", col, ph)
}

const symbolColumns = `s.snapshot_id, s.id, s.key, r.name, s.package_path, s.package_name, s.module_path, s.path,
	s.name, coalesce(s.qname, s.name), s.kind, s.signature, s.doc, s.receiver, coalesce(s.parent, ''),
	s.exported, s.test_only, s.start_line, s.start_col, s.end_line, s.end_col`

// from returns the FROM clause that joins table (as alias) to the pinned
// snapshots, r(current_snapshot, name), and adds to b the condition that
// restricts alias.snapshot_id to them. The pinned snapshots come from the
// reader's memory as two arrays, not from a join with repositories: the
// condition on snapshot_id, the leading column of every index, then
// makes every lookup an index scan whatever the planner's statistics say
// (right after a bulk publish it has none).
func (r *reader) from(b *builder, table, alias string) string {
	snaps := make([]int64, len(r.pins))
	names := make([]string, len(r.pins))
	for i, p := range r.pins {
		snaps[i], names[i] = p.snapshot, p.name
	}
	ph := b.arg(snaps)
	b.conds = append(b.conds, alias+".snapshot_id = ANY("+ph+")")
	return ` FROM unnest(` + ph + `::bigint[], ` + b.arg(names) + `::text[]) AS r(current_snapshot, name)
		JOIN ` + table + ` ` + alias + ` ON ` + alias + `.snapshot_id = r.current_snapshot`
}

type rowID struct {
	snap int64
	id   int32
}

func scanSymbols(rows pgx.Rows) ([]graph.Symbol, []rowID, error) {
	defer rows.Close()
	var syms []graph.Symbol
	var ids []rowID
	for rows.Next() {
		var s graph.Symbol
		var id rowID
		var kind int16
		if err := rows.Scan(&id.snap, &id.id, &s.Key, &s.Repository, &s.PackagePath, &s.PackageName, &s.ModulePath,
			&s.Path, &s.Name, &s.QualifiedName, &kind, &s.Signature, &s.Doc, &s.Receiver, &s.Parent,
			&s.Exported, &s.TestOnly, &s.StartLine, &s.StartCol, &s.EndLine, &s.EndCol); err != nil {
			return nil, nil, fmt.Errorf("reading symbols: %w", err)
		}
		s.Kind = nameOf(kindNames[:], kind)
		syms = append(syms, s)
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading symbols: %w", err)
	}
	return syms, ids, nil
}

func (r *reader) querySymbols(ctx context.Context, query string, args ...any) ([]graph.Symbol, []rowID, error) {
	rows, err := r.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("querying symbols: %w", err)
	}
	return scanSymbols(rows)
}

// snapshotOf returns the pinned current snapshot of the repository named
// name, or an error wrapping graph.ErrNotFound.
func (r *reader) snapshotOf(ctx context.Context, name string) (int64, error) {
	id, ok := r.snaps[name]
	if !ok {
		return 0, fmt.Errorf("repository %q: %w", name, graph.ErrNotFound)
	}
	return id, nil
}

// Repositories implements graph.Reader, from the statuses read when the
// reader pinned its view.
func (r *reader) Repositories(ctx context.Context) ([]graph.RepositoryStatus, error) {
	out := make([]graph.RepositoryStatus, len(r.statuses))
	for i, st := range r.statuses {
		st.Modules = slices.Clone(st.Modules)
		out[i] = st
	}
	return out, nil
}

// Repository implements graph.Reader. A repository without a published
// snapshot is not found.
func (r *reader) Repository(ctx context.Context, name string) (graph.RepositoryStatus, error) {
	for _, st := range r.statuses {
		if st.Name == name {
			st.Modules = slices.Clone(st.Modules)
			return st, nil
		}
	}
	return graph.RepositoryStatus{}, fmt.Errorf("repository %q: %w", name, graph.ErrNotFound)
}

type pinned struct {
	name     string
	snapshot int64
}

// pinnedSnapshots returns the current snapshot of every published
// repository as this reader sees it, ordered by name.
func (r *reader) pinnedSnapshots(ctx context.Context) ([]pinned, error) {
	return r.pins, nil
}

const entryColumns = `s.id, s.name, s.lname, coalesce(s.qname, s.name), s.path, s.kind, s.exported, s.test_only,
	s.start_line, s.start_col`

func scanEntries(rows pgx.Rows) ([]names.Entry, error) {
	defer rows.Close()
	var out []names.Entry
	for rows.Next() {
		var e names.Entry
		var kind int16
		if err := rows.Scan(&e.ID, &e.Name, &e.LName, &e.QN, &e.Path, &kind, &e.Exported, &e.Test,
			&e.StartLine, &e.StartCol); err != nil {
			return nil, fmt.Errorf("loading symbol names: %w", err)
		}
		e.Kind = nameOf(kindNames[:], kind)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("loading symbol names: %w", err)
	}
	return out, nil
}

// FindSymbols implements graph.Reader. Prefix, substring and fuzzy queries
// match the per-snapshot name tables in memory; exact queries read only
// the matching rows through an index. Both rank and page with
// names.Search, so every mode orders alike (and as the sqlite store does).
func (r *reader) FindSymbols(ctx context.Context, q graph.SymbolQuery) ([]graph.Symbol, int, error) {
	if err := r.lock(); err != nil {
		return nil, 0, err
	}
	defer r.mu.Unlock()
	if _, err := names.Matcher(q.Mode, q.Name); err != nil {
		return nil, 0, err
	}
	pins, err := r.pinnedSnapshots(ctx)
	if err != nil {
		return nil, 0, err
	}
	var tables []names.RepoTable
	snapOf := map[string]int64{}
	exact := q.Mode == graph.MatchExact || q.Mode == ""
	var exactByRepo map[int64][]names.Entry
	if exact {
		col := "s.name"
		if strings.ContainsAny(q.Name, ".#") {
			col = "s.qname"
		}
		var b builder
		from := r.from(&b, "symbols", "s")
		b.where(col+" = %s", q.Name)
		rows, err := r.tx.Query(ctx, `SELECT s.snapshot_id, `+entryColumns+from+b.clause(), b.args...)
		if err != nil {
			return nil, 0, fmt.Errorf("finding symbols: %w", err)
		}
		exactByRepo = map[int64][]names.Entry{}
		for rows.Next() {
			var e names.Entry
			var snap int64
			var kind int16
			if err := rows.Scan(&snap, &e.ID, &e.Name, &e.LName, &e.QN, &e.Path, &kind, &e.Exported, &e.Test,
				&e.StartLine, &e.StartCol); err != nil {
				rows.Close()
				return nil, 0, fmt.Errorf("finding symbols: %w", err)
			}
			e.Kind = nameOf(kindNames[:], kind)
			exactByRepo[snap] = append(exactByRepo[snap], e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, 0, fmt.Errorf("finding symbols: %w", err)
		}
	}
	for _, p := range pins {
		snapOf[p.name] = p.snapshot
		if exact {
			tables = append(tables, names.RepoTable{Repo: p.name, Entries: exactByRepo[p.snapshot]})
			continue
		}
		if len(q.Repositories) > 0 && !containsString(q.Repositories, p.name) {
			continue
		}
		snap := p.snapshot
		entries, err := r.names.Table(ctx, p.name, snap, func(ctx context.Context) ([]names.Entry, error) {
			rows, err := r.tx.Query(ctx, `SELECT `+entryColumns+` FROM symbols s WHERE s.snapshot_id = $1`, snap)
			if err != nil {
				return nil, fmt.Errorf("loading symbol names: %w", err)
			}
			es, err := scanEntries(rows)
			names.Intern(es)
			return es, err
		})
		if err != nil {
			return nil, 0, err
		}
		tables = append(tables, names.RepoTable{Repo: p.name, Entries: entries})
	}
	hits, total, err := names.Search(q, tables)
	if err != nil || len(hits) == 0 {
		return nil, total, err
	}
	ids := make([]rowID, len(hits))
	for i, h := range hits {
		ids[i] = rowID{snap: snapOf[h.Repo], id: int32(h.ID)}
	}
	syms, err := r.symbolsByID(ctx, ids)
	return syms, total, err
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// symbolsByID loads the symbols with these row ids, in that order.
func (r *reader) symbolsByID(ctx context.Context, ids []rowID) ([]graph.Symbol, error) {
	snaps := make([]int64, len(ids))
	nums := make([]int32, len(ids))
	pos := make(map[rowID]int, len(ids))
	var pinSnaps []int64
	var pinNames []string
	for _, p := range r.pins {
		pinSnaps, pinNames = append(pinSnaps, p.snapshot), append(pinNames, p.name)
	}
	for i, id := range ids {
		snaps[i], nums[i] = id.snap, id.id
		pos[id] = i
	}
	syms, got, err := r.querySymbols(ctx, `SELECT `+symbolColumns+` FROM unnest($1::bigint[], $2::integer[]) AS k(snap, id)
		JOIN symbols s ON s.snapshot_id = k.snap AND s.id = k.id
		JOIN unnest($3::bigint[], $4::text[]) AS r(current_snapshot, name) ON r.current_snapshot = s.snapshot_id`,
		snaps, nums, pinSnaps, pinNames)
	if err != nil {
		return nil, err
	}
	out := make([]graph.Symbol, len(ids))
	for i, s := range syms {
		out[pos[got[i]]] = s
	}
	return out, nil
}

// SymbolByKey implements graph.Reader. Should two current snapshots hold
// the key, the symbol of the repository first by name wins.
func (r *reader) SymbolByKey(ctx context.Context, key string) (graph.Symbol, error) {
	if err := r.lock(); err != nil {
		return graph.Symbol{}, err
	}
	defer r.mu.Unlock()
	var b builder
	from := r.from(&b, "symbols", "s")
	b.where("s.key = %s", key)
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+from+b.clause()+` ORDER BY r.name, s.id LIMIT 1`, b.args...)
	if err != nil {
		return graph.Symbol{}, err
	}
	if len(syms) == 0 {
		return graph.Symbol{}, fmt.Errorf("symbol %s: %w", key, graph.ErrNotFound)
	}
	return syms[0], nil
}

// LookupSymbols implements graph.Reader: the symbols whose qualified name
// is exactly l.QualifiedName and that pass l's other filters, ordered by
// repository, path and position.
func (r *reader) LookupSymbols(ctx context.Context, l graph.Lookup) ([]graph.Symbol, error) {
	if l.QualifiedName == "" {
		return nil, nil
	}
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	var b builder
	from := r.from(&b, "symbols", "s")
	if strings.ContainsAny(l.QualifiedName, ".#") {
		b.where("s.qname = %s", l.QualifiedName)
	} else {
		b.where("s.name = %s AND s.qname IS NULL", l.QualifiedName)
	}
	if l.PackagePath != "" {
		b.where("s.package_path = %s", l.PackagePath)
	}
	if l.PackageName != "" {
		b.where("s.package_name = %s", l.PackageName)
	}
	if l.Repository != "" {
		b.where("r.name = %s", l.Repository)
	}
	if l.PathPrefix != "" {
		b.conds = append(b.conds, b.prefixCond("s.path", l.PathPrefix))
	}
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+from+b.clause()+
		` ORDER BY r.name, s.path, s.start_line, s.start_col, s.id`, b.args...)
	return syms, err
}

// Children implements graph.Reader, in source order (path, then position).
// An empty repo searches every repository; one without a published
// snapshot is an error wrapping graph.ErrNotFound.
func (r *reader) Children(ctx context.Context, repo, parentKey string) ([]graph.Symbol, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	var b builder
	from := r.from(&b, "symbols", "s")
	b.where("s.parent = %s", parentKey)
	if repo != "" {
		snap, err := r.snapshotOf(ctx, repo)
		if err != nil {
			return nil, err
		}
		b.where("s.snapshot_id = %s", snap)
	}
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+from+b.clause()+
		` ORDER BY r.name, s.path, s.start_line, s.start_col, s.id`, b.args...)
	return syms, err
}

// SymbolsByKeys implements graph.Reader. Duplicate and unknown keys are
// ignored; a key present in two current snapshots yields both symbols.
func (r *reader) SymbolsByKeys(ctx context.Context, keys []string) ([]graph.Symbol, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	var b builder
	from := r.from(&b, "symbols", "s")
	b.where("s.key = ANY(%s)", uniq(keys))
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+from+b.clause(), b.args...)
	if err != nil {
		return nil, fmt.Errorf("looking up symbols by key: %w", err)
	}
	return syms, nil
}

func uniq(keys []string) []string {
	seen := make(map[string]bool, len(keys))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

const fileColumns = `path, package, hash, size, mod_time_ns, test, ignored`

func scanFile(sc interface{ Scan(...any) error }) (graph.File, error) {
	var f graph.File
	err := sc.Scan(&f.Path, &f.Package, &f.Hash, &f.Size, &f.ModTimeNS, &f.Test, &f.Ignored)
	return f, err
}

// File implements graph.Reader.
func (r *reader) File(ctx context.Context, repo, path string) (graph.File, error) {
	if err := r.lock(); err != nil {
		return graph.File{}, err
	}
	defer r.mu.Unlock()
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return graph.File{}, err
	}
	f, err := scanFile(r.tx.QueryRow(ctx,
		`SELECT `+fileColumns+` FROM files WHERE snapshot_id = $1 AND path = $2`, snap, path))
	if errors.Is(err, pgx.ErrNoRows) {
		return graph.File{}, fmt.Errorf("file %s in %s: %w", path, repo, graph.ErrNotFound)
	}
	if err != nil {
		return graph.File{}, fmt.Errorf("reading file %s: %w", path, err)
	}
	return f, nil
}

// Files implements graph.Reader.
func (r *reader) Files(ctx context.Context, repo string) ([]graph.File, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	rows, err := r.tx.Query(ctx, `SELECT `+fileColumns+` FROM files WHERE snapshot_id = $1 ORDER BY path`, snap)
	if err != nil {
		return nil, fmt.Errorf("listing files: %w", err)
	}
	defer rows.Close()
	var out []graph.File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, fmt.Errorf("listing files: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing files: %w", err)
	}
	return out, nil
}

const packageColumns = `path, name, module_path, dir, hash, test_only, errors`

func scanPackage(sc interface{ Scan(...any) error }) (graph.Package, error) {
	var p graph.Package
	err := sc.Scan(&p.Path, &p.Name, &p.ModulePath, &p.Dir, &p.Hash, &p.TestOnly, &p.Errors)
	return p, err
}

// Package implements graph.Reader. Should a snapshot hold two packages
// with the same import path, the first written wins.
func (r *reader) Package(ctx context.Context, repo, importPath string) (graph.Package, error) {
	if err := r.lock(); err != nil {
		return graph.Package{}, err
	}
	defer r.mu.Unlock()
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return graph.Package{}, err
	}
	p, err := scanPackage(r.tx.QueryRow(ctx, `SELECT `+packageColumns+` FROM packages
		WHERE snapshot_id = $1 AND path = $2 ORDER BY seq LIMIT 1`, snap, importPath))
	if errors.Is(err, pgx.ErrNoRows) {
		return graph.Package{}, fmt.Errorf("package %s in %s: %w", importPath, repo, graph.ErrNotFound)
	}
	if err != nil {
		return graph.Package{}, fmt.Errorf("reading package %s: %w", importPath, err)
	}
	return p, nil
}

// Packages implements graph.Reader.
func (r *reader) Packages(ctx context.Context, repo string) ([]graph.Package, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	rows, err := r.tx.Query(ctx, `SELECT `+packageColumns+` FROM packages WHERE snapshot_id = $1 ORDER BY path, seq`, snap)
	if err != nil {
		return nil, fmt.Errorf("listing packages: %w", err)
	}
	defer rows.Close()
	var out []graph.Package
	for rows.Next() {
		p, err := scanPackage(rows)
		if err != nil {
			return nil, fmt.Errorf("listing packages: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing packages: %w", err)
	}
	return out, nil
}

// Diagnostics implements graph.Reader, ordered by path (those without a
// file first), line and column.
func (r *reader) Diagnostics(ctx context.Context, repo string, limit int) ([]graph.Diagnostic, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	var lim any
	if limit > 0 {
		lim = limit
	}
	rows, err := r.tx.Query(ctx, `SELECT package, path, line, col, kind, message FROM diagnostics
		WHERE snapshot_id = $1 ORDER BY path, line, col, package, seq LIMIT $2`, snap, lim)
	if err != nil {
		return nil, fmt.Errorf("listing diagnostics: %w", err)
	}
	defer rows.Close()
	var out []graph.Diagnostic
	for rows.Next() {
		var d graph.Diagnostic
		if err := rows.Scan(&d.Package, &d.Path, &d.Line, &d.Col, &d.Kind, &d.Message); err != nil {
			return nil, fmt.Errorf("listing diagnostics: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing diagnostics: %w", err)
	}
	return out, nil
}
