// Package sqlite implements graph.Store on an embedded SQLite database
// (modernc.org/sqlite, pure Go, no cgo). It is Sextant's default store: one
// file in the user's cache directory that the indexer writes and every
// server process reads.
//
// # Durability and concurrency
//
// The database runs in WAL mode with synchronous=NORMAL: a commit is atomic
// and survives a crash of the process at any instant; only a power loss or
// OS crash can lose the last commits, never corrupt the file, and that is
// acceptable for an index that can be rebuilt from source. Connections wait
// up to 10 s on a lock (busy_timeout) instead of failing at once.
//
// The Store keeps two connection pools. Writes go through a pool of a single
// connection whose transactions start with BEGIN IMMEDIATE, so a writer takes
// the write lock before it reads and two writers (even in two processes)
// queue instead of deadlocking on a lock upgrade. Reads go through a pool of
// several read-only connections; each Reader holds one of them inside a read
// transaction, which in WAL mode is a snapshot of the whole database as of
// its first read: nothing committed later, including deletion of old
// snapshots, is visible to it until it is closed.
//
// # Snapshots
//
// A SnapshotWriter writes all of a snapshot inside one write transaction,
// begun at its first Add call rather than at BeginSnapshot, so the slow part
// of indexing (loading and type-checking packages) does not hold the write
// lock. Publish stores the snapshot's counts and points the repository at it
// in the same transaction and commits; a crash before that commit leaves the
// previous snapshot current and the database clean. After the commit,
// Publish deletes the repository's other snapshots in a second transaction.
// Readers that pinned an older snapshot keep seeing it (WAL), so old
// snapshots are in effect removed once nothing reads them. A crash between
// the two transactions leaves only unreachable rows, which the next Publish
// (or Collect) removes.
//
// # Cross-references
//
// References, call edges and implementations are buffered by the writer
// and inserted at Publish, inside the snapshot's one transaction, in the
// order of their indexes; the keys and paths they repeat are interned per
// snapshot (see schemaV2 and xrefBuffer), and references and call sites
// are packed a row per key and file (see schemaPacked). Readers look keys
// up in the interned table of each pinned current snapshot, search the
// cross-reference tables by the ids found, and decode the rows.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/filecache"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
	"github.com/sextant-dev/sextant/internal/store/textindex"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

var _ graph.Store = (*Store)(nil)

const (
	// busyTimeoutMS is how long, in milliseconds, a connection waits for a
	// lock held by another connection or process before failing with
	// SQLITE_BUSY.
	busyTimeoutMS = "10000"

	// maxReaders bounds the read pool. A Reader holds a connection until it
	// is closed, so this is also how many requests can read at once; Read
	// waits (honouring its context) for a free connection beyond that.
	maxReaders = 8
)

// writeParams configure the single write connection: the busy timeout;
// WAL with synchronous=NORMAL (durable across process crashes, see the
// package doc); a 64 MiB page cache, so writing a large snapshot does not
// spill and re-read index pages (released after each snapshot, see
// releaseMemory); a WAL trimmed back to 64 MiB after a checkpoint, so one
// large snapshot does not leave a large file behind; temporary storage in
// memory (see below); and BEGIN IMMEDIATE for every transaction begun on
// it.
//
// Every multi-row INSERT of a snapshot's transaction keeps a statement
// journal, the original of each page it changes, so that it can be undone
// alone if it fails half-way (a NOT NULL column suffices for that).
// SQLite spills a statement journal to a temporary file beyond 64 KiB
// unless temporary storage is in memory: indexing prometheus wrote 240 MB
// to such files in 110,000 system calls, five times the database's size.
// Each journal lives for one statement of at most batchRows rows
// (textBatchRows for the search rows).
const writeParams = "_pragma=busy_timeout(" + busyTimeoutMS + ")" +
	"&_pragma=cache_size(-65536)" +
	"&_pragma=temp_store(memory)" +
	"&_pragma=foreign_keys(0)" +
	"&_pragma=journal_size_limit(67108864)" +
	"&_journal_mode=WAL" +
	"&_synchronous=NORMAL" +
	"&_txlock=immediate"

// readParams configure read connections: they wait on locks like the writer
// and refuse to write, so a bug in a reader cannot modify the graph. They
// read the file through a memory map (up to 256 MiB) rather than a system
// call per page missing from a connection's own 2 MiB cache: search_code
// on prometheus's 38 MB index spent an eighth of its time in those reads.
// The mapped pages are the operating system's cache, shared by every
// connection, not memory of each.
const readParams = "_pragma=busy_timeout(" + busyTimeoutMS + ")" +
	"&_pragma=foreign_keys(0)" +
	"&_pragma=mmap_size(268435456)" +
	"&_query_only=1"

// Store is a graph.Store backed by one SQLite database file. It is safe for
// concurrent use; see the package doc for how writers and readers share it.
type Store struct {
	path string
	wdb  *sql.DB // exactly one connection; every write goes through it
	rdb  *sql.DB // read-only connections for Readers and lookups

	names names.Cache                      // per-snapshot name tables for prefix, substring and fuzzy search
	strs  names.Snapshots[internedStrings] // per-snapshot interned strings (see internedStrings)
	text  textindex.Cache                  // per-snapshot full-text indexes of search_code (see SearchText)
	stmts stmtCache                        // prepared read statements, shared by readers
	// recRuns: the runs of each test recording as last read
	recRuns sqlbase.RecordingRuns

	// Background loads of name tables (WarmNames): bg ends at Close,
	// which waits for them; warmMu orders a load's start with that end.
	bg     context.Context
	stopBG context.CancelFunc
	warmMu sync.Mutex
	warm   sync.WaitGroup
}

// DefaultPath returns where the default database lives: $SEXTANT_DB when it
// is set, else sextant/sextant.db under the user's cache directory, which it
// creates (mode 0700) when missing and refuses when another user owns it
// or may write to it (filecache.PrivateDir).
func DefaultPath() (string, error) {
	if p := os.Getenv("SEXTANT_DB"); p != "" {
		return p, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding cache directory: %w", err)
	}
	// Refused when others may write to it: they could swap the database,
	// or the go shim and type cache kept beside it.
	if dir, err = filecache.PrivateDir(dir, "sextant"); err != nil {
		return "", fmt.Errorf("opening the database directory: %w", err)
	}
	return filepath.Join(dir, "sextant.db"), nil
}

// Open opens the database at path, creating it and its schema when missing.
// It fails with an error wrapping ErrNewerSchema when the file was written by
// a newer schema version, and with DATABASE_CORRUPT when SQLite finds the
// file damaged (see OpenOrRebuild).
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolving database path: %w", err)
	}
	uri := fileURI(abs)

	wdb, err := sql.Open("sqlite", uri+"?"+writeParams)
	if err != nil {
		return nil, fmt.Errorf("opening database: %w", err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	s := &Store{path: abs, wdb: wdb}
	s.bg, s.stopBG = context.WithCancel(context.Background())
	if err := s.init(ctx, uri); err != nil {
		s.Close()
		if isCorrupt(err) {
			return nil, corruptError(abs, err.Error(), err)
		}
		return nil, fmt.Errorf("opening %s: %w", abs, err)
	}
	return s, nil
}

func (s *Store) init(ctx context.Context, uri string) error {
	var version string
	if err := s.wdb.QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&version); err != nil {
		return fmt.Errorf("reading sqlite version: %w", err)
	}
	if err := checkVersion(version); err != nil {
		return err
	}
	var mode string
	if err := s.wdb.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fmt.Errorf("reading journal mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not wal (is the file on a filesystem without shared memory?)", mode)
	}
	if err := migrate(ctx, s.wdb); err != nil {
		return err
	}
	rdb, err := sql.Open("sqlite", uri+"?"+readParams)
	if err != nil {
		return fmt.Errorf("opening read pool: %w", err)
	}
	rdb.SetMaxOpenConns(maxReaders)
	rdb.SetMaxIdleConns(maxReaders / 2)
	s.rdb = rdb
	if err := rdb.PingContext(ctx); err != nil {
		return fmt.Errorf("opening read connection: %w", err)
	}
	return nil
}

// fileURI returns an SQLite URI naming the file at the absolute path p, with
// every character that is special in a URI escaped, so a path holding '?' or
// '#' still names the right file.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/...
	}
	return "file://" + (&url.URL{Path: p}).EscapedPath()
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes both connection pools. Readers and writers still open are
// invalid afterwards; an unpublished snapshot is rolled back.
func (s *Store) Close() error {
	var errs []error
	if s.stopBG != nil {
		s.warmMu.Lock()
		s.stopBG()
		s.warmMu.Unlock()
		s.warm.Wait()
	}
	s.stmts.close()
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.wdb != nil {
		errs = append(errs, s.wdb.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing database: %w", err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns its report, "ok"
// when the file is sound.
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	rows, err := s.rdb.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return "", fmt.Errorf("checking integrity: %w", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", fmt.Errorf("checking integrity: %w", err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("checking integrity: %w", err)
	}
	return strings.Join(lines, "\n"), nil
}

// SQLiteVersion returns the version of the SQLite library compiled into the
// binary, for logs and bug reports.
func (s *Store) SQLiteVersion(ctx context.Context) (string, error) {
	var v string
	if err := s.rdb.QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&v); err != nil {
		return "", fmt.Errorf("reading sqlite version: %w", err)
	}
	return v, nil
}

// EnsureRepository implements graph.Store. The root is cleaned with
// filepath.Clean; an empty name defaults to the root's base name. Looking up
// an existing root takes no write lock; creating one does, so it waits for a
// SnapshotWriter that is writing.
func (s *Store) EnsureRepository(ctx context.Context, root, name string) (graph.Repository, error) {
	root, name, err := sqlbase.RepositoryRoot(root, name)
	if err != nil {
		return graph.Repository{}, err
	}
	if repo, err := repositoryByRoot(ctx, s.rdb, root); err == nil || !errors.Is(err, graph.ErrNotFound) {
		return repo, err
	}

	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return graph.Repository{}, fmt.Errorf("ensuring repository: %w", err)
	}
	defer tx.Rollback()
	repo, err := repositoryByRoot(ctx, tx, root) // created meanwhile?
	if err == nil || !errors.Is(err, graph.ErrNotFound) {
		return repo, err
	}
	unique := name
	for i := 2; ; i++ {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM repositories WHERE name = ?`, unique).Scan(&n); err != nil {
			return graph.Repository{}, fmt.Errorf("ensuring repository: %w", err)
		}
		if n == 0 {
			break
		}
		unique = fmt.Sprintf("%s~%d", name, i)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO repositories (name, root) VALUES (?, ?)`, unique, root)
	if err != nil {
		return graph.Repository{}, fmt.Errorf("inserting repository: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return graph.Repository{}, fmt.Errorf("inserting repository: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return graph.Repository{}, fmt.Errorf("committing repository: %w", err)
	}
	return graph.Repository{ID: id, Name: unique, Root: root}, nil
}

func repositoryByRoot(ctx context.Context, q queryer, root string) (graph.Repository, error) {
	return sqlbase.ScanRepository(q.QueryRowContext(ctx, `SELECT id, name, root, vcs_head FROM repositories WHERE root = ?`, root),
		root, sql.ErrNoRows)
}

// BeginSnapshot implements graph.Store. It checks that the repository
// exists, deletes the old snapshots of it that a publish cut short left
// behind (readers that pinned one keep seeing it), and returns: the write
// transaction begins at the first Add call
// (or at Publish), so loading packages meanwhile does not hold the write
// lock. The snapshot's CreatedAt is the time BeginSnapshot was called, which
// is no later than when the indexed files were read.
//
// One store writes one snapshot at a time: a second writer's first Add waits
// until the first has published or aborted. The returned writer is safe for
// concurrent use, though its calls are serialised.
func (s *Store) BeginSnapshot(ctx context.Context, repo graph.Repository, vcsHead string) (graph.SnapshotWriter, error) {
	var n int
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM repositories WHERE id = ?`, repo.ID).Scan(&n); err != nil {
		return nil, fmt.Errorf("beginning snapshot: %w", err)
	}
	if n == 0 {
		return nil, fmt.Errorf("beginning snapshot of repository %d (%s): %w", repo.ID, repo.Name, graph.ErrNotFound)
	}
	// Old snapshots that an earlier Publish left (it was killed during its
	// collection, say) go now, before this snapshot is built, rather than
	// only after it is published: however often publishes are cut short,
	// garbage cannot pile up. As in Publish, a failure is not reported.
	var garbage bool
	if err := s.rdb.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM snapshots s JOIN repositories r ON r.id = s.repo_id
		WHERE s.repo_id = ? AND `+oldSnapshot+`)`, repo.ID).Scan(&garbage); err == nil && garbage {
		_ = s.collect(ctx, repo.ID)
	}
	return &writer{store: s, repo: repo, vcsHead: vcsHead, createdAt: time.Now()}, nil
}

// Read implements graph.Store. The returned Reader holds a read connection
// inside a transaction until Close, which must be called; the context bounds
// only the wait for a connection and the first read, not the Reader's life.
func (s *Store) Read(ctx context.Context) (graph.Reader, error) {
	conn, err := s.rdb.Conn(ctx)
	if err != nil {
		return graph.Reader{}, fmt.Errorf("acquiring read connection: %w", err)
	}
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		conn.Close()
		return graph.Reader{}, fmt.Errorf("beginning read transaction: %w", err)
	}
	// A deferred transaction takes its WAL snapshot at its first read; do
	// that read now so the view is the one current when Read was called.
	var v string
	r := &reader{conn: conn, tx: tx, names: &s.names, strs: &s.strs, text: &s.text, db: s.rdb, stmts: &s.stmts}
	if err := r.queryRow(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		tx.Rollback()
		conn.Close()
		return graph.Reader{}, fmt.Errorf("pinning snapshot: %w", err)
	}
	return graph.Reader{Catalog: r, Symbols: r, XRefs: r, Effects: r, Search: r, Closer: r}, nil
}

// WarmNames loads, in the background, the name table of the current
// snapshot of each repository whose root is one of roots (absolute, and
// cleaned here as EnsureRepository cleans them), unless it is loaded: a server calls it
// once its roots are indexed, so that its first name search does not pay
// for the load, nor find_references for the names of enclosing
// declarations (see QualifiedNames) and its interned strings (see
// internedStrings). Close cancels the loads and waits
// for them.
func (s *Store) WarmNames(roots []string) {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if len(roots) == 0 || s.bg.Err() != nil {
		return // nothing to load, or closed
	}
	// Cleaned as EnsureRepository cleans them, so that C:/src/x finds
	// the repository recorded as C:\src\x.
	cleaned := make([]string, len(roots))
	for i, root := range roots {
		cleaned[i] = filepath.Clean(root)
	}
	s.warm.Add(1)
	go func() {
		defer s.warm.Done()
		_ = s.warmNames(s.bg, cleaned) // a failed load is retried by the next search
	}()
}

func (s *Store) warmNames(ctx context.Context, roots []string) error {
	rd, err := s.Read(ctx)
	if err != nil {
		return err
	}
	defer rd.Close()
	r := rd.Catalog.(*reader)
	var b builder
	rows, err := r.query(ctx, `SELECT name FROM repositories WHERE current_snapshot IS NOT NULL AND root IN `+
		inList(&b, roots), b.Args...)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		names = append(names, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(names) == 0 {
		return err
	}
	pins, err := r.pinnedSnapshots(ctx, names)
	if err != nil {
		return err
	}
	for _, p := range pins {
		if _, err := r.nameTable(ctx, p.name, p.revision, p.snapshot); err != nil {
			return err
		}
		if _, err := r.strings(ctx, p.name, p.revision, p.snapshot); err != nil {
			return err
		}
	}
	return nil
}

// Collect deletes every snapshot that is not its repository's current one,
// with all its rows. Publish already does this for its repository; Collect
// is for maintenance, e.g. after a crash between a publish and its
// collection. Readers that pinned a collected snapshot keep seeing it.
func (s *Store) Collect(ctx context.Context) error {
	return s.collect(ctx, 0)
}

// oldSnapshot is the condition, on snapshots s joined to their repository
// r, of a snapshot that is neither the current data set nor the published
// revision: garbage, once no reader has pinned it.
const oldSnapshot = `s.id IS NOT r.current_snapshot AND s.id IS NOT r.current_revision`

// collect deletes the non-current snapshots of the repository repoID, or of
// every repository when repoID is 0, one write transaction per snapshot.
//
// One snapshot at a time, because a collection can be cut short (the
// process killed, as an indexer interrupted by a person is): what was
// collected stays collected, and the next collection has only the rest to
// do. In one transaction, garbage left by each interrupted collection would
// add up, each collection would take longer than the last, and a process
// interrupted as often would never finish one. Old snapshots are invisible
// to new readers, so deleting them piecemeal is safe.
func (s *Store) collect(ctx context.Context, repoID int64) error {
	q := `SELECT s.id FROM snapshots s JOIN repositories r ON r.id = s.repo_id
		WHERE ` + oldSnapshot
	args := []any{}
	if repoID != 0 {
		q += ` AND s.repo_id = ?`
		args = append(args, repoID)
	}
	// Snapshots of repositories that no longer exist are garbage too.
	q += ` UNION SELECT id FROM snapshots WHERE repo_id NOT IN (SELECT id FROM repositories)`
	rows, err := s.wdb.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("listing old snapshots: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("listing old snapshots: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("listing old snapshots: %w", err)
	}
	for _, id := range ids {
		if err := s.collectOne(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// collectOne deletes snapshot id and its rows in one write transaction.
// The snapshot is not current (collect checked); a publish in between
// never makes an old snapshot current again.
func (s *Store) collectOne(ctx context.Context, id int64) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("collecting snapshot %d: %w", id, err)
	}
	defer tx.Rollback()
	// The search rows are found through their symbols, so they go first.
	if _, err := tx.ExecContext(ctx, `DELETE FROM symbol_text WHERE rowid IN (SELECT id FROM symbols WHERE snapshot_id = ?)`, id); err != nil {
		return fmt.Errorf("deleting search rows of snapshot %d: %w", id, err)
	}
	for _, table := range snapshotTables {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE snapshot_id = ?`, id); err != nil {
			return fmt.Errorf("deleting %s of snapshot %d: %w", table, id, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE id = ?`, id); err != nil {
		return fmt.Errorf("deleting snapshot %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing collection of snapshot %d: %w", id, err)
	}
	return nil
}
