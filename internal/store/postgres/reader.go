package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
	"github.com/sextant-dev/sextant/internal/store/textindex"
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
	text     *textindex.Cache
	cache    *snapCache
	statuses []graph.RepositoryStatus // the published repositories of the view, by name
	pins     []pinned                 // their current snapshots
	snaps    map[string]int64         // the same, as a map

	// Rows read ahead, in the round trip of an earlier query of the same
	// request, because the query layer asks for them next (see
	// prefetch.go); they belong to the pinned view, like every answer.
	kids  map[kidsKey][]graph.Symbol      // Children, by repository ("" for all) and parent key
	byKey map[string][]graph.Symbol       // SymbolsByKeys, per key (empty: no such symbol)
	impls map[implsKey][]graph.Implements // Implementations, per key and side
	refs  *refsPage                       // a page of Refs the request said it would ask for (graph.WithRefsAhead)
	sym   *symbolRead                     // the symbol the request said it would read first (graph.WithSymbolAhead)
	// The lookups the request said it would make first
	// (graph.WithLookupsAhead), with their answers.
	looked map[graph.Lookup][]graph.Symbol

	pinning bool // queries are being queued in the pinning batch: from names no pinned snapshot

	parking       *parking // where Close leaves the connection
	rollbackFirst bool     // the connection was parked: the pinning batch ends its transaction

	closed bool
}

// Close implements graph.Reader: it parks the connection, its
// transaction open, for the next Read to end (see park.go), or when the
// parking is full ends the transaction and returns the connection to the
// pool in the background; a request does not wait for either. Calling it
// again does nothing.
func (r *reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if !r.tx.IsClosed() && r.parking.park(r.conn) {
		return nil
	}
	go rollback(r.conn)
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

// builder accumulates a WHERE clause and its numbered arguments ($1, $2).
type builder = sqlbase.Builder[sqlbase.Dollar]

// prefixCond is a byte-wise prefix test on col: with COLLATE "C" columns,
// left(col, n) = p is exact, and for a range-scannable form the planner
// gets col >= p as well.
func prefixCond(b *builder, col, p string) string {
	if p == "" {
		return "true"
	}
	ph := b.Arg(p)
	return fmt.Sprintf("(%[1]s >= %[2]s AND starts_with(%[1]s, %[2]s))", col, ph)
}

// symbolColumns select a symbol: its row id, then what
// sqlbase.AppendSymbolFields scans.
const symbolColumns = `s.snapshot_id, s.id, s.key, r.name, s.package_path, s.package_name, s.module_path, s.path,
	` + sqlbase.SymbolColumns

// from returns the FROM clause that joins table (as alias) to the pinned
// snapshots, r(current_snapshot, name), and adds to b the condition that
// restricts alias.snapshot_id to them. The pinned snapshots come from the
// reader's memory as two arrays, not from a join with repositories: the
// condition on snapshot_id, the leading column of every index, then
// makes every lookup an index scan whatever the planner's statistics say
// (right after a bulk publish it has none).
//
// Before the pin has been read (queries sent in the pinning batch, see
// Store.Read) the snapshots are the transaction's current ones, read by
// the server in an initial plan: the same condition on snapshot_id.
func (r *reader) from(b *builder, table, alias string) string {
	if r.pinning {
		b.Conds = append(b.Conds, alias+".snapshot_id = ANY(ARRAY(SELECT current_snapshot FROM repositories WHERE current_snapshot IS NOT NULL))")
		return ` FROM (SELECT current_snapshot, name FROM repositories WHERE current_snapshot IS NOT NULL) AS r
		JOIN ` + table + ` ` + alias + ` ON ` + alias + `.snapshot_id = r.current_snapshot`
	}
	if len(r.pins) == 1 {
		// One repository, the common case: its snapshot as a constant,
		// which the planner folds in (a function scan of the arrays
		// below costs a point query a tenth of its time).
		snap, name := b.Arg(r.pins[0].snapshot), b.Arg(r.pins[0].name)
		b.Conds = append(b.Conds, alias+".snapshot_id = "+snap)
		return ` FROM (SELECT ` + snap + `::bigint AS current_snapshot, ` + name + `::text AS name) AS r
		JOIN ` + table + ` ` + alias + ` ON ` + alias + `.snapshot_id = r.current_snapshot`
	}
	snaps := make([]int64, len(r.pins))
	names := make([]string, len(r.pins))
	for i, p := range r.pins {
		snaps[i], names[i] = p.snapshot, p.name
	}
	ph := b.Arg(snaps)
	b.Conds = append(b.Conds, alias+".snapshot_id = ANY("+ph+")")
	return ` FROM unnest(` + ph + `::bigint[], ` + b.Arg(names) + `::text[]) AS r(current_snapshot, name)
		JOIN ` + table + ` ` + alias + ` ON ` + alias + `.snapshot_id = r.current_snapshot`
}

type rowID struct {
	snap int64
	id   int32
}

func scanSymbols(rows pgx.Rows) ([]graph.Symbol, []rowID, error) {
	defer rows.Close()
	return sqlbase.ScanSymbols[rowID, int16](rows, func(dest []any, id *rowID) []any { return append(dest, &id.snap, &id.id) })
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
	s.start_line, s.start_col, s.key, s.signature, s.end_line, s.end_col`

func scanEntries(rows pgx.Rows) ([]names.Entry, error) {
	defer rows.Close()
	var out []names.Entry
	for rows.Next() {
		var e names.Entry
		var kind int16
		if err := rows.Scan(&e.ID, &e.Name, &e.LName, &e.QN, &e.Path, &kind, &e.Exported, &e.Test,
			&e.StartLine, &e.StartCol, &e.Key, &e.Signature, &e.EndLine, &e.EndCol); err != nil {
			return nil, fmt.Errorf("loading symbol names: %w", err)
		}
		e.Kind = sqlbase.Kind(kind)
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
	var exactSyms map[rowID]graph.Symbol
	if exact {
		// One round trip: the matching rows in full, ranked and paged
		// in memory below (lname as the writer computes it).
		col := "s.name"
		if strings.ContainsAny(q.Name, ".#") {
			col = "s.qname"
		}
		var b builder
		from := r.from(&b, "symbols", "s")
		b.Where(col+" = %s", q.Name)
		syms, ids, err := r.querySymbols(ctx, `SELECT `+symbolColumns+from+b.Clause(), b.Args...)
		if err != nil {
			return nil, 0, fmt.Errorf("finding symbols: %w", err)
		}
		exactByRepo = map[int64][]names.Entry{}
		exactSyms = make(map[rowID]graph.Symbol, len(syms))
		for i, s := range syms {
			id := ids[i]
			exactSyms[id] = s
			exactByRepo[id.snap] = append(exactByRepo[id.snap], names.Entry{ID: int64(id.id), Name: s.Name,
				LName: strings.ToLower(s.Name), QN: s.QualifiedName, Path: s.Path, Kind: s.Kind, Exported: s.Exported,
				Test: s.TestOnly, StartLine: s.StartLine, StartCol: s.StartCol})
		}
	}
	for _, p := range pins {
		snapOf[p.name] = p.snapshot
		if exact {
			tables = append(tables, names.RepoTable{Repo: p.name, Table: names.NewTable(exactByRepo[p.snapshot])})
			continue
		}
		if len(q.Repositories) > 0 && !containsString(q.Repositories, p.name) {
			continue
		}
		snap := p.snapshot
		table, err := r.names.Table(ctx, p.name, snap, func(ctx context.Context) ([]names.Entry, error) {
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
		tables = append(tables, names.RepoTable{Repo: p.name, Table: table})
	}
	hits, total, err := names.Search(q, tables)
	if err != nil || len(hits) == 0 {
		return nil, total, err
	}
	ids := make([]rowID, len(hits))
	for i, h := range hits {
		ids[i] = rowID{snap: snapOf[h.Repo], id: int32(h.ID)}
	}
	if exact {
		syms := make([]graph.Symbol, len(ids))
		for i, id := range ids {
			syms[i] = exactSyms[id]
		}
		return syms, total, nil
	}
	if q.Brief {
		// The table holds all a brief answer shows: no row to read.
		syms := make([]graph.Symbol, len(hits))
		for i, h := range hits {
			syms[i] = h.Entry.Brief(h.Repo)
		}
		return syms, total, nil
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
// the key, the symbol of the repository first by name wins. In the same
// round trip it reads the members of the key, should it name a type, or
// the page of uses the request named with graph.WithRefsAhead instead.
func (r *reader) SymbolByKey(ctx context.Context, key string) (graph.Symbol, error) {
	if err := r.lock(); err != nil {
		return graph.Symbol{}, err
	}
	defer r.mu.Unlock()
	if r.sym != nil && r.sym.key == key {
		return sqlbase.OneSymbol(slices.Clone(r.sym.syms), nil, key)
	}
	batch := &pgx.Batch{}
	read := r.queueSymbolByKey(ctx, batch, key)
	rs := r.tx.SendBatch(ctx, batch)
	defer rs.Close()
	syms, err := read(rs)
	if err == nil {
		err = rs.Close()
	}
	return sqlbase.OneSymbol(syms, err, key)
}

// symbolRead is what SymbolByKey read of a key ahead.
type symbolRead struct {
	key  string
	syms []graph.Symbol
}

// queueSymbolByKey queues on batch SymbolByKey's queries: the symbol and
// its members, or, when the request said it asks for them next
// (graph.WithRefsAhead), the symbol and the page of uses. The returned
// function reads their results from the batch, keeping the members and
// the page.
func (r *reader) queueSymbolByKey(ctx context.Context, batch *pgx.Batch, key string) func(pgx.BatchResults) ([]graph.Symbol, error) {
	var b builder
	from := r.from(&b, "symbols", "s")
	b.Where("s.key = %s", key)
	batch.Queue(`SELECT `+symbolColumns+from+b.Clause()+` ORDER BY r.name, s.id LIMIT 1`, b.Args...)
	aq, ahead := graph.RefsAhead(ctx)
	// A request that reads the uses next does not list the members (see
	// graph.WithRefsAhead): Children would read them if asked.
	members := !ahead
	if members {
		var kb builder
		kb.Where("s.parent = %s", key)
		r.queueChildren(batch, &kb)
	}
	var encl bool // the page's enclosing declarations are read too
	if ahead && (r.refs != nil && r.refs.fp == aq.Fingerprint() || aq.Offset > 0) {
		ahead = false // read already, or a later page (which an empty answer does not count)
	}
	if ahead {
		// An invalid query queues nothing: Refs will report it.
		n := batch.Len()
		var err error
		encl, err = r.queueRefs(ctx, batch, aq)
		ahead = err == nil && batch.Len() > n
	}
	var readRelated func(pgx.BatchResults, []graph.Symbol) error
	if ahead {
		readRelated = r.queueRelated(batch, key)
	}
	return func(rs pgx.BatchResults) ([]graph.Symbol, error) {
		syms, err := batchSymbols(rs)
		if err != nil {
			return nil, err
		}
		if members {
			kids, err := batchSymbols(rs)
			if err != nil {
				return nil, err
			}
			r.keepChildren([]string{key}, kids)
		}
		if ahead {
			rows, err := r.readRefs(rs, encl)
			if err != nil {
				return nil, err
			}
			r.refs = &refsPage{fp: aq.Fingerprint(), rows: rows}
		}
		if readRelated != nil {
			if err := readRelated(rs, syms); err != nil {
				return nil, err
			}
		}
		return syms, nil
	}
}

// LookupSymbols implements graph.Reader: the symbols whose qualified name
// is exactly l.QualifiedName and that pass l's other filters, ordered by
// repository, path and position. In the same round trip it reads the
// members of the types and interfaces among them (see prefetch.go).
func (r *reader) LookupSymbols(ctx context.Context, l graph.Lookup) ([]graph.Symbol, error) {
	all, err := r.LookupSymbolsAll(ctx, []graph.Lookup{l})
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// LookupSymbolsAll answers LookupSymbols for each lookup, all in one round
// trip: the query layer tries the ways a qualified name can be read
// (as written, after a package name, after an import path) at once.
func (r *reader) LookupSymbolsAll(ctx context.Context, ls []graph.Lookup) ([][]graph.Symbol, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	if out, ok := r.lookedAhead(ls); ok {
		return out, nil
	}
	batch := &pgx.Batch{}
	read := r.queueLookups(batch, ls)
	if batch.Len() == 0 {
		return make([][]graph.Symbol, len(ls)), nil
	}
	rs := r.tx.SendBatch(ctx, batch)
	defer rs.Close()
	out, err := read(rs)
	if err != nil {
		return nil, err
	}
	if err := rs.Close(); err != nil {
		return nil, fmt.Errorf("looking up symbols: %w", err)
	}
	return out, nil
}

// lookedAhead answers ls from the lookups read ahead, when it holds every
// one.
func (r *reader) lookedAhead(ls []graph.Lookup) ([][]graph.Symbol, bool) {
	if r.looked == nil {
		return nil, false
	}
	out := make([][]graph.Symbol, len(ls))
	for i, l := range ls {
		if l.QualifiedName == "" {
			continue
		}
		syms, ok := r.looked[l]
		if !ok {
			return nil, false
		}
		out[i] = slices.Clone(syms)
	}
	return out, true
}

// queueLookups queues on batch the queries of LookupSymbolsAll(ls), each
// lookup's symbols and the members of the types and interfaces among
// them; the returned function reads their results, keeping the members
// for Children.
func (r *reader) queueLookups(batch *pgx.Batch, ls []graph.Lookup) func(pgx.BatchResults) ([][]graph.Symbol, error) {
	var asked []int
	for i, l := range ls {
		if l.QualifiedName == "" {
			continue
		}
		asked = append(asked, i)
		var b builder
		from := r.lookup(&b, l)
		batch.Queue(`SELECT `+symbolColumns+from+b.Clause()+` ORDER BY r.name, s.path, s.start_line, s.start_col, s.id`, b.Args...)
		// The members' query selects its parents with the same lookup,
		// in a subquery whose aliases hide the outer ones.
		var kb builder
		sub := r.lookup(&kb, l)
		kb.Conds = append(kb.Conds, "s.kind IN (4, 5)") // types and interfaces (kindNames)
		kb.Conds = []string{"s.parent IN (SELECT s.key" + sub + kb.Clause() + ")"}
		r.queueChildren(batch, &kb)
	}
	return func(rs pgx.BatchResults) ([][]graph.Symbol, error) {
		out := make([][]graph.Symbol, len(ls))
		for _, i := range asked {
			syms, kids, err := batchSymbolsAndMembers(rs)
			if err != nil {
				return nil, err
			}
			out[i] = syms
			var parents []string
			for _, s := range syms {
				if s.Kind == graph.KindType || s.Kind == graph.KindInterface {
					parents = append(parents, s.Key)
				}
			}
			r.keepChildren(parents, kids)
		}
		return out, nil
	}
}

// lookup adds l's conditions to b and returns the FROM clause they need.
func (r *reader) lookup(b *builder, l graph.Lookup) string {
	from := r.from(b, "symbols", "s")
	if strings.ContainsAny(l.QualifiedName, ".#") {
		b.Where("s.qname = %s", l.QualifiedName)
	} else {
		b.Where("s.name = %s AND s.qname IS NULL", l.QualifiedName)
	}
	sqlbase.LookupFilters(b, l, "s", prefixCond)
	return from
}

// Children implements graph.Reader, in source order (path, then position).
// An empty repo searches every repository; one without a published
// snapshot is an error wrapping graph.ErrNotFound.
func (r *reader) Children(ctx context.Context, repo, parentKey string) ([]graph.Symbol, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	if repo != "" {
		if _, err := r.snapshotOf(ctx, repo); err != nil {
			return nil, err
		}
	}
	if kids, ok := r.kids[kidsKey{repo, parentKey}]; ok {
		if len(kids) == 0 {
			return nil, nil // as the query answers
		}
		return slices.Clone(kids), nil
	}
	var b builder
	from := r.from(&b, "symbols", "s")
	b.Where("s.parent = %s", parentKey)
	if repo != "" {
		b.Where("s.snapshot_id = %s", r.snaps[repo])
	}
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+from+b.Clause()+
		` ORDER BY r.name, s.path, s.start_line, s.start_col, s.id`, b.Args...)
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
	if syms, ok := r.prefetched(keys); ok {
		return syms, nil
	}
	var b builder
	from := r.from(&b, "symbols", "s")
	b.Where("s.key = ANY(%s)", uniq(keys))
	syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+from+b.Clause(), b.Args...)
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

// cached returns the cached rows of repo's pinned snapshot.
func (r *reader) cached(ctx context.Context, repo string) (*snapRows, error) {
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	return r.cache.rows(repo, snap), nil
}

// files returns the files of repo's pinned snapshot, by path, read once
// per snapshot per process. The caller holds r.mu.
func (r *reader) files(ctx context.Context, repo string) ([]graph.File, error) {
	c, err := r.cached(ctx, repo)
	if err != nil {
		return nil, err
	}
	snap := r.snaps[repo]
	return c.files.get(ctx, func(ctx context.Context) ([]graph.File, error) {
		rows, err := r.tx.Query(ctx, `SELECT `+sqlbase.FileColumns+` FROM files WHERE snapshot_id = $1 ORDER BY path`, snap)
		if err != nil {
			return nil, fmt.Errorf("listing files: %w", err)
		}
		defer rows.Close()
		return sqlbase.Collect(rows, sqlbase.ScanFile, "listing files")
	})
}

// File implements graph.Reader, from the snapshot's cached file list.
func (r *reader) File(ctx context.Context, repo, path string) (graph.File, error) {
	return cachedRow(ctx, r, repo, path, r.files, func(f graph.File) string { return f.Path }, "file")
}

// Files implements graph.Reader, from the snapshot's cached file list.
func (r *reader) Files(ctx context.Context, repo string) ([]graph.File, error) {
	return cachedRows(ctx, r, repo, r.files)
}

// cachedRow returns the row at path of one of repo's lists that a
// snapshot caches, sorted by path (list, called with r.mu held): the
// first of equal paths, the first written; none is an ErrNotFound error
// naming what a row is.
func cachedRow[T any](ctx context.Context, r *reader, repo, path string, list func(context.Context, string) ([]T, error), pathOf func(T) string, what string) (T, error) {
	var zero T
	if err := r.lock(); err != nil {
		return zero, err
	}
	defer r.mu.Unlock()
	rows, err := list(ctx, repo)
	if err != nil {
		return zero, err
	}
	if i, ok := slices.BinarySearchFunc(rows, path, func(x T, p string) int { return strings.Compare(pathOf(x), p) }); ok {
		return rows[i], nil
	}
	return zero, fmt.Errorf("%s %s in %s: %w", what, path, repo, graph.ErrNotFound)
}

// cachedRows returns a copy of one of repo's lists that a snapshot
// caches (list, called with r.mu held).
func cachedRows[T any](ctx context.Context, r *reader, repo string, list func(context.Context, string) ([]T, error)) ([]T, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	rows, err := list(ctx, repo)
	return slices.Clone(rows), err
}

const packageColumns = `path, name, module_path, dir, hash, test_only, errors`

func scanPackage(sc sqlbase.Scanner) (graph.Package, error) {
	var p graph.Package
	err := sc.Scan(&p.Path, &p.Name, &p.ModulePath, &p.Dir, &p.Hash, &p.TestOnly, &p.Errors)
	return p, err
}

// packages returns the packages of repo's pinned snapshot, by path and
// then the order they were written, read once per snapshot per process.
// The caller holds r.mu.
func (r *reader) packages(ctx context.Context, repo string) ([]graph.Package, error) {
	c, err := r.cached(ctx, repo)
	if err != nil {
		return nil, err
	}
	snap := r.snaps[repo]
	return c.packages.get(ctx, func(ctx context.Context) ([]graph.Package, error) {
		rows, err := r.tx.Query(ctx, `SELECT `+packageColumns+` FROM packages WHERE snapshot_id = $1 ORDER BY path, seq`, snap)
		if err != nil {
			return nil, fmt.Errorf("listing packages: %w", err)
		}
		defer rows.Close()
		return sqlbase.Collect(rows, scanPackage, "listing packages")
	})
}

// Package implements graph.Reader, from the snapshot's cached package
// list. Should a snapshot hold two packages with the same import path, the
// first written wins.
func (r *reader) Package(ctx context.Context, repo, importPath string) (graph.Package, error) {
	return cachedRow(ctx, r, repo, importPath, r.packages, func(p graph.Package) string { return p.Path }, "package")
}

// Packages implements graph.Reader, from the snapshot's cached package
// list.
func (r *reader) Packages(ctx context.Context, repo string) ([]graph.Package, error) {
	return cachedRows(ctx, r, repo, r.packages)
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
	rows, err := r.tx.Query(ctx, `SELECT `+sqlbase.DiagnosticColumns+` FROM diagnostics
		WHERE snapshot_id = $1 ORDER BY path, line, col, package, seq LIMIT $2`, snap, lim)
	if err != nil {
		return nil, fmt.Errorf("listing diagnostics: %w", err)
	}
	defer rows.Close()
	return sqlbase.Collect(rows, sqlbase.ScanDiagnostic, "listing diagnostics")
}
