package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// refsColumns are what Refs reads of each match, the total number of
// matches last, in a window count.
const refsColumns = `x.target, x.path, x.line, x.col, x.end_col, coalesce(x.enclosing, ''), x.kind, x.test_only,
	x.implicit, r.name, count(*) OVER ()`

// refsQuery returns the SQL of one page of matches, selecting cols, with
// its arguments added to b: the plain uses of q.Targets and the implicit
// uses of q.Implicit, found by the index on target for keys, which are
// both lists.
func (r *reader) refsQuery(b *builder, cols string, q graph.RefQuery, keys []string) (string, error) {
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
	var limit any
	if q.Limit > 0 {
		limit = q.Limit
	}
	return `SELECT ` + cols + from + b.Clause() + `
		ORDER BY x.path, x.line, x.col, r.name, x.target, x.implicit, x.seq
		LIMIT ` + b.Arg(limit) + ` OFFSET ` + b.Arg(max(q.Offset, 0)), nil
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
		return slices.Clone(r.refs.refs), r.refs.total, nil
	}
	batch := &pgx.Batch{}
	if err := r.queueRefs(batch, q); err != nil || batch.Len() == 0 {
		return nil, 0, err
	}
	rs := r.tx.SendBatch(ctx, batch)
	defer rs.Close()
	refs, total, err := r.readRefs(rs)
	if err != nil {
		return nil, 0, err
	}
	if err := rs.Close(); err != nil {
		return nil, 0, fmt.Errorf("querying references: %w", err)
	}
	if len(refs) == 0 && q.Offset > 0 {
		// A page past the end has no row to carry the total.
		first := q
		first.Offset, first.Limit = 0, 1
		var fb builder
		keys := uniq(slices.Concat(q.Targets, q.Implicit))
		query, _ := r.refsQuery(&fb, refsColumns, first, keys)
		rows, err := r.tx.Query(ctx, query, fb.Args...)
		if err != nil {
			return nil, 0, fmt.Errorf("querying references: %w", err)
		}
		if _, total, err = scanRefs(rows); err != nil {
			return nil, 0, err
		}
	}
	return refs, total, nil
}

// refsPage is a page of Refs read ahead, with the fingerprint of its
// query.
type refsPage struct {
	fp    string
	refs  []graph.Ref
	total int
}

// queueRefs queues on batch the page of uses q selects and the
// declarations enclosing them, for readRefs; it queues nothing when q
// names no key, and nothing but returns the error when q is invalid.
func (r *reader) queueRefs(batch *pgx.Batch, q graph.RefQuery) error {
	keys := uniq(slices.Concat(q.Targets, q.Implicit))
	var b builder
	query, err := r.refsQuery(&b, refsColumns, q, keys)
	if err != nil || len(keys) == 0 {
		return err
	}
	// The enclosing declarations: the same page again, in a subquery
	// without the count, whose aliases hide the outer ones.
	var eb builder
	sub, _ := r.refsQuery(&eb, "x.enclosing", q, keys)
	eb.Conds = []string{"s.key IN (SELECT p.enclosing FROM (" + sub + ") AS p)"}
	from := r.from(&eb, "symbols", "s")
	batch.Queue(query, b.Args...)
	batch.Queue(`SELECT `+symbolColumns+from+eb.Clause(), eb.Args...)
	return nil
}

// readRefs reads the two results queueRefs queued, keeping the enclosing
// declarations for SymbolsByKeys.
func (r *reader) readRefs(rs pgx.BatchResults) ([]graph.Ref, int, error) {
	rows, err := rs.Query()
	if err != nil {
		return nil, 0, fmt.Errorf("querying references: %w", err)
	}
	refs, total, err := scanRefs(rows)
	if err != nil {
		return nil, 0, err
	}
	encl, err := batchSymbols(rs)
	if err != nil {
		return nil, 0, err
	}
	var encls []string
	for _, ref := range refs {
		if ref.Enclosing != "" {
			encls = append(encls, ref.Enclosing)
		}
	}
	r.keepSymbols(encls, encl)
	return refs, total, nil
}

func scanRefs(rows pgx.Rows) ([]graph.Ref, int, error) {
	defer rows.Close()
	var out []graph.Ref
	var total int
	for rows.Next() {
		var ref graph.Ref
		var kind int16
		if err := rows.Scan(&ref.Target, &ref.Path, &ref.Line, &ref.Col, &ref.EndCol, &ref.Enclosing, &kind,
			&ref.TestOnly, &ref.Implicit, &ref.Repository, &total); err != nil {
			return nil, 0, fmt.Errorf("reading references: %w", err)
		}
		ref.Kind = sqlbase.RefKind(kind)
		out = append(out, ref)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("reading references: %w", err)
	}
	return out, total, nil
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
	col, order := "type", "x.iface"
	if byInterface {
		col, order = "iface", "x.type"
	}
	var b builder
	from := r.from(&b, "implements", "x")
	b.Where("x."+col+" = %s", key)
	query := `SELECT x.type, x.iface, x.pointer` + from + b.Clause() + ` ORDER BY ` + order + `, r.name`
	var out []graph.Implements
	read := func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var im graph.Implements
			if err := rows.Scan(&im.Type, &im.Interface, &im.Pointer); err != nil {
				return fmt.Errorf("reading implementations: %w", err)
			}
			out = append(out, im)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("reading implementations: %w", err)
		}
		return nil
	}
	if byInterface {
		rows, err := r.tx.Query(ctx, query, b.Args...)
		if err != nil {
			return nil, fmt.Errorf("querying implementations: %w", err)
		}
		return out, read(rows)
	}
	batch := &pgx.Batch{}
	batch.Queue(query, b.Args...)
	var kb builder
	sub := r.from(&kb, "implements", "x")
	kb.Where("x.type = %s", key)
	kb.Conds = []string{"s.parent IN (SELECT x.iface" + sub + kb.Clause() + ")"}
	r.queueChildren(batch, &kb)
	err := r.sendWithChildren(ctx, batch, func(rs pgx.BatchResults) error {
		rows, err := rs.Query()
		if err != nil {
			return fmt.Errorf("querying implementations: %w", err)
		}
		return read(rows)
	}, func() []string {
		var keys []string
		for _, im := range out {
			keys = append(keys, im.Interface)
		}
		return keys
	})
	return out, err
}
