package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// codes are the stored codes of kinds, coverage classes, call modes and
// effects (sqlbase), as written.
var codes = sqlbase.NewCodes[int64]()

// unitKey is what a symbol shares with the other symbols of its file.
type unitKey struct {
	pkgPath, pkgName, modPath, path string
}

// writer is the SnapshotWriter of the sqlite store. See the package doc
// for its transaction.
type writer struct {
	store     *Store
	repo      graph.Repository
	vcsHead   string
	createdAt time.Time
	// amendBase is the snapshot an amend (see amend.go) starts from, 0
	// for a new snapshot; amended lists the directories it replaced.
	amendBase int64
	amended   []string
	stage     string // graph.Snapshot.Stage
	// prov is what made the snapshot (graph.Provenancer), nil when
	// unsaid: an amend keeps its base's.
	prov *provenance

	mu     sync.Mutex
	done   bool
	conn   *sql.Conn // the write connection, held from begin to end
	tx     *sql.Tx
	snapID int64 // the id rows are keyed by: the snapshot's own, or an amend's base data set
	revID  int64 // the snapshots row of this snapshot
	units  map[unitKey]int64
	xref   *xrefBuffer // cross-references, inserted at Publish
	stmts  struct {
		module, pkg, file, unit, diag *sql.Stmt
	}
	// Symbols and their search rows are inserted batchRows at a time,
	// with the ids after the largest in use (the writer holds the write
	// lock): nextSym is the next one.
	nextSym       int64
	symbols, text *batch
	// An amend's changes to the search rows, for the store's text
	// indexes (textindex.Cache.Amended): the ids of the rows it removed,
	// and the first id it allocated.
	removedSyms []int64
	firstSym    int64
	// The search rows of a snapshot to be published first as stage
	// types, held back until then (see addSymbols).
	laterText []heldText
}

// heldText is a symbol whose search row waits, and its row id.
type heldText struct {
	id  int64
	sym graph.Symbol
}

// begin starts the write transaction (BEGIN IMMEDIATE), inserts the
// snapshot row that allocates its id, and prepares the insert statements.
// The caller holds w.mu.
func (w *writer) begin(ctx context.Context) (err error) {
	if w.done {
		return sqlbase.ErrWriterDone
	}
	if w.tx != nil {
		return nil
	}
	conn, err := w.store.wdb.Conn(ctx)
	if err != nil {
		return fmt.Errorf("acquiring write connection: %w", err)
	}
	// The transaction outlives this call; it ends in Publish or Abort.
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		conn.Close()
		return fmt.Errorf("beginning write transaction: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
			conn.Close()
		}
	}()
	rev, id, err := w.insertSnapshot(ctx, tx)
	if err != nil {
		return err
	}
	if err := w.prepare(ctx, tx); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM symbols`).Scan(&w.nextSym); err != nil {
		return fmt.Errorf("allocating symbol ids: %w", err)
	}
	w.firstSym = w.nextSym
	w.symbols = &batch{head: `INSERT INTO symbols (id, snapshot_id, unit_id, name, lname, qname, kind, exported,
		test_only, start_line, start_col, end_line, end_col, key, parent, receiver, signature, doc, language) VALUES `, cols: 19}
	w.text = &batch{head: `INSERT INTO symbol_text (rowid, name, doc, signature, body, path) VALUES `, cols: 6,
		rows: textBatchRows}
	w.conn, w.tx, w.snapID, w.revID = conn, tx, id, rev
	w.units = map[unitKey]int64{}
	w.xref = newXrefBuffer()
	return nil
}

// prepare prepares the insert statements of tx.
func (w *writer) prepare(ctx context.Context, tx *sql.Tx) (err error) {
	prep := func(dst **sql.Stmt, q string) {
		if err != nil {
			return
		}
		*dst, err = tx.PrepareContext(ctx, q)
	}
	prep(&w.stmts.module, `INSERT INTO modules (snapshot_id, path, dir, go_version) VALUES (?, ?, ?, ?)`)
	prep(&w.stmts.pkg, `INSERT INTO packages (snapshot_id, path, name, module_path, dir, hash, test_only, errors, api)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	prep(&w.stmts.file, `INSERT OR IGNORE INTO files (snapshot_id, path, package, hash, size, mod_time_ns, test, ignored)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	prep(&w.stmts.unit, `INSERT INTO units (snapshot_id, package_path, package_name, module_path, path)
		VALUES (?, ?, ?, ?, ?)`)
	prep(&w.stmts.diag, `INSERT INTO diagnostics (snapshot_id, package, path, line, col, kind, message)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("preparing inserts: %w", err)
	}
	return nil
}

// AddModules implements graph.SnapshotWriter.
func (w *writer) AddModules(ctx context.Context, mods []graph.Module) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	for _, m := range mods {
		if _, err := w.stmts.module.ExecContext(ctx, w.snapID, m.Path, m.Dir, m.GoVersion); err != nil {
			return fmt.Errorf("inserting module %s: %w", m.Path, err)
		}
	}
	return nil
}

// AddPackage implements graph.SnapshotWriter. A file already added to the
// snapshot keeps its first record. Symbol.Repository is ignored: a symbol
// belongs to the snapshot's repository.
func (w *writer) AddPackage(ctx context.Context, pkg graph.Package, files []graph.File, syms []graph.Symbol, diags []graph.Diagnostic) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	if _, err := w.stmts.pkg.ExecContext(ctx, w.snapID, pkg.Path, pkg.Name, pkg.ModulePath, pkg.Dir, pkg.Hash,
		pkg.TestOnly, pkg.Errors, pkg.API); err != nil {
		return fmt.Errorf("inserting package %s: %w", pkg.Path, err)
	}
	if err := w.addFiles(ctx, files); err != nil {
		return err
	}
	if err := w.addSymbols(ctx, syms); err != nil {
		return fmt.Errorf("package %s: %w", pkg.Path, err)
	}
	return w.addDiagnostics(ctx, diags)
}

// AddFiles implements graph.SnapshotWriter.
func (w *writer) AddFiles(ctx context.Context, files []graph.File) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	return w.addFiles(ctx, files)
}

// AddDiagnostics implements graph.SnapshotWriter.
func (w *writer) AddDiagnostics(ctx context.Context, diags []graph.Diagnostic) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	return w.addDiagnostics(ctx, diags)
}

func (w *writer) addFiles(ctx context.Context, files []graph.File) error {
	for _, f := range files {
		if _, err := w.stmts.file.ExecContext(ctx, w.snapID, f.Path, f.Package, f.Hash, f.Size, f.ModTimeNS,
			f.Test, f.Ignored); err != nil {
			return fmt.Errorf("inserting file %s: %w", f.Path, err)
		}
	}
	return nil
}

func (w *writer) addDiagnostics(ctx context.Context, diags []graph.Diagnostic) error {
	for _, d := range diags {
		if _, err := w.stmts.diag.ExecContext(ctx, w.snapID, d.Package, d.Path, d.Line, d.Col, d.Kind,
			d.Message); err != nil {
			return fmt.Errorf("inserting diagnostics: %w", err)
		}
	}
	return nil
}

func (w *writer) addSymbols(ctx context.Context, syms []graph.Symbol) error {
	for i := range syms {
		sym := &syms[i]
		kind, ok := codes.Kind[sym.Kind]
		if !ok {
			return fmt.Errorf("symbol %s: unknown kind %q", sym.QualifiedName, sym.Kind)
		}
		uk := unitKey{sym.PackagePath, sym.PackageName, sym.ModulePath, sym.Path}
		unit, ok := w.units[uk]
		if !ok {
			res, err := w.stmts.unit.ExecContext(ctx, w.snapID, uk.pkgPath, uk.pkgName, uk.modPath, uk.path)
			if err != nil {
				return fmt.Errorf("inserting symbol file %s: %w", uk.path, err)
			}
			if unit, err = res.LastInsertId(); err != nil {
				return fmt.Errorf("inserting symbol file %s: %w", uk.path, err)
			}
			w.units[uk] = unit
		}
		var qname, parent any
		if sym.QualifiedName != sym.Name {
			qname = sym.QualifiedName
		}
		if sym.Parent != "" {
			parent = sym.Parent
		}
		id := w.nextSym
		w.nextSym++
		if err := w.symbols.add(ctx, w.wtx(), id, w.snapID, unit, sym.Name, strings.ToLower(sym.Name), qname,
			kind, sym.Exported, sym.TestOnly, sym.StartLine, sym.StartCol, sym.EndLine, sym.EndCol,
			sym.Key, parent, sym.Receiver, sym.Signature, sym.Doc, sym.Language); err != nil {
			return fmt.Errorf("inserting symbols: %w", err)
		}
		switch w.stage {
		case graph.StageSyntax:
			// search_code waits for the complete snapshot: nothing
			// reads a syntax stage's search rows, and writing them was a
			// fifth of the stage's time.
			continue
		case graph.StageTypes:
			// Nor a types stage's: they are held back until it is
			// published (see writeLaterText), which they would delay
			// by nearly half the symbols' insert.
			w.laterText = append(w.laterText, heldText{id, *sym})
			continue
		}
		if err := w.addText(ctx, id, sym); err != nil {
			return err
		}
	}
	if w.amendBase != 0 {
		// An amend reads the snapshot's symbols between packages: the
		// rest of the package's rows now.
		return w.flushSymbols(ctx)
	}
	// A whole snapshot keeps the rows that do not fill a statement for
	// the next package: flushing each package's rest took a statement
	// prepared anew for it, a fifth of the symbols' insert (prometheus:
	// 0.3 s of CPU). commit inserts what is left before it counts.
	return nil
}

// addText inserts the search row of sym, whose id is id.
func (w *writer) addText(ctx context.Context, id int64, sym *graph.Symbol) error {
	name, doc, sig, body, path := sqlbase.SearchColumns(sym)
	if err := w.text.add(ctx, w.wtx(), id, name, doc, sig, body, path); err != nil {
		return fmt.Errorf("indexing symbols for search: %w", err)
	}
	return nil
}

// writeLaterText inserts the search rows held back for a types stage,
// once it is published. The caller holds w.mu.
func (w *writer) writeLaterText(ctx context.Context) error {
	if w.stage == graph.StageTypes {
		return nil
	}
	for i := range w.laterText {
		if err := w.addText(ctx, w.laterText[i].id, &w.laterText[i].sym); err != nil {
			return err
		}
	}
	w.laterText = nil
	return nil
}

// flushSymbols inserts the symbol and search rows still buffered.
func (w *writer) flushSymbols(ctx context.Context) error {
	if err := w.symbols.flush(ctx, w.wtx()); err != nil {
		return fmt.Errorf("inserting symbols: %w", err)
	}
	if err := w.text.flush(ctx, w.wtx()); err != nil {
		return fmt.Errorf("indexing symbols for search: %w", err)
	}
	return nil
}

// Publish implements graph.SnapshotWriter: it records the snapshot's counts,
// makes it the repository's current snapshot and commits, all in the
// snapshot's one transaction, then deletes the repository's older snapshots
// in a second one. A failure of that collection is not reported: the
// snapshot is published, the leftover rows are unreachable, and the next
// Publish of the repository (or Store.Collect) removes them.
func (w *writer) Publish(ctx context.Context) (graph.Snapshot, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return graph.Snapshot{}, err
	}
	snap, err := w.commit(ctx)
	w.end()
	if err != nil {
		return graph.Snapshot{}, err
	}
	if w.amendBase != 0 {
		w.store.text.Amended(w.repo.Name, w.amendBase, snap.ID, w.removedSyms, w.firstSym, w.nextSym)
	}
	_ = w.store.collect(ctx, w.repo.ID) // see the doc comment
	w.store.releaseMemory()
	return snap, nil
}

func (w *writer) commit(ctx context.Context) (graph.Snapshot, error) {
	if err := w.writeLaterText(ctx); err != nil {
		return graph.Snapshot{}, err
	}
	if err := w.flushSymbols(ctx); err != nil {
		return graph.Snapshot{}, err
	}
	if w.amendBase == 0 {
		if err := w.xref.insert(ctx, w.wtx(), w.snapID); err != nil {
			return graph.Snapshot{}, err
		}
	} else {
		ids, err := w.xref.amendIDs(ctx, w.wtx(), w.snapID)
		if err == nil {
			err = w.xref.insertRows(ctx, w.wtx(), w.snapID, ids)
		}
		if err != nil {
			return graph.Snapshot{}, err
		}
	}
	id := w.snapID
	count := func(table string) (n int64, err error) {
		err = w.tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE snapshot_id = ?`, id).Scan(&n)
		if err != nil {
			err = fmt.Errorf("counting %s: %w", table, err)
		}
		return n, err
	}
	var counts [4]int64
	for i, table := range []string{"packages", "files", "symbols", "diagnostics"} {
		n, err := count(table)
		if err != nil {
			return graph.Snapshot{}, err
		}
		counts[i] = n
	}
	if _, err := w.tx.ExecContext(ctx, `UPDATE snapshots SET packages = ?, files = ?, symbols = ?, diagnostics = ?,
		amended = ?, stage = ? WHERE id = ?`, counts[0], counts[1], counts[2], counts[3], strings.Join(w.amended, "\n"), w.stage, w.revID); err != nil {
		return graph.Snapshot{}, fmt.Errorf("recording counts: %w", err)
	}
	if w.prov != nil {
		if _, err := w.tx.ExecContext(ctx, `UPDATE snapshots SET build = ?, indexers = ? WHERE id = ?`,
			w.prov.build, strings.Join(w.prov.indexers, "\n"), w.revID); err != nil {
			return graph.Snapshot{}, fmt.Errorf("recording provenance: %w", err)
		}
	}
	var format int
	if err := w.tx.QueryRowContext(ctx, `SELECT format FROM snapshots WHERE id = ?`, w.revID).Scan(&format); err != nil {
		return graph.Snapshot{}, fmt.Errorf("reading the snapshot's format: %w", err)
	}
	var rev any // NULL: the snapshot is its own data set
	if w.revID != id {
		rev = w.revID
	}
	res, err := w.tx.ExecContext(ctx, `UPDATE repositories SET current_snapshot = ?, current_revision = ?, vcs_head = ?
		WHERE id = ?`, id, rev, w.vcsHead, w.repo.ID)
	if err != nil {
		return graph.Snapshot{}, fmt.Errorf("publishing snapshot: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return graph.Snapshot{}, fmt.Errorf("publishing snapshot: repository %d: %w", w.repo.ID, graph.ErrNotFound)
	}
	if err := w.tx.Commit(); err != nil {
		return graph.Snapshot{}, fmt.Errorf("committing snapshot: %w", err)
	}
	snap := graph.Snapshot{ID: w.revID, RepositoryID: w.repo.ID, CreatedAt: time.UnixMilli(w.createdAt.UnixMilli()),
		Amended: slices.Clone(w.amended)}
	if w.prov != nil {
		snap.Build, snap.Indexers = w.prov.build, slices.Clone(w.prov.indexers)
	}
	snap.Format = format
	return snap, nil
}

// PublishStage implements graph.StagePublisher: it commits what was
// written so far as the repository's current snapshot, marked stage (its
// old snapshots are collected only by Publish), and begins the next
// transaction on the same connection, keeping the write lock's order: the
// rows it writes join the same data set, and Publish makes them current
// under a snapshots row of their own, a new snapshot id, as an amend
// does. What follows is the whole snapshot: a writer set to stage types
// (SetStage) has held its search rows back, and writes them with the
// next FlushXRefs or at Publish. An amend cannot publish a stage.
func (w *writer) PublishStage(ctx context.Context, stage string) (graph.Snapshot, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.amendBase != 0 {
		return graph.Snapshot{}, errors.New("an amended snapshot cannot be published in stages")
	}
	if err := w.begin(ctx); err != nil {
		return graph.Snapshot{}, err
	}
	w.stage = stage
	snap, err := w.commit(ctx)
	w.stage = ""
	if err == nil {
		err = w.resume(ctx)
	}
	if err != nil {
		w.end()
		return graph.Snapshot{}, err
	}
	snap.Stage = stage
	return snap, nil
}

// resume begins the transaction that carries on a snapshot published as
// a stage: its rows keyed by the same data set, under a new snapshots row
// that the next commit makes current. The caller holds w.mu.
func (w *writer) resume(ctx context.Context) error {
	tx, err := w.conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return fmt.Errorf("beginning write transaction: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO snapshots (repo_id, created_at, vcs_head, format)
		VALUES (?, ?, ?, (SELECT format FROM snapshots WHERE id = ?))`,
		w.repo.ID, w.createdAt.UnixMilli(), w.vcsHead, w.revID)
	var rev int64
	if err == nil {
		rev, err = res.LastInsertId()
	}
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("inserting snapshot: %w", err)
	}
	if err := w.prepare(ctx, tx); err != nil {
		tx.Rollback()
		return err
	}
	w.tx, w.revID = tx, rev
	return nil
}

// Abort implements graph.SnapshotWriter: it rolls back everything written.
// It is a no-op after Publish or a previous Abort, so `defer w.Abort()` is
// the way to make sure a failed indexing run releases the write lock.
// SetStage implements graph.Stager: the snapshot is published as stage
// (graph.StageSyntax), to be replaced by the complete one.
// provenance is what made a snapshot (graph.Provenancer).
type provenance struct {
	build    string
	indexers []string
}

// SetProvenance implements graph.Provenancer.
func (w *writer) SetProvenance(build string, indexers []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.prov = &provenance{build, slices.Clone(indexers)}
}

func (w *writer) SetStage(stage string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stage = stage
}

func (w *writer) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	var err error
	if w.tx != nil {
		if rerr := w.tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			err = fmt.Errorf("rolling back snapshot: %w", rerr)
		}
	}
	w.end()
	w.store.releaseMemory()
	return err
}

// releaseMemory returns the write connection's page cache, which a large
// snapshot fills up to its cache_size, to the allocator, so a server that
// indexed once does not keep the cache for its lifetime.
func (s *Store) releaseMemory() {
	s.wdb.ExecContext(context.Background(), `PRAGMA shrink_memory`)
}

// end releases the transaction (rolling it back unless it was committed)
// and the write connection, and marks the writer done.
func (w *writer) end() {
	if w.tx != nil {
		for _, b := range []*batch{w.symbols, w.text} {
			b.close(w.wtx()) // before the connection goes
		}
		w.tx.Rollback() // no-op after Commit
		w.conn.Close()
	}
	w.done = true
	w.tx, w.conn, w.units, w.xref = nil, nil, nil, nil
	w.stmts.module, w.stmts.pkg, w.stmts.file, w.stmts.unit, w.stmts.diag = nil, nil, nil, nil, nil
	w.symbols, w.text = nil, nil
}

// wtx returns the writer's transaction with its connection.
func (w *writer) wtx() wtx { return wtx{Tx: w.tx, conn: w.conn} }
