package postgres

import (
	"context"
	"fmt"

	"github.com/sextant-dev/sextant/internal/graph"
)

// useCountsQuery counts, per target declared in the snapshot, its plain
// uses (an implicit use is no use of its target for the counts) in
// non-test files, those from files of other packages, and the calls. A
// file that no package loaded counts as another package's. The DISTINCT
// ON keeps one declaring row per key.
const useCountsQuery = `SELECT x.target, s.package_path, count(*),
		count(*) FILTER (WHERE f.package IS DISTINCT FROM s.package_path),
		count(*) FILTER (WHERE x.kind = $2)
	FROM refs x
	JOIN (SELECT DISTINCT ON (key) key, package_path FROM symbols WHERE snapshot_id = $1) s ON s.key = x.target
	LEFT JOIN files f ON f.snapshot_id = x.snapshot_id AND f.path = x.path
	WHERE x.snapshot_id = $1 AND NOT x.test_only AND NOT x.implicit
	GROUP BY x.target, s.package_path
	ORDER BY x.target`

// UseCounts implements graph.Reader.
func (r *reader) UseCounts(ctx context.Context, repo string) ([]graph.UseCount, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	rows, err := r.tx.Query(ctx, useCountsQuery, snap, codes.RefKind[graph.RefCall])
	if err != nil {
		return nil, fmt.Errorf("counting uses: %w", err)
	}
	defer rows.Close()
	var out []graph.UseCount
	for rows.Next() {
		var c graph.UseCount
		if err := rows.Scan(&c.Target, &c.Package, &c.Refs, &c.External, &c.Calls); err != nil {
			return nil, fmt.Errorf("counting uses: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("counting uses: %w", err)
	}
	return out, nil
}
