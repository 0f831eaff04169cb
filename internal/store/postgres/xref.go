package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// refsColumns are what Refs reads of each match.
const refsColumns = `x.target, x.path, x.line, x.col, x.end_col, coalesce(x.enclosing, ''), x.kind, x.test_only,
	x.implicit, r.name`

// refsFrom returns the FROM and WHERE clauses of the matches of q, with
// their arguments added to b: the plain uses of q.Targets and the implicit
// uses of q.Implicit, found by the index on target for keys, which are
// both lists.
func (r *reader) refsFrom(b *builder, q graph.RefQuery, keys []string) (string, error) {
	from := r.from(b, "refs", "x")
	b.Where("x.target = ANY(%s)", keys)
	b.Where("(x.implicit AND x.target = ANY(%s) OR NOT x.implicit AND x.target = ANY(%s))",
		uniq(q.Implicit), uniq(q.Targets))
	if len(q.Kinds) > 0 {
		kinds := make([]int16, len(q.Kinds))
		for i, k := range q.Kinds {
			code, ok := codes.RefKind[k]
			if !ok {
				return "", graph.Errorf(graph.CodeInvalidArgument, "unknown reference kind %q", k)
			}
			kinds[i] = code
		}
		b.Where("x.kind = ANY(%s)", kinds)
	}
	if !q.IncludeTests {
		b.Conds = append(b.Conds, "NOT x.test_only")
	}
	if q.PathPrefix != "" {
		b.Conds = append(b.Conds, prefixCond(b, "x.path", q.PathPrefix))
	}
	return from + b.Clause(), nil
}

// refsQuery returns the SQL of one page of matches and the first match
// after it, should there be one (see refsPageOf), selecting cols, with its
// arguments added to b.
func (r *reader) refsQuery(b *builder, cols string, q graph.RefQuery, keys []string) (string, error) {
	fw, err := r.refsFrom(b, q, keys)
	if err != nil {
		return "", err
	}
	var limit any
	if q.Limit > 0 {
		limit = q.Limit + 1
	}
	return `SELECT ` + cols + fw + `
		ORDER BY x.path, x.line, x.col, r.name, x.target, x.implicit, x.seq
		LIMIT ` + b.Arg(limit) + ` OFFSET ` + b.Arg(max(q.Offset, 0)), nil
}

// refsPageOf returns the page of q among rows, which refsQuery read, and
// the number of all matches. The rows tell it (the page's offset and
// length) unless more follow the page or the page is past the end; only
// then is it counted, in a query of its own: most symbols have fewer uses
// than a page, and a count over the uses in the page's own query (a
// window) costs every call a fifth of the server's work.
func (r *reader) refsPageOf(ctx context.Context, q graph.RefQuery, rows []graph.Ref) ([]graph.Ref, int, error) {
	more := q.Limit > 0 && len(rows) > q.Limit
	if more {
		rows = rows[:q.Limit]
	}
	offset := max(q.Offset, 0)
	if !more && (len(rows) > 0 || offset == 0) {
		return rows, offset + len(rows), nil
	}
	var b builder
	fw, err := r.refsFrom(&b, q, uniq(slices.Concat(q.Targets, q.Implicit)))
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := r.tx.QueryRow(ctx, `SELECT count(*)`+fw, b.Args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting references: %w", err)
	}
	return rows, total, nil
}

// Refs implements graph.Reader. It searches every pinned current snapshot;
// uses at the same position are ordered by repository name, then target
// key, plain before implicit, then the order they were written. An
// unknown kind is an INVALID_ARGUMENT error; no keys match nothing. In
// the same round trip it reads the declarations enclosing the page's uses
// (see prefetch.go); a page SymbolByKey read ahead (graph.WithRefsAhead)
// costs none.
func (r *reader) Refs(ctx context.Context, q graph.RefQuery) ([]graph.Ref, int, error) {
	if err := r.lock(); err != nil {
		return nil, 0, err
	}
	defer r.mu.Unlock()
	if r.refs != nil && r.refs.fp == q.Fingerprint() {
		return r.refsPageOf(ctx, q, slices.Clone(r.refs.rows))
	}
	batch := &pgx.Batch{}
	encl, err := r.queueRefs(ctx, batch, q)
	if err != nil || batch.Len() == 0 {
		return nil, 0, err
	}
	rs := r.tx.SendBatch(ctx, batch)
	defer rs.Close()
	rows, err := r.readRefs(rs, encl)
	if err != nil {
		return nil, 0, err
	}
	if err := rs.Close(); err != nil {
		return nil, 0, fmt.Errorf("querying references: %w", err)
	}
	return r.refsPageOf(ctx, q, rows)
}

// refsPage is a page of Refs read ahead, with the fingerprint of its
// query: the rows refsQuery read.
type refsPage struct {
	fp   string
	rows []graph.Ref
}

// queueRefs queues on batch the page of uses q selects and, unless the
// request names them from the name tables in memory (see
// enclosingFromMemory), the declarations enclosing them, for readRefs,
// and reports whether it queued those; it queues nothing when q names no
// key, and nothing but returns the error when q is invalid.
func (r *reader) queueRefs(ctx context.Context, batch *pgx.Batch, q graph.RefQuery) (encl bool, err error) {
	keys := uniq(slices.Concat(q.Targets, q.Implicit))
	var b builder
	query, err := r.refsQuery(&b, refsColumns, q, keys)
	if err != nil || len(keys) == 0 {
		return false, err
	}
	batch.Queue(query, b.Args...)
	if r.enclosingFromMemory(ctx) {
		return false, nil
	}
	// The enclosing declarations: the same page again, in a subquery
	// without the count, whose aliases hide the outer ones.
	var eb builder
	sub, _ := r.refsQuery(&eb, "x.enclosing", q, keys)
	eb.Conds = []string{"s.key IN (SELECT p.enclosing FROM (" + sub + ") AS p)"}
	from := r.from(&eb, "symbols", "s")
	batch.Queue(`SELECT `+symbolColumns+from+eb.Clause(), eb.Args...)
	return true, nil
}

// enclosingFromMemory reports whether the request names the declarations
// enclosing its uses (graph.WithEnclosingNames) and QualifiedNames can
// name them from memory: the name table of every pinned snapshot is
// loaded. Reading them whole on the server is then work for nothing.
func (r *reader) enclosingFromMemory(ctx context.Context) bool {
	// While pinning (a first reader's batch) the snapshots are not known.
	return graph.EnclosingNames(ctx) && !r.pinning && r.namesLoaded()
}

// namesLoaded reports whether the name table of every pinned snapshot is
// loaded.
func (r *reader) namesLoaded() bool {
	for _, p := range r.pins {
		if r.names.Loaded(p.snapshot) == nil {
			return false
		}
	}
	return true
}

// readRefs reads the results queueRefs queued, keeping the enclosing
// declarations, when encl says it queued them, for SymbolsByKeys.
func (r *reader) readRefs(rs pgx.BatchResults, encl bool) ([]graph.Ref, error) {
	rows, err := rs.Query()
	if err != nil {
		return nil, fmt.Errorf("querying references: %w", err)
	}
	refs, err := scanRefs(rows)
	if err != nil || !encl {
		return refs, err
	}
	syms, err := batchSymbols(rs)
	if err != nil {
		return nil, err
	}
	var encls []string
	for _, ref := range refs {
		if ref.Enclosing != "" {
			encls = append(encls, ref.Enclosing)
		}
	}
	r.keepSymbols(encls, syms)
	return refs, nil
}

var _ graph.QualifiedNamer = (*reader)(nil)

// QualifiedNames implements graph.QualifiedNamer: from the name tables of
// the pinned snapshots when every one is loaded (as the sqlite store does,
// a table is not loaded for this alone), else from the declarations Refs
// read ahead, else in one query of two columns. Should two pinned
// snapshots hold a key, the repository first by name names it.
func (r *reader) QualifiedNames(ctx context.Context, keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	if r.namesLoaded() {
		for _, p := range r.pins { // by name
			r.names.Loaded(p.snapshot).FillQualifiedNames(keys, out)
		}
		return out, nil
	}
	if syms, ok := r.prefetched(keys); ok {
		repo := map[string]string{} // the repository naming each key
		for _, s := range syms {
			if held, ok := repo[s.Key]; !ok || s.Repository < held {
				repo[s.Key], out[s.Key] = s.Repository, s.QualifiedName
			}
		}
		return out, nil
	}
	var b builder
	from := r.from(&b, "symbols", "s")
	b.Where("s.key = ANY(%s)", uniq(keys))
	rows, err := r.tx.Query(ctx, `SELECT s.key, coalesce(s.qname, s.name)`+from+b.Clause()+` ORDER BY r.name DESC`, b.Args...)
	if err != nil {
		return nil, fmt.Errorf("looking up qualified names by key: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key, qname string
		if err := rows.Scan(&key, &qname); err != nil {
			return nil, fmt.Errorf("looking up qualified names by key: %w", err)
		}
		out[key] = qname // by name descending: the first repository's is written last
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("looking up qualified names by key: %w", err)
	}
	return out, nil
}

func scanRefs(rows pgx.Rows) ([]graph.Ref, error) {
	defer rows.Close()
	var out []graph.Ref
	for rows.Next() {
		var ref graph.Ref
		var kind int16
		if err := rows.Scan(&ref.Target, &ref.Path, &ref.Line, &ref.Col, &ref.EndCol, &ref.Enclosing, &kind,
			&ref.TestOnly, &ref.Implicit, &ref.Repository); err != nil {
			return nil, fmt.Errorf("reading references: %w", err)
		}
		ref.Kind = sqlbase.RefKind(kind)
		out = append(out, ref)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading references: %w", err)
	}
	return out, nil
}

// CallEdges implements graph.Reader. Exactly one of q.Callers and
// q.Callees may be set: both is an INVALID_ARGUMENT error, neither matches
// nothing. By callee, only edges whose Callee is a key match. Edges are
// ordered by the queried key, path, line and column, then repository
// name, then the order they were written.
func (r *reader) CallEdges(ctx context.Context, q graph.EdgeQuery) ([]graph.CallEdge, error) {
	if len(q.Callers) > 0 && len(q.Callees) > 0 {
		return nil, graph.Errorf(graph.CodeInvalidArgument, "call edges by both callers and callees")
	}
	var b builder
	from := r.from(&b, "edges", "x")
	col, keys := "callee", q.Callees
	if len(q.Callers) > 0 {
		col, keys = "caller", q.Callers
	}
	b.Where("x."+col+" = ANY(%s)", uniq(keys))
	if len(q.Coverage) > 0 {
		covs := make([]int16, len(q.Coverage))
		for i, c := range q.Coverage {
			code, ok := codes.Coverage[c]
			if !ok {
				return nil, graph.Errorf(graph.CodeInvalidArgument, "unknown coverage %q", c)
			}
			covs[i] = code
		}
		b.Where("x.coverage = ANY(%s)", covs)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	rows, err := r.tx.Query(ctx, `SELECT x.caller, coalesce(x.callee, ''), coalesce(x.callee_name, ''), x.path,
		x.line, x.col, x.coverage, x.via, x.is_go, x.is_defer, r.name
		`+from+b.Clause()+`
		ORDER BY x.`+col+`, x.path, x.line, x.col, r.name, x.seq`, b.Args...)
	if err != nil {
		return nil, fmt.Errorf("querying call edges: %w", err)
	}
	defer rows.Close()
	var out []graph.CallEdge
	for rows.Next() {
		var e graph.CallEdge
		var cov, via int16
		if err := rows.Scan(&e.Caller, &e.Callee, &e.CalleeName, &e.Path, &e.Line, &e.Col, &cov, &via,
			&e.Go, &e.Defer, &e.Repository); err != nil {
			return nil, fmt.Errorf("reading call edges: %w", err)
		}
		e.Coverage = sqlbase.Coverage(cov)
		e.Via = sqlbase.Via(via)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading call edges: %w", err)
	}
	return out, nil
}

// UnresolvedCalls implements graph.Reader.
func (r *reader) UnresolvedCalls(ctx context.Context, repo string) (int, error) {
	if err := r.lock(); err != nil {
		return 0, err
	}
	defer r.mu.Unlock()
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return 0, err
	}
	var n int
	// The literal 3 (CoverageUnresolved) matches the partial index.
	if err := r.tx.QueryRow(ctx, `SELECT count(*) FROM edges WHERE snapshot_id = $1 AND coverage = 3`,
		snap).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting unresolved calls: %w", err)
	}
	return n, nil
}

// Implementations implements graph.Reader, ordered by the key on the
// other side, then repository name. By type, it reads in the same round
// trip the methods of the interfaces it returns (see prefetch.go).
func (r *reader) Implementations(ctx context.Context, key string, byInterface bool) ([]graph.Implements, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	if im, ok := r.impls[implsKey{key, byInterface}]; ok {
		return slices.Clone(im), nil
	}
	arg := func(b *builder) string { return b.Arg(key) }
	query, args := r.implementationsQuery(byInterface, arg)
	if byInterface {
		rows, err := r.tx.Query(ctx, query, args...)
		if err != nil {
			return nil, fmt.Errorf("querying implementations: %w", err)
		}
		return scanImplementations(rows)
	}
	batch := &pgx.Batch{}
	batch.Queue(query, args...)
	r.queueInterfaceMembers(batch, arg)
	var out []graph.Implements
	err := r.sendWithChildren(ctx, batch, func(rs pgx.BatchResults) (err error) {
		out, err = batchImplementations(rs)
		return err
	}, func() []string { return interfacesOf(out) })
	return out, err
}

// implementationsQuery returns Implementations' query, in its order, of
// the pairs whose type (or interface, byInterface) is the key that keyOf
// writes into the query's builder: a placeholder, or a subquery.
func (r *reader) implementationsQuery(byInterface bool, keyOf func(*builder) string) (string, []any) {
	col, order := "type", "x.iface"
	if byInterface {
		col, order = "iface", "x.type"
	}
	var b builder
	k := keyOf(&b)
	from := r.from(&b, "implements", "x")
	b.Conds = append(b.Conds, "x."+col+" = "+k)
	return `SELECT x.type, x.iface, x.pointer` + from + b.Clause() + ` ORDER BY ` + order + `, r.name`, b.Args
}

// queueInterfaceMembers queues on batch, with queueChildren, the members
// of the interfaces that the type keyOf names (as implementationsQuery's
// keyOf) implements.
func (r *reader) queueInterfaceMembers(batch *pgx.Batch, keyOf func(*builder) string) {
	var kb builder
	k := keyOf(&kb)
	sub := r.from(&kb, "implements", "x")
	kb.Conds = append(kb.Conds, "x.type = "+k)
	kb.Conds = []string{"s.parent IN (SELECT x.iface" + sub + kb.Clause() + ")"}
	r.queueChildren(batch, &kb)
}

// batchImplementations reads the next result of a batch as
// implementation pairs.
func batchImplementations(rs pgx.BatchResults) ([]graph.Implements, error) {
	rows, err := rs.Query()
	if err != nil {
		return nil, fmt.Errorf("querying implementations: %w", err)
	}
	return scanImplementations(rows)
}

// interfacesOf returns the interface of each pair.
func interfacesOf(impls []graph.Implements) []string {
	keys := make([]string, 0, len(impls))
	for _, im := range impls {
		keys = append(keys, im.Interface)
	}
	return keys
}

// scanImplementations reads implementation pairs (type, interface,
// pointer) and closes rows.
func scanImplementations(rows pgx.Rows) ([]graph.Implements, error) {
	defer rows.Close()
	return sqlbase.Collect(rows, sqlbase.ScanImplements, "reading implementations")
}
