package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// The writer keeps a snapshot's cross-references in memory, in compact
// rows of string numbers, and inserts them at Publish in the order of the
// indexes they feed: strings sorted by value (and numbered in that order,
// so interned's table and its (snapshot_id, value) index both grow at
// their ends), references by target and call edges by caller. Inserted in
// the order they arrive, every row would instead land at a random place
// of each index, touching (and dirtying) a random page of it: for
// golang.org/x/tools that made writing them slower than writing symbols.
// Memory stays modest: 28 bytes a reference or edge, plus each distinct
// string once (under 30 MB in all for golang.org/x/tools), released when
// the writer ends.

// noString stands for an absent optional string in the rows below.
const noString = -1

// refRow is a buffered graph.Ref; strings are numbers of xrefBuffer.strs.
type refRow struct {
	target, path, encl int32
	line, col, endCol  int32
	kind               uint8
	test, implicit     bool
}

// edgeRow is a buffered graph.CallEdge.
type edgeRow struct {
	caller, callee, calleeName, path int32
	line, col                        int32
	cov, via                         uint8
	goStmt, deferStmt                bool
}

// implRow is a buffered graph.Implements.
type implRow struct {
	typ, iface int32
	pointer    bool
}

// xrefBuffer holds a snapshot's cross-references until Publish, or until
// FlushXRefs inserts those buffered so far: then the strings already
// numbered keep their interned ids (ids), and the rows inserted are let go.
type xrefBuffer struct {
	nums  map[string]int32 // string → its number, an index into strs
	strs  []string
	ids   []int64 // interned ids of strs[:len(ids)], the strings inserted so far
	refs  []refRow
	edges []edgeRow
	impls []implRow
}

func newXrefBuffer() *xrefBuffer { return &xrefBuffer{nums: map[string]int32{}} }

// num returns the number of s, giving it the next one on first use.
func (x *xrefBuffer) num(s string) int32 {
	n, ok := x.nums[s]
	if !ok {
		n = int32(len(x.strs))
		x.nums[s] = n
		x.strs = append(x.strs, s)
	}
	return n
}

// optNum is num for optional strings: "" is noString.
func (x *xrefBuffer) optNum(s string) int32 {
	if s == "" {
		return noString
	}
	return x.num(s)
}

// batchRows is how many rows one INSERT statement carries at Publish,
// which divides the cost of a statement in database/sql and the driver
// (several microseconds) among them while staying far below SQLite's limit
// on parameters (11 columns × 100).
const batchRows = 100

// textBatchRows is how many search rows one INSERT into symbol_text
// carries. FTS5 writes the terms it holds in memory out as a new segment
// at every statement of a transaction (its savepoint), and then merges
// segments: a hundred symbols a statement made two hundred small
// segments for prometheus's 20k symbols, and their merging, about 40% of
// the search index's cost. Two thousand rows of six columns stay below
// SQLite's limit of 32,766 parameters.
const textBatchRows = 2000

// wtx is the writer's transaction and the connection it runs on, which
// batches use directly (see batch).
type wtx struct {
	*sql.Tx
	conn *sql.Conn
}

// batch inserts rows into one table rows (batchRows) at a time with a prepared
// multi-row INSERT; flush inserts the rest. It executes its statements on
// the driver's connection (sql.Conn.Raw), inside the writer's
// transaction, with one argument slice reused for every statement:
// database/sql would allocate and check the arguments anew for each, which
// for prometheus's half million rows cost about 200 MB of garbage and a
// tenth of the inserts' time.
type batch struct {
	head string // INSERT ... (columns) VALUES
	cols int
	rows int // rows a statement, batchRows when 0
	args []driver.NamedValue
	full driver.Stmt // head with placeholders for rows rows
}

// values returns the VALUES list of n rows of b.cols columns.
func (b *batch) values(n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", b.cols), ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

// add buffers one row, inserting the buffer when it is full.
func (b *batch) add(ctx context.Context, tx wtx, vals ...any) error {
	for _, v := range vals {
		switch v.(type) {
		case int64, string, bool, nil:
		default:
			var err error
			if v, err = driver.DefaultParameterConverter.ConvertValue(v); err != nil {
				return err
			}
		}
		b.args = append(b.args, driver.NamedValue{Ordinal: len(b.args) + 1, Value: v})
	}
	rows := b.rows
	if rows == 0 {
		rows = batchRows
	}
	if len(b.args) < b.cols*rows {
		return nil
	}
	err := tx.conn.Raw(func(dc any) error {
		if b.full == nil {
			var err error
			if b.full, err = dc.(driver.ConnPrepareContext).PrepareContext(ctx, b.head+b.values(rows)); err != nil {
				return err
			}
		}
		_, err := b.full.(driver.StmtExecContext).ExecContext(ctx, b.args)
		return err
	})
	b.args = b.args[:0]
	return err
}

// close releases the prepared statement, if any. It must be called
// before the connection is closed.
func (b *batch) close(tx wtx) {
	if b.full != nil {
		_ = tx.conn.Raw(func(any) error { return b.full.Close() })
		b.full = nil
	}
}

// flush inserts the rows still buffered.
func (b *batch) flush(ctx context.Context, tx wtx) error {
	if len(b.args) == 0 {
		return nil
	}
	args := make([]any, len(b.args))
	for i, a := range b.args {
		args[i] = a.Value
	}
	_, err := tx.ExecContext(ctx, b.head+b.values(len(b.args)/b.cols), args...)
	b.args = b.args[:0]
	return err
}

// insert writes the buffered cross-references into the snapshot snap,
// inside tx, and lets the rows go. The caller holds the write lock, so the
// interned ids it allocates (after the largest in use) are free. It may be
// called more than once (see FlushXRefs): each call numbers the strings
// that arrived since the last one, in sorted order among themselves, after
// those, so a snapshot's strings get consecutive ids and each is inserted
// once.
func (x *xrefBuffer) insert(ctx context.Context, tx wtx, snap int64) error {
	if fresh := x.strs[len(x.ids):]; len(fresh) > 0 {
		var base int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM interned`).Scan(&base); err != nil {
			return fmt.Errorf("allocating interned ids: %w", err)
		}
		// Number the strings in sorted order.
		order := make([]int32, len(fresh))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(fresh[a], fresh[b]) })
		ids := make([]int64, len(fresh))
		b := &batch{head: `INSERT INTO interned (id, snapshot_id, value) VALUES `, cols: 3}
		defer b.close(tx)
		for rank, n := range order {
			ids[n] = base + int64(rank)
			if err := b.add(ctx, tx, ids[n], snap, fresh[n]); err != nil {
				return fmt.Errorf("inserting interned strings: %w", err)
			}
		}
		if err := b.flush(ctx, tx); err != nil {
			return fmt.Errorf("inserting interned strings: %w", err)
		}
		x.ids = append(x.ids, ids...)
	}
	if len(x.refs)+len(x.edges)+len(x.impls) == 0 {
		return nil
	}
	if err := x.insertRows(ctx, tx, snap, x.ids); err != nil {
		return err
	}
	x.refs, x.edges, x.impls = nil, nil, nil
	return nil
}

// insertRows inserts the buffered rows into snapshot snap, the string
// numbered n having the interned id ids[n]: references and call sites
// packed a row per key and file (see packed.go), in key order, which is
// the order of the indexes they feed.
func (x *xrefBuffer) insertRows(ctx context.Context, tx wtx, snap int64, ids []int64) error {
	id := func(n int32) int64 {
		if n == noString {
			return 0
		}
		return ids[n]
	}

	// pack inserts the packed rows of head's table (snapshot, key, path,
	// [implicit when flagged,] [unresolved when counted,] entries: cols
	// columns) through a batch; put puts their entries into g in the order
	// of the rows.
	pack := func(head string, cols int, counted bool, put func(g *rowPacker) error) error {
		b := &batch{head: head, cols: cols}
		defer b.close(tx)
		g := rowPacker{counted: counted, add: func(vals ...any) error { return b.add(ctx, tx, vals...) }}
		if err := put(&g); err != nil {
			return err
		}
		if err := g.flush(); err != nil {
			return err
		}
		return b.flush(ctx, tx)
	}
	// References by target, then plain before implicit, then path.
	path := func(r *refRow) int32 { return r.path }
	err := pack(`INSERT INTO refs (snapshot_id, target, path, implicit, uses) VALUES `, 5, false, func(g *rowPacker) error {
		g.flagged = true
		byPath := plainFirst(sortByID(x.refs, ids, path))
		for _, r := range sortByID(byPath, ids, func(r *refRow) int32 { return r.target }) {
			if err := g.use(snap, id(r.target), id(r.path), r.implicit, useEntry{line: r.line, col: r.col,
				endCol: r.endCol, encl: id(r.encl), kind: r.kind, test: r.test}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("inserting references: %w", err)
	}

	// Call sites by caller, then those that have a callee by callee.
	edges := sortByID(x.edges, ids, func(e *edgeRow) int32 { return e.path })
	sites := func(head string, counted bool, key, other func(e *edgeRow) int32) error {
		cols := 4
		if counted {
			cols++
		}
		return pack(head, cols, counted, func(g *rowPacker) error {
			for _, e := range sortByID(edges, ids, key) {
				if err := g.site(snap, id(key(&e)), id(e.path), e.site(id(other(&e)), id)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	caller := func(e *edgeRow) int32 { return e.caller }
	callee := func(e *edgeRow) int32 { return e.callee }
	err = sites(`INSERT INTO calls_by_caller (snapshot_id, caller, path, unresolved, sites) VALUES `, true, caller, callee)
	if err == nil {
		edges = slices.DeleteFunc(edges, func(e edgeRow) bool { return e.callee == noString })
		err = sites(`INSERT INTO calls_by_callee (snapshot_id, callee, path, sites) VALUES `, false, callee, caller)
	}
	if err != nil {
		return fmt.Errorf("inserting call edges: %w", err)
	}

	ib := &batch{head: `INSERT OR IGNORE INTO implements (snapshot_id, type, iface, pointer) VALUES `, cols: 4}
	defer ib.close(tx)
	for _, im := range sortByID(x.impls, ids, func(im *implRow) int32 { return im.iface }) {
		if err := ib.add(ctx, tx, snap, id(im.typ), id(im.iface), im.pointer); err != nil {
			return fmt.Errorf("inserting implementations: %w", err)
		}
	}
	if err := ib.flush(ctx, tx); err != nil {
		return fmt.Errorf("inserting implementations: %w", err)
	}
	return nil
}

// plainFirst returns refs with the plain uses before the implicit ones,
// each in their order in refs.
func plainFirst(refs []refRow) []refRow {
	i := slices.IndexFunc(refs, func(r refRow) bool { return r.implicit })
	if i < 0 {
		return refs
	}
	out := make([]refRow, 0, len(refs))
	for _, implicit := range []bool{false, true} {
		for _, r := range refs {
			if r.implicit == implicit {
				out = append(out, r)
			}
		}
	}
	return out
}

// site returns e as a call site whose other end has the interned id
// other, naming its callee with id.
func (e *edgeRow) site(other int64, id func(int32) int64) siteEntry {
	return siteEntry{line: e.line, col: e.col, other: other, name: id(e.calleeName), cov: e.cov, via: e.via,
		goStmt: e.goStmt, deferred: e.deferStmt}
}

// sortByID returns rows stably sorted by the id of the string that key
// returns, with a counting sort: ids are distinct and, as insert allocates
// them, consecutive (a permutation of base+0 .. base+len(ids)-1), so the
// rank of a string is its id less the smallest. The ids of an amend
// (amendIDs) may be spread more thinly; then it sorts by comparison.
func sortByID[T any](rows []T, ids []int64, key func(*T) int32) []T {
	if len(rows) == 0 {
		return rows
	}
	base, top := slices.Min(ids), slices.Max(ids)
	if top-base > 4*int64(len(ids))+1024 {
		out := slices.Clone(rows)
		slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(ids[key(&a)], ids[key(&b)]) })
		return out
	}
	start := make([]int, top-base+2) // start[rank+1] counts, then prefix sums
	for i := range rows {
		start[ids[key(&rows[i])]-base+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	out := make([]T, len(rows))
	for i := range rows {
		r := ids[key(&rows[i])] - base
		out[start[r]] = rows[i]
		start[r]++
	}
	return out
}

var _ graph.XRefFlusher = (*writer)(nil)

// FlushXRefs implements graph.XRefFlusher: it inserts the cross-references
// buffered so far, as Publish would (see xrefBuffer.insert). An amend
// keeps them buffered until Publish, which looks up the strings the base
// already has.
func (w *writer) FlushXRefs(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	if w.amendBase != 0 {
		return nil
	}
	if err := w.writeLaterText(ctx); err != nil {
		return err
	}
	return w.xref.insert(ctx, w.wtx(), w.snapID)
}

// AddRefs implements graph.SnapshotWriter. References are stored as given,
// duplicates included; an unknown Kind is an error. They are kept in
// memory and inserted at Publish (see xrefBuffer).
func (w *writer) AddRefs(ctx context.Context, refs []graph.Ref) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	x := w.xref
	for i := range refs {
		ref := &refs[i]
		kind, ok := codes.RefKind[ref.Kind]
		if !ok {
			return fmt.Errorf("reference at %s:%d:%d: unknown kind %q", ref.Path, ref.Line, ref.Col, ref.Kind)
		}
		if !inInt32(ref.Line) || !inInt32(ref.Col) || !inInt32(ref.EndCol) {
			// Refs reads them packed, two to an integer.
			return fmt.Errorf("reference at %s:%d:%d: position out of range", ref.Path, ref.Line, ref.Col)
		}
		x.refs = append(x.refs, refRow{target: x.num(ref.Target), path: x.num(ref.Path), encl: x.optNum(ref.Enclosing),
			line: int32(ref.Line), col: int32(ref.Col), endCol: int32(ref.EndCol), kind: uint8(kind), test: ref.TestOnly,
			implicit: ref.Implicit})
	}
	return nil
}

// inInt32 reports whether n is a non-negative 32-bit integer.
func inInt32(n int) bool { return n >= 0 && n <= math.MaxInt32 }

// AddCallEdges implements graph.SnapshotWriter. Edges are stored as given,
// duplicates included. An unknown Coverage or Via is an error; an empty Via
// is stored and read back as empty. They are kept in memory and inserted
// at Publish (see xrefBuffer).
func (w *writer) AddCallEdges(ctx context.Context, edges []graph.CallEdge) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	x := w.xref
	for i := range edges {
		e := &edges[i]
		cov, ok := codes.Coverage[e.Coverage]
		if !ok {
			return fmt.Errorf("call at %s:%d:%d: unknown coverage %q", e.Path, e.Line, e.Col, e.Coverage)
		}
		via, ok := codes.Via[e.Via]
		if !ok {
			return fmt.Errorf("call at %s:%d:%d: unknown via %q", e.Path, e.Line, e.Col, e.Via)
		}
		x.edges = append(x.edges, edgeRow{caller: x.num(e.Caller), callee: x.optNum(e.Callee),
			calleeName: x.optNum(e.CalleeName), path: x.num(e.Path), line: int32(e.Line), col: int32(e.Col),
			cov: uint8(cov), via: uint8(via), goStmt: e.Go, deferStmt: e.Defer})
	}
	return nil
}

// AddImplements implements graph.SnapshotWriter. A (Type, Interface) pair
// is stored once: a repeat, whatever its Pointer, is ignored. They are
// kept in memory and inserted at Publish (see xrefBuffer).
func (w *writer) AddImplements(ctx context.Context, impls []graph.Implements) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	x := w.xref
	for _, im := range impls {
		x.impls = append(x.impls, implRow{typ: x.num(im.Type), iface: x.num(im.Interface), pointer: im.Pointer})
	}
	return nil
}

// keyChunk bounds the keys of one IN list, well below SQLite's limit on
// parameters, so any number of keys can be looked up in a few statements.
const keyChunk = 500

// chunks calls f with consecutive slices of at most keyChunk of keys,
// with duplicates removed.
func chunks(keys []string, f func(part []string) error) error {
	seen := make(map[string]bool, len(keys))
	uniq := make([]string, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, k)
		}
	}
	for start := 0; start < len(uniq); start += keyChunk {
		if err := f(uniq[start:min(start+keyChunk, len(uniq))]); err != nil {
			return err
		}
	}
	return nil
}

// inList adds the values to b's arguments and returns "(?1, ?2, ...)".
func inList(b *builder, vals []string) string {
	ph := make([]string, len(vals))
	for i, v := range vals {
		ph[i] = b.Arg(v)
	}
	return "(" + strings.Join(ph, ", ") + ")"
}

// SymbolsByKeys implements graph.Reader. It looks the keys up in chunks of
// keyChunk, so the list may be of any length; duplicate and unknown keys
// are ignored. A key present in two current snapshots yields both symbols.
func (r *reader) SymbolsByKeys(ctx context.Context, keys []string) ([]graph.Symbol, error) {
	var out []graph.Symbol
	err := chunks(keys, func(part []string) error {
		var b builder
		in := inList(&b, part)
		syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+symbolFrom+` WHERE s.key IN `+in, b.Args...)
		out = append(out, syms...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("looking up symbols by key: %w", err)
	}
	return out, nil
}

var _ graph.QualifiedNamer = (*reader)(nil)

// QualifiedNames implements graph.QualifiedNamer: SymbolsByKeys' lookup
// reading two columns, not the whole row and its unit. When the name
// table of a snapshot (names.go, which holds every symbol's key and
// qualified name) is loaded already, the names come from it: find_references
// names the enclosing declaration of each use, a few hundred keys a call,
// and as an IN list of an SQL lookup they cost a sixth of the answer. A
// table is not loaded for this alone (on prometheus that takes ~150 ms,
// once per published snapshot).
func (r *reader) QualifiedNames(ctx context.Context, keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	repos, err := r.pinnedSnapshots(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("looking up qualified names by key: %w", err)
	}
	// The name tables already loaded answer first; SQL looks up only the
	// keys they do not have, and only when a repository's table is not
	// loaded (a key names a symbol of one repository, but which one is
	// not known from the key).
	complete := true
	for _, rs := range repos {
		t := r.names.Loaded(rs.revision)
		if t == nil {
			complete = false
			continue
		}
		t.FillQualifiedNames(keys, out)
	}
	if complete || len(out) == len(keys) {
		return out, nil
	}
	rest := make([]string, 0, len(keys)-len(out))
	for _, k := range keys {
		if _, done := out[k]; !done {
			rest = append(rest, k)
		}
	}
	err = chunks(rest, func(part []string) error {
		var b builder
		in := inList(&b, part)
		rows, err := r.query(ctx, `SELECT s.key, coalesce(s.qname, s.name) FROM repositories r
			CROSS JOIN symbols s ON s.snapshot_id = r.current_snapshot WHERE s.key IN `+in, b.Args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key, qname string
			if err := rows.Scan(&key, &qname); err != nil {
				return err
			}
			out[key] = qname
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("looking up qualified names by key: %w", err)
	}
	return out, nil
}

// keyFrom joins the pinned current snapshots to the interned ids of the
// keys of an IN list (the placeholder %s), as the outer loops of a
// cross-reference query whose table (alias x) is searched by its index on
// (snapshot_id, <col>) inside. The CROSS JOINs fix that loop order, as in
// symbolFrom.
const keyFrom = ` FROM repositories r
	CROSS JOIN interned k ON k.snapshot_id = r.current_snapshot AND k.value IN %s
	CROSS JOIN %s x ON x.snapshot_id = k.snapshot_id AND x.%s = k.id`

// refFilter is what of a RefQuery Refs applies to each row it reads and
// each use it decodes.
type refFilter struct {
	plain, implicit map[string]bool // the keys whose plain, implicit uses match
	kinds           [8]bool         // by code; all false keeps every kind
	anyKind         bool
	withTests       bool
	pathPrefix      string
}

// wants reports whether the uses of a row of key, implicit or not, match.
func (f *refFilter) wants(key string, implicit bool) bool {
	if implicit {
		return f.implicit[key]
	}
	return f.plain[key]
}

// newRefFilter returns q's filter; an unknown kind is INVALID_ARGUMENT.
func newRefFilter(q graph.RefQuery) (refFilter, error) {
	f := refFilter{plain: map[string]bool{}, implicit: map[string]bool{}, anyKind: len(q.Kinds) == 0,
		withTests: q.IncludeTests, pathPrefix: q.PathPrefix}
	for _, k := range q.Targets {
		f.plain[k] = true
	}
	for _, k := range q.Implicit {
		f.implicit[k] = true
	}
	for _, k := range q.Kinds {
		code, ok := codes.RefKind[k]
		if !ok || code >= int64(len(f.kinds)) {
			return f, graph.Errorf(graph.CodeInvalidArgument, "unknown reference kind %q", k)
		}
		f.kinds[code] = true
	}
	return f, nil
}

func (f *refFilter) keeps(u *useEntry) bool {
	return (f.anyKind || int(u.kind) < len(f.kinds) && f.kinds[u.kind]) && (f.withTests || !u.test)
}

// packedQuery returns the SQL and arguments that read, in no order, the
// packed rows of table whose key column is one of keys: snapshot, key,
// path, the entries column, rowid, repository name and flag, an SQL
// expression (see readPacked).
func packedQuery(table, key, entries, flag string, keys []string) (string, []any) {
	var b builder
	from := fmt.Sprintf(keyFrom, inList(&b, keys), table, key)
	return `SELECT k.snapshot_id, k.value, x.path, x.` + entries + `, x.rowid, r.name, ` + flag + from, b.Args
}

// refsQuery returns the packedQuery of the references, plain or implicit,
// to keys: Refs keeps the rows of the kind it was asked for, decodes and
// filters them, names them from memory (see internedStrings), then sorts
// and pages them.
func refsQuery(keys []string) (string, []any) {
	return packedQuery("refs", "target", "uses", "x.implicit", keys)
}

// refHit is a reference as Refs orders it: the row and the entry's place
// in it break ties, in the order the references were written.
type refHit struct {
	graph.Ref
	rowid int64
	entry int
}

// Refs implements graph.Reader. It searches every pinned current snapshot.
// Uses at the same position are ordered by repository name, then target
// key, plain before implicit, then the order they were written. An
// unknown kind in q.Kinds is an INVALID_ARGUMENT error; no keys match
// nothing. A key in both q.Targets and q.Implicit is read once; keys are
// looked up keyChunk at a time, so there may be any number.
func (r *reader) Refs(ctx context.Context, q graph.RefQuery) ([]graph.Ref, int, error) {
	// Validate the kinds first, so a bad query fails the same way
	// whatever its targets.
	f, err := newRefFilter(q)
	if err != nil {
		return nil, 0, err
	}
	var keys []string
	seen := make(map[string]bool, len(q.Targets)+len(q.Implicit))
	for _, k := range slices.Concat(q.Targets, q.Implicit) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	var hits []refHit
	names := snapshotStrings{r: r}
	err = chunks(keys, func(part []string) error {
		query, args := refsQuery(part)
		var err error
		hits, err = r.appendRefs(ctx, hits, &names, query, args, &f)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	slices.SortFunc(hits, compareRefHits)
	total := len(hits)
	page := hits[min(max(q.Offset, 0), total):]
	if q.Limit > 0 && len(page) > q.Limit {
		page = page[:q.Limit]
	}
	if len(page) == 0 {
		return nil, total, nil
	}
	out := make([]graph.Ref, len(page))
	for i := range page {
		out[i] = page[i].Ref
	}
	return out, total, nil
}

// compareRefHits orders references by path, line, column, repository
// name, target key, plain before implicit and the order they were
// written.
func compareRefHits(a, b refHit) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if a.Line != b.Line {
		return cmp.Compare(a.Line, b.Line)
	}
	if a.Col != b.Col {
		return cmp.Compare(a.Col, b.Col)
	}
	if c := strings.Compare(a.Repository, b.Repository); c != 0 {
		return c
	}
	if c := strings.Compare(a.Target, b.Target); c != 0 {
		return c
	}
	if a.Implicit != b.Implicit {
		if a.Implicit {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.rowid, b.rowid), cmp.Compare(a.entry, b.entry))
}

// snapshotStrings names the interned ids of the pinned snapshots' rows,
// loading each snapshot's strings on first use (see internedStrings).
type snapshotStrings struct {
	r    *reader
	pins []pinned
	last int64 // the data set of the previous row, whose pin and strings follow
	pin  pinned
	strs *internedStrings
}

// use makes data set snap the one get names ids of.
func (s *snapshotStrings) use(ctx context.Context, snap int64) error {
	if s.strs != nil && snap == s.last {
		return nil
	}
	if s.pins == nil {
		pins, err := s.r.pinnedSnapshots(ctx, nil)
		if err != nil {
			return err
		}
		s.pins = pins
	}
	i := slices.IndexFunc(s.pins, func(p pinned) bool { return p.snapshot == snap })
	if i < 0 {
		return fmt.Errorf("snapshot %d is no longer pinned", snap)
	}
	strs, err := s.r.strings(ctx, s.pins[i].name, s.pins[i].revision, snap)
	if err != nil {
		return err
	}
	s.pin, s.strs, s.last = s.pins[i], strs, snap
	return nil
}

// get returns the string of id in the current data set; 0 is "" (none).
func (s *snapshotStrings) get(id int64) (string, error) {
	if id == 0 {
		return "", nil
	}
	v, ok := s.strs.get(id)
	if !ok {
		return "", fmt.Errorf("a row of %s names id %d, which snapshot %d does not intern", s.pin.name, id, s.pin.snapshot)
	}
	return v, nil
}

// packedRow is a row of refs, calls_by_caller or calls_by_callee as
// read: its key named, its path and entries still ids.
type packedRow struct {
	snap    int64
	key     string
	path    int64
	entries []byte
	rowid   int64
	repo    string
	flag    bool // of refs, whether the row's uses are implicit
}

// readPacked runs a packedQuery and returns its rows.
func (r *reader) readPacked(ctx context.Context, query string, args []any) ([]packedRow, error) {
	rows, err := r.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []packedRow
	for rows.Next() {
		var p packedRow
		if err := rows.Scan(&p.snap, &p.key, &p.path, &p.entries, &p.rowid, &p.repo, &p.flag); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// appendRefs runs a query built by refsQuery and appends the references
// that f keeps to hits, naming their ids from the snapshots' interned
// strings.
func (r *reader) appendRefs(ctx context.Context, hits []refHit, names *snapshotStrings, query string, args []any,
	f *refFilter) ([]refHit, error) {
	rows, err := r.readPacked(ctx, query, args)
	if err != nil {
		return nil, fmt.Errorf("querying references: %w", err)
	}
	for _, row := range rows {
		if !f.wants(row.key, row.flag) {
			continue
		}
		if err := names.use(ctx, row.snap); err != nil {
			return nil, fmt.Errorf("querying references: %w", err)
		}
		path, err := names.get(row.path)
		if err != nil {
			return nil, fmt.Errorf("reading references: %w", err)
		}
		if !strings.HasPrefix(path, f.pathPrefix) {
			continue
		}
		u := unpacker{buf: row.entries}
		for i := 0; u.more(); i++ {
			e := u.use()
			if u.err != nil {
				return nil, fmt.Errorf("reading references of %s in %s: %w", row.key, path, u.err)
			}
			if !f.keeps(&e) {
				continue
			}
			encl, err := names.get(e.encl)
			if err != nil {
				return nil, fmt.Errorf("reading references: %w", err)
			}
			hits = append(hits, refHit{Ref: graph.Ref{Target: row.key, Path: path, Line: int(e.line),
				Col: int(e.col), EndCol: int(e.endCol), Enclosing: encl, Kind: sqlbase.RefKind(int64(e.kind)),
				TestOnly: e.test, Repository: row.repo, Implicit: row.flag}, rowid: row.rowid, entry: i})
		}
	}
	return hits, nil
}

// edgesQuery returns the packedQuery of the call sites of keys, which
// are callers when byCaller, else callees.
func edgesQuery(keys []string, byCaller bool) (string, []any) {
	if byCaller {
		return packedQuery("calls_by_caller", "caller", "sites", "0", keys)
	}
	return packedQuery("calls_by_callee", "callee", "sites", "0", keys)
}

// edgeHit is a call edge as CallEdges orders it.
type edgeHit struct {
	graph.CallEdge
	key   string // the caller or the callee, whichever was asked for
	rowid int64
	entry int
}

// CallEdges implements graph.Reader. Exactly one of q.Callers and
// q.Callees may be set: both is an INVALID_ARGUMENT error, neither matches
// nothing, as does an unknown key. An unknown coverage is INVALID_ARGUMENT.
// By callee, only edges whose Callee is a key match (not CalleeName).
// Edges are ordered by the key asked for, then path, line and column;
// edges of the same key and call site by repository name, then the order
// they were written. The lists may be of any length.
func (r *reader) CallEdges(ctx context.Context, q graph.EdgeQuery) ([]graph.CallEdge, error) {
	if len(q.Callers) > 0 && len(q.Callees) > 0 {
		return nil, graph.Errorf(graph.CodeInvalidArgument, "call edges by both callers and callees")
	}
	var covs [8]bool
	for _, c := range q.Coverage {
		code, ok := codes.Coverage[c]
		if !ok || code >= int64(len(covs)) {
			return nil, graph.Errorf(graph.CodeInvalidArgument, "unknown coverage %q", c)
		}
		covs[code] = true
	}
	byCaller := len(q.Callers) > 0
	keys := q.Callees
	if byCaller {
		keys = q.Callers
	}
	var hits []edgeHit
	names := snapshotStrings{r: r}
	err := chunks(keys, func(part []string) error {
		query, args := edgesQuery(part, byCaller)
		rows, err := r.readPacked(ctx, query, args)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if err := names.use(ctx, row.snap); err != nil {
				return err
			}
			path, err := names.get(row.path)
			if err != nil {
				return err
			}
			u := unpacker{buf: row.entries}
			for i := 0; u.more(); i++ {
				s := u.site()
				if u.err != nil {
					return fmt.Errorf("call sites of %s in %s: %w", row.key, path, u.err)
				}
				if len(q.Coverage) > 0 && (int(s.cov) >= len(covs) || !covs[s.cov]) {
					continue
				}
				other, err := names.get(s.other)
				if err != nil {
					return err
				}
				name, err := names.get(s.name)
				if err != nil {
					return err
				}
				e := graph.CallEdge{Caller: row.key, Callee: other, CalleeName: name, Path: path, Line: int(s.line),
					Col: int(s.col), Coverage: sqlbase.Coverage(int64(s.cov)),
					Via: sqlbase.Via(int64(s.via)), Go: s.goStmt, Defer: s.deferred, Repository: row.repo}
				if !byCaller {
					e.Caller, e.Callee = other, row.key
				}
				hits = append(hits, edgeHit{CallEdge: e, key: row.key, rowid: row.rowid, entry: i})
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("querying call edges: %w", err)
	}
	slices.SortFunc(hits, func(a, b edgeHit) int {
		return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col), strings.Compare(a.Repository, b.Repository), cmp.Compare(a.rowid, b.rowid),
			cmp.Compare(a.entry, b.entry))
	})
	if len(hits) == 0 {
		return nil, nil
	}
	out := make([]graph.CallEdge, len(hits))
	for i := range hits {
		out[i] = hits[i].CallEdge
	}
	return out, nil
}

// UnresolvedCalls implements graph.Reader: it counts the repository's
// call edges whose coverage is unresolved. A repository without a
// published snapshot is an error wrapping graph.ErrNotFound.
func (r *reader) UnresolvedCalls(ctx context.Context, repo string) (int, error) {
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return 0, err
	}
	var n int
	// The literal condition matches the partial index calls_unresolved,
	// which a bound parameter would not.
	if err := r.queryRow(ctx, `SELECT coalesce(sum(unresolved), 0) FROM calls_by_caller
		WHERE snapshot_id = ? AND unresolved > 0`, snap).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting unresolved calls: %w", err)
	}
	return n, nil
}

// implsQuery returns the SQL of Implementations.
func implsQuery(byInterface bool) string {
	col, order := "type", "i.value"
	if byInterface {
		col, order = "iface", "t.value"
	}
	return `SELECT t.value, i.value, x.pointer` + fmt.Sprintf(keyFrom, "(?1)", "implements", col) + `
	JOIN interned t ON t.id = x.type
	JOIN interned i ON i.id = x.iface
	ORDER BY ` + order + `, r.name`
}

// Implementations implements graph.Reader. The records are ordered by the
// key on the other side (the type's key when byInterface, else the
// interface's), then repository name. An unknown key has none.
func (r *reader) Implementations(ctx context.Context, key string, byInterface bool) ([]graph.Implements, error) {
	rows, err := r.query(ctx, implsQuery(byInterface), key)
	if err != nil {
		return nil, fmt.Errorf("querying implementations: %w", err)
	}
	defer rows.Close()
	return sqlbase.Collect(rows, sqlbase.ScanImplements, "reading implementations")
}
