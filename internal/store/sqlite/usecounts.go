package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// UseCounts implements graph.Reader. It reads the repository's packed
// rows of plain references once (an implicit use is no use of its target
// for the counts), counting their entries, and names each target's
// package and each file's package from the snapshot's symbols and files.
func (r *reader) UseCounts(ctx context.Context, repo string) ([]graph.UseCount, error) {
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	filePkg, err := r.stringPairs(ctx, `SELECT path, package FROM files WHERE snapshot_id = ?`, snap)
	if err != nil {
		return nil, fmt.Errorf("reading files: %w", err)
	}
	symPkg, err := r.stringPairs(ctx, `SELECT s.key, u.package_path FROM symbols s
		JOIN units u ON u.id = s.unit_id WHERE s.snapshot_id = ?`, snap)
	if err != nil {
		return nil, fmt.Errorf("reading symbols: %w", err)
	}
	rows, err := r.query(ctx, `SELECT t.value, p.value, x.uses FROM refs x
		JOIN interned t ON t.id = x.target
		JOIN interned p ON p.id = x.path
		WHERE x.snapshot_id = ? AND NOT x.implicit`, snap)
	if err != nil {
		return nil, fmt.Errorf("counting uses: %w", err)
	}
	defer rows.Close()
	counts := map[string]*graph.UseCount{}
	callCode := codes.RefKind[graph.RefCall]
	for rows.Next() {
		var target, path string
		var uses []byte
		if err := rows.Scan(&target, &path, &uses); err != nil {
			return nil, fmt.Errorf("counting uses: %w", err)
		}
		pkg, ok := symPkg[target]
		if !ok {
			continue // a symbol of another repository
		}
		c := counts[target]
		external := filePkg[path] != pkg
		u := unpacker{buf: uses}
		for u.more() {
			e := u.use()
			if u.err != nil {
				return nil, fmt.Errorf("counting uses of %s in %s: %w", target, path, u.err)
			}
			if e.test {
				continue
			}
			if c == nil {
				c = &graph.UseCount{Target: target, Package: pkg}
				counts[target] = c
			}
			c.Refs++
			if external {
				c.External++
			}
			if int64(e.kind) == callCode {
				c.Calls++
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("counting uses: %w", err)
	}
	out := make([]graph.UseCount, 0, len(counts))
	for _, c := range counts {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b graph.UseCount) int { return strings.Compare(a.Target, b.Target) })
	return out, nil
}

// stringPairs runs a query of two string columns into a map.
func (r *reader) stringPairs(ctx context.Context, query string, args ...any) (map[string]string, error) {
	rows, err := r.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, rows.Err()
}
