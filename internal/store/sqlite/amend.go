package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// An amended snapshot replaces the packages of a few directories of the
// current snapshot and leaves every other row where it is. Copying the
// rest into a new snapshot id would cost as much as writing it (about a
// second for golang.org/x/tools, most of an edit's budget), so an amend
// changes the rows of the current data set in place instead, in one write
// transaction:
//
//   - repositories.current_snapshot keeps naming the data set (the id the
//     rows are keyed by), so row queries are unchanged;
//   - the amend inserts a snapshots row of its own, which becomes
//     repositories.current_revision: the snapshot id readers report, and
//     by which they cache (see names);
//   - the base's own snapshots row stays (it names the data set) but is
//     no longer reported; collection keeps both.
//
// Readers see the amend atomically: a read transaction opened before the
// commit keeps the WAL snapshot it pinned, one opened after sees all of it.
// An amend killed half-way leaves nothing, like any transaction.

var _ graph.Amender = (*Store)(nil)

// BeginAmend implements graph.Amender. base is the snapshot id the
// caller read as current (RepositoryStatus.Snapshot.ID); the write lock
// is taken at the first call on the writer, and the base is checked then.
func (s *Store) BeginAmend(ctx context.Context, repo graph.Repository, base int64, vcsHead string) (graph.AmendWriter, error) {
	if base <= 0 {
		return nil, fmt.Errorf("amending repository %s: no base snapshot: %w", repo.Name, graph.ErrBaseMoved)
	}
	return &amendWriter{writer: &writer{store: s, repo: repo, vcsHead: vcsHead, createdAt: time.Now(), amendBase: base}}, nil
}

// amendWriter is a writer in amend mode (writer.amendBase set): its rows
// go to the base's data set, and RemoveDirs deletes rows from it first.
type amendWriter struct {
	*writer
}

// insertSnapshot inserts the snapshots row of w, under the write lock,
// and returns its id and the id its rows are keyed by: the same for a new
// snapshot; for an amend, the base's data set, after checking that the
// base is still the repository's current snapshot.
func (w *writer) insertSnapshot(ctx context.Context, tx *sql.Tx) (rev, data int64, err error) {
	if w.amendBase != 0 {
		var cur sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT current_snapshot, coalesce(current_revision, current_snapshot)
			FROM repositories WHERE id = ?`, w.repo.ID).Scan(&data, &cur)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, 0, fmt.Errorf("amending repository %d: %w", w.repo.ID, graph.ErrNotFound)
		}
		if err != nil || !cur.Valid || cur.Int64 != w.amendBase {
			if err == nil {
				err = graph.ErrBaseMoved
			}
			return 0, 0, fmt.Errorf("amending snapshot %d: %w", w.amendBase, err)
		}
	}
	// An amend keeps what made its base, unless it is said again, and
	// its base's format: the records it does not re-derive are the
	// base's.
	res, err := tx.ExecContext(ctx, `INSERT INTO snapshots (repo_id, created_at, vcs_head, build, indexers, format) VALUES (?1, ?2, ?3,
		coalesce((SELECT build FROM snapshots WHERE id = ?4), ''), coalesce((SELECT indexers FROM snapshots WHERE id = ?4), ''),
		coalesce((SELECT format FROM snapshots WHERE id = ?4), ?5))`,
		w.repo.ID, w.createdAt.UnixMilli(), w.vcsHead, w.amendBase, graph.IndexFormat)
	if err != nil {
		return 0, 0, fmt.Errorf("inserting snapshot: %w", err)
	}
	rev, err = res.LastInsertId()
	if err != nil {
		return 0, 0, fmt.Errorf("inserting snapshot: %w", err)
	}
	if w.amendBase == 0 {
		data = rev
	}
	return rev, data, nil
}

// AddModules implements graph.SnapshotWriter: an amend keeps the modules.
func (w *amendWriter) AddModules(ctx context.Context, mods []graph.Module) error {
	return errors.New("an amended snapshot keeps its base's modules")
}

// RemoveDirs implements graph.AmendWriter.
func (w *amendWriter) RemoveDirs(ctx context.Context, dirs []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil || len(dirs) == 0 {
		return err
	}
	tx, data := w.tx, w.snapID

	// The files of the directories, whichever package they belong to
	// (build-ignored files belong to none), and those of their symbols.
	var files []string
	err := queryEach(ctx, tx, `SELECT path FROM files WHERE snapshot_id = ? UNION SELECT path FROM units WHERE snapshot_id = ?`, []any{data, data}, func(rows *sql.Rows) error {
		var p string
		if err := rows.Scan(&p); err != nil {
			return err
		}
		// Go files only: go.mod and go.sum of a package directory are
		// the snapshot's manifests, which an amend keeps.
		if strings.HasSuffix(p, ".go") && slices.Contains(dirs, path.Dir(p)) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing files: %w", err)
	}
	var pkgs []string
	err = queryEach(ctx, tx, `SELECT path FROM packages WHERE snapshot_id = ? AND dir IN `+placeholders(len(dirs)), keyedArgs(data, dirs), func(rows *sql.Rows) error {
		var p string
		if err := rows.Scan(&p); err != nil {
			return err
		}
		pkgs = append(pkgs, p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing packages: %w", err)
	}

	if _, err := w.removeRows(ctx, files, pkgs, false); err != nil {
		return err
	}
	for _, d := range dirs {
		if !slices.Contains(w.amended, d) {
			w.amended = append(w.amended, d)
		}
	}
	return nil
}

var _ graph.FileRemover = (*amendWriter)(nil)

// RemoveFiles implements graph.FileRemover: the files' rows go as
// RemoveDirs' do, with the implementations their symbols are in and the
// packages they leave without a file. The snapshot is not marked
// amended: nothing whole-program is carried over.
func (w *amendWriter) RemoveFiles(ctx context.Context, paths []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil || len(paths) == 0 {
		return err
	}
	tx, data := w.tx, w.snapID
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	var files []string
	left := map[string]bool{} // packages that keep a file
	var touched []string
	err := queryEach(ctx, tx, `SELECT path, package FROM files WHERE snapshot_id = ?`, []any{data}, func(rows *sql.Rows) error {
		var p, pkg string
		if err := rows.Scan(&p, &pkg); err != nil {
			return err
		}
		if !want[p] {
			left[pkg] = true
			return nil
		}
		files = append(files, p)
		if pkg != "" && !slices.Contains(touched, pkg) {
			touched = append(touched, pkg)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing files: %w", err)
	}
	// A file of the paths that the snapshot has no row for may still
	// have a unit (its symbols): removed all the same.
	for _, p := range paths {
		if !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	var pkgs []string
	for _, p := range touched {
		if !left[p] {
			pkgs = append(pkgs, p)
		}
	}
	_, err = w.removeRows(ctx, files, pkgs, true)
	return err
}

// removeRows deletes from the amend's data set the rows of files (their
// symbols, search rows, effect rows, units, references and call edges
// whose site is in them, diagnostics and the files) and of the packages
// pkgs (their diagnostics and package rows); with impls, the
// implementation pairs either side of which is one of the files'
// symbols too. It returns the keys of the symbols removed. The caller
// holds w.mu.
func (w *amendWriter) removeRows(ctx context.Context, files, pkgs []string, impls bool) ([]string, error) {
	tx, data := w.tx, w.snapID
	exec := func(what, q string, a ...any) error {
		if _, err := tx.ExecContext(ctx, q, a...); err != nil {
			return fmt.Errorf("removing %s: %w", what, err)
		}
		return nil
	}
	var keys []string
	if len(files) > 0 {
		// The symbols of the files, by their unit (symbols_unit): their
		// row ids for the symbol and search rows, their keys for the
		// effect rows. References and call edges go by their site's path.
		var ids []any
		err := queryEach(ctx, tx, `SELECT s.id, s.key FROM units u JOIN symbols s ON s.unit_id = u.id
			WHERE u.snapshot_id = ? AND u.path IN `+placeholders(len(files)), keyedArgs(data, files), func(rows *sql.Rows) error {
			var id int64
			var key string
			if err := rows.Scan(&id, &key); err != nil {
				return err
			}
			ids, keys = append(ids, id), append(keys, key)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing symbols: %w", err)
		}
		const chunk = 500
		for lo := 0; lo < len(ids); lo += chunk {
			hi := min(lo+chunk, len(ids))
			if err := exec("effect rows", `DELETE FROM effects WHERE snapshot_id = ? AND func IN `+placeholders(hi-lo), keyedArgs(data, keys[lo:hi])...); err != nil {
				return nil, err
			}
			if err := exec("search rows", `DELETE FROM symbol_text WHERE rowid IN `+placeholders(hi-lo), ids[lo:hi]...); err != nil {
				return nil, err
			}
			if err := exec("symbols", `DELETE FROM symbols WHERE id IN `+placeholders(hi-lo), ids[lo:hi]...); err != nil {
				return nil, err
			}
			for _, id := range ids[lo:hi] {
				w.removedSyms = append(w.removedSyms, id.(int64))
			}
		}
		if impls {
			// Either side of a pair may be one of the symbols; the new
			// records add the pairs that still hold.
			for lo := 0; lo < len(keys); lo += chunk {
				hi := min(lo+chunk, len(keys))
				ids := `SELECT id FROM interned WHERE snapshot_id = ? AND value IN ` + placeholders(hi-lo)
				a := append([]any{data}, keyedArgs(data, keys[lo:hi])...)
				a = append(a, keyedArgs(data, keys[lo:hi])...)
				if err := exec("implementations", `DELETE FROM implements WHERE snapshot_id = ? AND (type IN (`+ids+`) OR iface IN (`+ids+`))`, a...); err != nil {
					return nil, err
				}
			}
		}
		if err := exec("units", `DELETE FROM units WHERE snapshot_id = ? AND path IN `+placeholders(len(files)), keyedArgs(data, files)...); err != nil {
			return nil, err
		}
		paths := `SELECT id FROM interned WHERE snapshot_id = ? AND value IN ` + placeholders(len(files))
		pathArgs := append([]any{data}, keyedArgs(data, files)...)
		for _, table := range []string{"refs", "calls_by_caller", "calls_by_callee"} {
			if err := exec(table, `DELETE FROM `+table+` WHERE snapshot_id = ? AND path IN (`+paths+`)`, pathArgs...); err != nil {
				return nil, err
			}
		}
		if err := exec("diagnostics", `DELETE FROM diagnostics WHERE snapshot_id = ? AND path IN `+placeholders(len(files)), keyedArgs(data, files)...); err != nil {
			return nil, err
		}
		if err := exec("files", `DELETE FROM files WHERE snapshot_id = ? AND path IN `+placeholders(len(files)), keyedArgs(data, files)...); err != nil {
			return nil, err
		}
	}
	if len(pkgs) > 0 {
		if err := exec("diagnostics", `DELETE FROM diagnostics WHERE snapshot_id = ? AND package IN `+placeholders(len(pkgs)), keyedArgs(data, pkgs)...); err != nil {
			return nil, err
		}
		if err := exec("packages", `DELETE FROM packages WHERE snapshot_id = ? AND path IN `+placeholders(len(pkgs)), keyedArgs(data, pkgs)...); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// amendIDs gives every buffered string its interned id in data set snap:
// the one it already has, or a new one after the largest in use.
func (x *xrefBuffer) amendIDs(ctx context.Context, tx wtx, snap int64) ([]int64, error) {
	ids := make([]int64, len(x.strs))
	const chunk = 500
	for lo := 0; lo < len(x.strs); lo += chunk {
		hi := min(lo+chunk, len(x.strs))
		err := queryEach(ctx, tx.Tx, `SELECT id, value FROM interned WHERE snapshot_id = ? AND value IN `+placeholders(hi-lo), keyedArgs(snap, x.strs[lo:hi]), func(rows *sql.Rows) error {
			var id int64
			var v string
			if err := rows.Scan(&id, &v); err != nil {
				return err
			}
			ids[x.nums[v]] = id
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("looking up interned strings: %w", err)
		}
	}
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM interned`).Scan(&next); err != nil {
		return nil, fmt.Errorf("allocating interned ids: %w", err)
	}
	b := &batch{head: `INSERT INTO interned (id, snapshot_id, value) VALUES `, cols: 3}
	defer b.close(tx)
	for n, id := range ids {
		if id != 0 {
			continue
		}
		ids[n] = next
		next++
		if err := b.add(ctx, tx, ids[n], snap, x.strs[n]); err != nil {
			return nil, fmt.Errorf("inserting interned strings: %w", err)
		}
	}
	if err := b.flush(ctx, tx); err != nil {
		return nil, fmt.Errorf("inserting interned strings: %w", err)
	}
	return ids, nil
}

// splitLines parses a column of lines (snapshots.amended, .indexers).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// SymbolsInFiles returns the symbols declared in the files at paths of
// repository repo, in no particular order: what an amend resolves the
// references of the packages it re-derives against (see
// internal/index.Refresh). It reads them by file (symbols_unit), where
// FindSymbols would load the snapshot's whole name table.
func (r *reader) SymbolsInFiles(ctx context.Context, repo string, paths []string) ([]graph.Symbol, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	snap, err := r.snapshotOf(ctx, repo)
	if err != nil {
		return nil, err
	}
	var out []graph.Symbol
	const chunk = 500
	for lo := 0; lo < len(paths); lo += chunk {
		hi := min(lo+chunk, len(paths))
		a := []any{snap}
		for _, p := range paths[lo:hi] {
			a = append(a, p)
		}
		syms, _, err := r.querySymbols(ctx, `SELECT `+symbolColumns+` FROM units u
			CROSS JOIN symbols s ON s.unit_id = u.id
			JOIN repositories r ON r.current_snapshot = u.snapshot_id
			WHERE u.snapshot_id = ? AND u.path IN (`+strings.TrimSuffix(strings.Repeat("?, ", hi-lo), ", ")+`)`, a...)
		if err != nil {
			return nil, fmt.Errorf("reading the symbols of files: %w", err)
		}
		out = append(out, syms...)
	}
	return out, nil
}

// placeholders is the placeholder list "(?, ?, ...)" of n values, for IN.
func placeholders(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}

// keyedArgs is the arguments of a query keyed by lead (a snapshot id)
// followed by an IN list of vals.
func keyedArgs(lead any, vals []string) []any {
	out := make([]any, 0, 1+len(vals))
	out = append(out, lead)
	for _, v := range vals {
		out = append(out, v)
	}
	return out
}
