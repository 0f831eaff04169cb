package sqlite

import (
	"context"
	"fmt"

	"github.com/sextant-dev/sextant/internal/graph"
)

// DropRepository removes the repository called name and every snapshot of
// it: `sextant gc` drops the repositories whose root is gone. Readers
// that pinned one of its snapshots keep seeing it until they close; the
// snapshots' rows are collected one snapshot at a time (see collect), so
// an interrupted drop leaves garbage the next collection finishes. An
// unknown name is an error wrapping graph.ErrNotFound.
func (s *Store) DropRepository(ctx context.Context, name string) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("dropping repository %s: %w", name, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM repositories WHERE name = ?`, name)
	if err != nil {
		return fmt.Errorf("dropping repository %s: %w", name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("repository %q: %w", name, graph.ErrNotFound)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("dropping repository %s: %w", name, err)
	}
	return s.collect(ctx, 0)
}
