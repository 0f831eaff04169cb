package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// codes are the stored codes of kinds, coverage classes, call modes and
// effects (sqlbase), as written: smallint columns.
var codes = sqlbase.NewCodes[int16]()

// lock takes w.mu for a call that adds to the snapshot, failing with
// sqlbase.ErrWriterDone (and not holding it) once the writer has published or
// aborted.
func (w *writer) lock() error {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return sqlbase.ErrWriterDone
	}
	return nil
}

// writer is the SnapshotWriter of the postgres store. It validates and
// buffers records as they are added and writes them all at Publish, in
// the one transaction that publishes them (see the package doc): the
// database sees nothing of a snapshot until it is complete, and indexing
// holds no lock and no connection.
type writer struct {
	store     *Store
	repo      graph.Repository
	vcsHead   string
	createdAt time.Time

	mu        sync.Mutex
	done      bool
	modules   []graph.Module
	packages  []graph.Package
	files     []graph.File
	fileSeen  map[string]bool
	symbols   []graph.Symbol
	diags     []graph.Diagnostic
	refs      []graph.Ref
	edges     []graph.CallEdge
	impls     []graph.Implements
	implsSeen map[[2]string]bool
	effects   []graph.EffectRecord
	build     string   // graph.Provenancer
	indexers  []string // graph.Provenancer
}

// SetProvenance implements graph.Provenancer.
func (w *writer) SetProvenance(build string, indexers []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.build, w.indexers = build, slices.Clone(indexers)
}

func newWriter(s *Store, repo graph.Repository, vcsHead string) *writer {
	return &writer{store: s, repo: repo, vcsHead: vcsHead, createdAt: time.Now(),
		fileSeen: map[string]bool{}, implsSeen: map[[2]string]bool{}}
}

// AddModules implements graph.SnapshotWriter.
func (w *writer) AddModules(ctx context.Context, mods []graph.Module) error {
	if err := w.lock(); err != nil {
		return err
	}
	defer w.mu.Unlock()
	w.modules = append(w.modules, mods...)
	return nil
}

// AddPackage implements graph.SnapshotWriter. A file already added keeps
// its first record; Symbol.Repository is ignored (a symbol belongs to the
// snapshot's repository); an unknown kind is an error.
func (w *writer) AddPackage(ctx context.Context, pkg graph.Package, files []graph.File, syms []graph.Symbol, diags []graph.Diagnostic) error {
	if err := w.lock(); err != nil {
		return err
	}
	defer w.mu.Unlock()
	for i := range syms {
		if _, ok := codes.Kind[syms[i].Kind]; !ok {
			return fmt.Errorf("package %s: symbol %s: unknown kind %q", pkg.Path, syms[i].QualifiedName, syms[i].Kind)
		}
	}
	w.packages = append(w.packages, pkg)
	w.addFiles(files)
	w.symbols = append(w.symbols, syms...)
	w.diags = append(w.diags, diags...)
	return nil
}

// AddFiles implements graph.SnapshotWriter.
func (w *writer) AddFiles(ctx context.Context, files []graph.File) error {
	if err := w.lock(); err != nil {
		return err
	}
	defer w.mu.Unlock()
	w.addFiles(files)
	return nil
}

func (w *writer) addFiles(files []graph.File) {
	for _, f := range files {
		if !w.fileSeen[f.Path] {
			w.fileSeen[f.Path] = true
			w.files = append(w.files, f)
		}
	}
}

// AddDiagnostics implements graph.SnapshotWriter.
func (w *writer) AddDiagnostics(ctx context.Context, diags []graph.Diagnostic) error {
	if err := w.lock(); err != nil {
		return err
	}
	defer w.mu.Unlock()
	w.diags = append(w.diags, diags...)
	return nil
}

// AddRefs implements graph.SnapshotWriter. References are stored as given,
// duplicates included; an unknown Kind is an error.
func (w *writer) AddRefs(ctx context.Context, refs []graph.Ref) error {
	if err := w.lock(); err != nil {
		return err
	}
	defer w.mu.Unlock()
	for _, r := range refs {
		if _, ok := codes.RefKind[r.Kind]; !ok {
			return fmt.Errorf("reference at %s:%d:%d: unknown kind %q", r.Path, r.Line, r.Col, r.Kind)
		}
	}
	w.refs = append(w.refs, refs...)
	return nil
}

// AddCallEdges implements graph.SnapshotWriter. Edges are stored as given,
// duplicates included; an unknown Coverage or Via is an error.
func (w *writer) AddCallEdges(ctx context.Context, edges []graph.CallEdge) error {
	if err := w.lock(); err != nil {
		return err
	}
	defer w.mu.Unlock()
	for _, e := range edges {
		if _, ok := codes.Coverage[e.Coverage]; !ok {
			return fmt.Errorf("call at %s:%d:%d: unknown coverage %q", e.Path, e.Line, e.Col, e.Coverage)
		}
		if _, ok := codes.Via[e.Via]; !ok {
			return fmt.Errorf("call at %s:%d:%d: unknown via %q", e.Path, e.Line, e.Col, e.Via)
		}
	}
	w.edges = append(w.edges, edges...)
	return nil
}

// AddImplements implements graph.SnapshotWriter. A (Type, Interface) pair
// is stored once: a repeat, whatever its Pointer, is ignored.
func (w *writer) AddImplements(ctx context.Context, impls []graph.Implements) error {
	if err := w.lock(); err != nil {
		return err
	}
	defer w.mu.Unlock()
	for _, im := range impls {
		k := [2]string{im.Type, im.Interface}
		if !w.implsSeen[k] {
			w.implsSeen[k] = true
			w.impls = append(w.impls, im)
		}
	}
	return nil
}

// Abort implements graph.SnapshotWriter: it drops what was buffered. It is
// a no-op after Publish or a previous Abort.
func (w *writer) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.end()
	return nil
}

func (w *writer) end() {
	w.done = true
	w.modules, w.packages, w.files, w.symbols, w.diags = nil, nil, nil, nil, nil
	w.refs, w.edges, w.impls, w.fileSeen, w.implsSeen, w.effects = nil, nil, nil, nil, nil, nil
}

// Publish implements graph.SnapshotWriter: in one transaction it locks the
// repository's row, inserts the snapshot (whose id is allocated under that
// lock, so a repository's snapshots are numbered in publish order), copies
// its rows, makes it current and commits. Then it collects the
// repository's older snapshots in a second transaction; a failure there is
// not reported (the snapshot is published; the next Publish or Collect
// removes the leftovers).
func (w *writer) Publish(ctx context.Context) (graph.Snapshot, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return graph.Snapshot{}, sqlbase.ErrWriterDone
	}
	snap, err := w.commit(ctx)
	w.end()
	if err != nil {
		return graph.Snapshot{}, err
	}
	_ = w.store.collect(ctx, w.repo.ID) // see the doc comment
	return snap, nil
}

func (w *writer) commit(ctx context.Context) (graph.Snapshot, error) {
	tx, err := w.store.pool.Begin(ctx)
	if err != nil {
		return graph.Snapshot{}, fmt.Errorf("beginning publish: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	tag, err := tx.Exec(ctx, `SELECT FROM repositories WHERE id = $1 FOR UPDATE`, w.repo.ID)
	if err != nil {
		return graph.Snapshot{}, fmt.Errorf("locking repository: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return graph.Snapshot{}, fmt.Errorf("publishing snapshot: repository %d: %w", w.repo.ID, graph.ErrNotFound)
	}
	created := w.createdAt.UnixMilli()
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO snapshots (repo_id, created_at, vcs_head, packages, files, symbols, diagnostics, build, indexers, format)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`, w.repo.ID, created, w.vcsHead,
		len(w.packages), len(w.files), len(w.symbols), len(w.diags), w.build, strings.Join(w.indexers, "\n"),
		graph.IndexFormat).Scan(&id); err != nil {
		return graph.Snapshot{}, fmt.Errorf("inserting snapshot: %w", err)
	}
	if err := w.copyRows(ctx, tx, id); err != nil {
		return graph.Snapshot{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE repositories SET current_snapshot = $1, vcs_head = $2 WHERE id = $3`,
		id, w.vcsHead, w.repo.ID); err != nil {
		return graph.Snapshot{}, fmt.Errorf("publishing snapshot: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return graph.Snapshot{}, fmt.Errorf("committing snapshot: %w", err)
	}
	return graph.Snapshot{ID: id, RepositoryID: w.repo.ID, CreatedAt: time.UnixMilli(created),
		Build: w.build, Indexers: slices.Clone(w.indexers), Format: graph.IndexFormat}, nil
}

// nullable returns nil for "", so optional strings are stored as NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// copyFunc copies n rows, made by row, into table's columns.
type copyFunc func(table string, cols []string, n int, row func(i int) []any) error

// copyRows writes the buffered records of snapshot id with COPY.
func (w *writer) copyRows(ctx context.Context, tx pgx.Tx, id int64) error {
	copyTable := func(table string, cols []string, n int, row func(i int) []any) error {
		if n == 0 {
			return nil
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromSlice(n, func(i int) ([]any, error) {
			return row(i), nil
		}))
		if err != nil {
			return fmt.Errorf("writing %s: %w", table, err)
		}
		return nil
	}
	steps := []func() error{
		func() error {
			return copyTable("modules", []string{"snapshot_id", "path", "dir", "go_version"}, len(w.modules), func(i int) []any {
				m := &w.modules[i]
				return []any{id, m.Path, m.Dir, m.GoVersion}
			})
		},
		func() error {
			return copyTable("packages", []string{"snapshot_id", "seq", "path", "name", "module_path", "dir", "hash",
				"test_only", "errors"}, len(w.packages), func(i int) []any {
				p := &w.packages[i]
				return []any{id, i, p.Path, p.Name, p.ModulePath, p.Dir, p.Hash, p.TestOnly, p.Errors}
			})
		},
		func() error {
			return copyTable("files", []string{"snapshot_id", "path", "package", "hash", "size", "mod_time_ns", "test",
				"ignored"}, len(w.files), func(i int) []any {
				f := &w.files[i]
				return []any{id, f.Path, f.Package, f.Hash, f.Size, f.ModTimeNS, f.Test, f.Ignored}
			})
		},
		func() error {
			return copyTable("symbols", []string{"snapshot_id", "id", "key", "name", "lname", "qname", "kind",
				"exported", "test_only", "start_line", "start_col", "end_line", "end_col", "package_path",
				"package_name", "module_path", "path", "parent", "receiver", "signature", "doc",
				"w_name", "w_doc", "w_sig", "w_body", "w_path", "language"},
				len(w.symbols), func(i int) []any {
					s := &w.symbols[i]
					var qname any
					if s.QualifiedName != s.Name {
						qname = s.QualifiedName
					}
					wName, wDoc, wSig, wBody, wPath := sqlbase.SearchColumns(s)
					return []any{id, i + 1, s.Key, s.Name, strings.ToLower(s.Name), qname, codes.Kind[s.Kind],
						s.Exported, s.TestOnly, s.StartLine, s.StartCol, s.EndLine, s.EndCol, s.PackagePath,
						s.PackageName, s.ModulePath, s.Path, nullable(s.Parent), s.Receiver, s.Signature, s.Doc,
						wName, wDoc, wSig, wBody, wPath, s.Language}
				})
		},
		func() error {
			return copyTable("diagnostics", []string{"snapshot_id", "seq", "package", "path", "line", "col", "kind",
				"message"}, len(w.diags), func(i int) []any {
				d := &w.diags[i]
				return []any{id, i, d.Package, d.Path, d.Line, d.Col, d.Kind, d.Message}
			})
		},
		func() error {
			return copyTable("refs", []string{"snapshot_id", "seq", "target", "path", "line", "col", "end_col",
				"enclosing", "kind", "test_only", "implicit"}, len(w.refs), func(i int) []any {
				r := &w.refs[i]
				return []any{id, i, r.Target, r.Path, r.Line, r.Col, r.EndCol, nullable(r.Enclosing),
					codes.RefKind[r.Kind], r.TestOnly, r.Implicit}
			})
		},
		func() error {
			return copyTable("edges", []string{"snapshot_id", "seq", "caller", "callee", "callee_name", "path", "line",
				"col", "coverage", "via", "is_go", "is_defer"}, len(w.edges), func(i int) []any {
				e := &w.edges[i]
				return []any{id, i, e.Caller, nullable(e.Callee), nullable(e.CalleeName), e.Path, e.Line, e.Col,
					codes.Coverage[e.Coverage], codes.Via[e.Via], e.Go, e.Defer}
			})
		},
		func() error {
			return copyTable("implements", []string{"snapshot_id", "type", "iface", "pointer"}, len(w.impls),
				func(i int) []any {
					im := &w.impls[i]
					return []any{id, im.Type, im.Interface, im.Pointer}
				})
		},
	}
	steps = append(steps, func() error { return w.copyEffects(copyTable, id) })
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
