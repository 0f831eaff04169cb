// Package postgres implements graph.Store on PostgreSQL (through pgx), for
// the shared graph: CI publishes each repository's snapshots into one
// database that many servers read.
//
// # Snapshots and readers
//
// A SnapshotWriter buffers a snapshot in memory and writes it at Publish,
// in one transaction: it locks the repository's row (so two publishers of
// the same repository take turns, and snapshot ids of a repository grow in
// the order they become current), inserts the snapshot, copies its rows
// with COPY, points the repository at it and commits. Nothing is visible
// before that commit; a publisher that dies at any instant leaves the
// previous snapshot serving. Publishers of different repositories do not
// wait for each other.
//
// A Reader is one REPEATABLE READ, READ ONLY transaction: PostgreSQL's MVCC
// gives it the whole database as of its first query, so it sees one
// snapshot of every repository, whatever is published meanwhile.
//
// # Collection, and how a reader holds a snapshot
//
// After publishing, a publisher deletes its repository's older snapshots at
// once, in a second transaction. No lease table is needed for readers of
// other processes: a DELETE in PostgreSQL does not remove a row from the
// view of a transaction that began before it committed, and VACUUM reclaims
// the space only when no such transaction remains. A reader therefore holds
// the snapshots it pinned exactly as long as its transaction is open, in
// any process on any host, and they are reclaimed as soon as the last such
// reader closes (its transaction may outlive it by a quarter of a second,
// parked for the next reader to end: see park.go). The price is that a
// leaked reader would hold back VACUUM, so sessions run with
// idle_in_transaction_session_timeout (see readerIdleTimeout): a reader
// idle that long is ended by the server.
//
// # Name search
//
// Prefix, substring and fuzzy find_symbol queries run in memory over a
// per-snapshot table of names (internal/store/names), loaded once per
// snapshot per process, exactly as the sqlite store does, so both stores
// answer them identically. Exact queries use an index.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
	"github.com/sextant-dev/sextant/internal/store/textindex"
)

var _ graph.Store = (*Store)(nil)

// readerIdleTimeout ends a reader transaction left idle this long (a
// leaked Reader), so it cannot hold back VACUUM for ever.
const readerIdleTimeout = 10 * time.Minute

// defaultMaxConns sizes the connection pool unless the URL sets
// pool_max_conns.
const defaultMaxConns = 16

// Store is a graph.Store on a PostgreSQL database. It is safe for
// concurrent use by many goroutines, and many Stores (in many processes)
// may share one database.
type Store struct {
	pool  *pgxpool.Pool
	dsn   string // redacted
	names names.Cache
	text  textindex.Cache // per-snapshot full-text indexes of search_code (see SearchText)
	cache snapCache
	trips *counter
	// recRuns: the runs of each test recording as last read
	recRuns sqlbase.RecordingRuns
	parking parking // closed readers' connections, their transactions open
}

// IsURL reports whether s names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns the connection string with its password replaced by
// "xxxxx", for logs and errors. It handles URLs and key=value strings.
func Redact(dsn string) string {
	if IsURL(dsn) {
		if u, err := url.Parse(dsn); err == nil {
			q := u.Query()
			if q.Has("password") {
				q.Set("password", "xxxxx")
				u.RawQuery = q.Encode()
			}
			return u.Redacted()
		}
		// Unparseable: keep the scheme and host part only.
		return "postgres://(unparseable URL)"
	}
	return kvPassword.ReplaceAllString(dsn, "${1}xxxxx")
}

var kvPassword = regexp.MustCompile(`(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// Open connects to the database named by dsn (a postgres:// URL or a
// key=value connection string; search_path=... chooses a schema) and
// brings its schema to SchemaVersion. It fails with an error wrapping
// ErrNewerSchema when the database was migrated by a newer build. Errors
// never contain the password.
func Open(ctx context.Context, dsn string) (*Store, error) {
	red := Redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parsing database URL %s: %s", red, scrub(err.Error(), dsn))
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		// A Reader holds a connection for its request: allow as many
		// concurrent requests as the sqlite store's read pool, and more.
		cfg.MaxConns = defaultMaxConns
	}
	for k, v := range map[string]string{
		"application_name": "sextant",
		// A leaked Reader is ended by the server (see the package doc).
		"idle_in_transaction_session_timeout": strconv.FormatInt(readerIdleTimeout.Milliseconds(), 10),
		// Every statement is prepared once per connection (pgx's
		// statement cache) and its plan kept: with the default (auto),
		// the server plans again for each execution's values, which on
		// a loaded machine costs more than running the point queries
		// (~1 ms against ~0.1 ms). Every query of the reader leads with
		// snapshot_id, so the generic plan is the same index scan.
		"plan_cache_mode": "force_generic_plan",
	} {
		if _, ok := cfg.ConnConfig.RuntimeParams[k]; !ok {
			cfg.ConnConfig.RuntimeParams[k] = v
		}
	}
	trips := &counter{}
	cfg.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %s", red, scrub(err.Error(), dsn))
	}
	s := &Store{pool: pool, dsn: red, trips: trips, cache: snapCache{snaps: names.Snapshots[snapRows]{DropOlder: true}}}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connecting to %s: %w", red, scrubErr(err, dsn))
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("opening %s: %w", red, scrubErr(err, dsn))
	}
	return s, nil
}

// scrub removes the password of dsn from a message, should a driver error
// ever quote it.
func scrub(msg, dsn string) string {
	if pw := password(dsn); pw != "" {
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
	}
	return msg
}

// scrubErr is scrub for an error, keeping it unwrappable (errors.Is on
// ErrNewerSchema, for instance) when nothing needed removing.
func scrubErr(err error, dsn string) error {
	if pw := password(dsn); pw != "" && strings.Contains(err.Error(), pw) {
		return errors.New(scrub(err.Error(), dsn))
	}
	return err
}

func password(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return ""
	}
	return cfg.Password
}

// String returns the database's connection string without its password.
func (s *Store) String() string { return s.dsn }

// Close closes the connection pool. Readers and writers still open are
// invalid afterwards.
func (s *Store) Close() error {
	s.parking.close()
	s.pool.Close()
	return nil
}

// EnsureRepository implements graph.Store. Creation runs under a
// transaction-level advisory lock, so concurrent publishers choosing names
// (name~2, ...) do not race.
func (s *Store) EnsureRepository(ctx context.Context, root, name string) (graph.Repository, error) {
	root, name, err := sqlbase.RepositoryRoot(root, name)
	if err != nil {
		return graph.Repository{}, err
	}
	if repo, err := repositoryByRoot(ctx, s.pool, root); err == nil || !errors.Is(err, graph.ErrNotFound) {
		return repo, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return graph.Repository{}, fmt.Errorf("ensuring repository: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, repositoryLock); err != nil {
		return graph.Repository{}, fmt.Errorf("ensuring repository: %w", err)
	}
	repo, err := repositoryByRoot(ctx, tx, root) // created meanwhile?
	if err == nil || !errors.Is(err, graph.ErrNotFound) {
		return repo, err
	}
	unique := name
	for i := 2; ; i++ {
		var taken bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM repositories WHERE name = $1)`, unique).Scan(&taken); err != nil {
			return graph.Repository{}, fmt.Errorf("ensuring repository: %w", err)
		}
		if !taken {
			break
		}
		unique = fmt.Sprintf("%s~%d", name, i)
	}
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO repositories (name, root) VALUES ($1, $2) RETURNING id`,
		unique, root).Scan(&id); err != nil {
		return graph.Repository{}, fmt.Errorf("inserting repository: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return graph.Repository{}, fmt.Errorf("committing repository: %w", err)
	}
	return graph.Repository{ID: id, Name: unique, Root: root}, nil
}

// repositoryLock is the advisory lock key that serialises repository
// creation.
const repositoryLock = migrationLock + 1

type queryRower interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}

func repositoryByRoot(ctx context.Context, q queryRower, root string) (graph.Repository, error) {
	return sqlbase.ScanRepository(q.QueryRow(ctx, `SELECT id, name, root, vcs_head FROM repositories WHERE root = $1`, root),
		root, pgx.ErrNoRows)
}

// BeginSnapshot implements graph.Store. It checks that the repository
// exists; the snapshot is buffered in memory and written by Publish.
// CreatedAt is the time BeginSnapshot was called.
func (s *Store) BeginSnapshot(ctx context.Context, repo graph.Repository, vcsHead string) (graph.SnapshotWriter, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM repositories WHERE id = $1)`, repo.ID).Scan(&exists); err != nil {
		return nil, fmt.Errorf("beginning snapshot: %w", err)
	}
	if !exists {
		return nil, fmt.Errorf("beginning snapshot of repository %d (%s): %w", repo.ID, repo.Name, graph.ErrNotFound)
	}
	return newWriter(s, repo, vcsHead), nil
}

// The pinning batch begins a reader's transaction and reads, in the same
// round trip, what every request asks first: the published repositories
// with their snapshots' counts. The first SELECT fixes the transaction's
// view. Sent as one pgx batch, its statements are prepared once per
// connection like every other. A snapshot's modules never change once it
// is published: they are read once per process (snapCache), in a second
// round trip of the first pin that sees the snapshot.
const (
	pinBegin = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`
	pinRepos = `SELECT r.id, r.name, r.root, r.vcs_head, s.id, s.created_at, s.packages, s.files, s.symbols, s.diagnostics,
	s.build, s.indexers, s.format
	FROM repositories r JOIN snapshots s ON s.id = r.current_snapshot ORDER BY r.name`
	pinModules = `SELECT m.snapshot_id, m.path, m.dir, m.go_version
	FROM modules m WHERE m.snapshot_id = ANY($1) ORDER BY m.dir, m.path`
)

// Read implements graph.Store. In one round trip (the pinning batch) it
// begins a REPEATABLE READ, READ ONLY transaction on a pooled connection
// and reads the published repositories; that first read fixes the view.
// It takes a parked connection first (see park.go), ending the closed
// reader's transaction in the same batch. The Reader must be closed; the
// context bounds only the wait for a connection and that round trip.
func (s *Store) Read(ctx context.Context) (graph.Reader, error) {
	if conn := s.parking.take(); conn != nil {
		r, err := s.pin(ctx, conn, true)
		if err == nil || ctx.Err() != nil {
			return r, err
		}
		// The parked connection failed (the server may have ended
		// it): read on one from the pool.
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return graph.Reader{}, fmt.Errorf("acquiring read connection: %w", err)
	}
	return s.pin(ctx, conn, false)
}

// pin returns a reader pinned on conn, ending first the transaction a
// parked conn holds when parked says so. On failure conn is closed.
func (s *Store) pin(ctx context.Context, conn *pgxpool.Conn, parked bool) (graph.Reader, error) {
	r := &reader{conn: conn, tx: conn.Conn(), names: &s.names, text: &s.text, cache: &s.cache, parking: &s.parking,
		snaps: map[string]int64{}, rollbackFirst: parked}
	if err := r.pin(ctx); err != nil {
		conn.Conn().Close(context.WithoutCancel(ctx)) // its state is unknown
		conn.Release()
		return graph.Reader{}, fmt.Errorf("pinning snapshot: %w", err)
	}
	return graph.Reader{Catalog: r, Symbols: r, XRefs: r, Effects: r, Search: r, Closer: r}, nil
}

// pin sends the pinning batch and fills the reader's statuses. When the
// request said which symbol it reads first (graph.WithSymbolAhead), the
// batch reads it too, with what SymbolByKey reads ahead: the queries
// after the pin see the snapshots it pinned, since a REPEATABLE READ
// transaction reads one snapshot of the database from its first query.
//
// Those queries name the snapshots the last reader pinned, expecting them
// still current (a condition on snapshot IDs, the leading column of every
// index, costs less on the server than reading them from the repositories
// in each query). When the pin finds others, what they read is dropped
// and read again when asked; a first reader's queries read the current
// snapshots from the repositories.
func (r *reader) pin(ctx context.Context) error {
	batch := &pgx.Batch{}
	if r.rollbackFirst {
		batch.Queue(`ROLLBACK`) // the parked transaction (see park.go)
	}
	batch.Queue(pinBegin)
	batch.Queue(pinRepos)
	key, ahead := graph.SymbolAhead(ctx)
	lookups, lookAhead := graph.LookupsAhead(ctx)
	var readSym func(pgx.BatchResults) ([]graph.Symbol, error)
	var readLookups func(pgx.BatchResults) ([][]graph.Symbol, error)
	expected := r.cache.pinned.Load()
	if ahead || lookAhead {
		if expected != nil {
			r.pins = *expected
		} else {
			r.pinning = true
		}
		if ahead {
			readSym = r.queueSymbolByKey(ctx, batch, key)
		} else {
			readLookups = r.queueLookups(batch, lookups)
		}
		r.pins, r.pinning = nil, false
	}
	rs := r.tx.SendBatch(ctx, batch)
	defer rs.Close()
	begins := 1 // BEGIN, after the parked transaction's ROLLBACK
	if r.rollbackFirst {
		begins = 2
	}
	for range begins {
		if _, err := rs.Exec(); err != nil {
			return err
		}
	}
	rows, err := rs.Query()
	if err != nil {
		return err
	}
	bySnap := map[int64]int{}
	for rows.Next() {
		var st graph.RepositoryStatus
		var created int64
		var indexers string
		if err := rows.Scan(&st.ID, &st.Name, &st.Root, &st.VCSHead, &st.Snapshot.ID, &created,
			&st.Packages, &st.Files, &st.Symbols, &st.Diagnostics, &st.Snapshot.Build, &indexers, &st.Snapshot.Format); err != nil {
			rows.Close()
			return err
		}
		st.Snapshot.RepositoryID = st.ID
		st.Snapshot.CreatedAt = time.UnixMilli(created)
		if indexers != "" {
			st.Snapshot.Indexers = strings.Split(indexers, "\n")
		}
		bySnap[st.Snapshot.ID] = len(r.statuses)
		r.statuses = append(r.statuses, st)
		r.pins = append(r.pins, pinned{name: st.Name, snapshot: st.Snapshot.ID})
		r.snaps[st.Name] = st.Snapshot.ID
	}
	if err := rows.Err(); err != nil {
		return err
	}
	r.cache.pinned.Store(&r.pins)
	current := expected == nil || slices.Equal(*expected, r.pins)
	if readSym != nil {
		syms, err := readSym(rs)
		if err != nil {
			return err
		}
		if current {
			r.sym = &symbolRead{key: key, syms: syms}
		}
	}
	if readLookups != nil {
		found, err := readLookups(rs)
		if err != nil {
			return err
		}
		if current {
			r.looked = map[graph.Lookup][]graph.Symbol{}
			for i, l := range lookups {
				if l.QualifiedName != "" {
					r.looked[l] = found[i]
				}
			}
		}
	}
	if !current {
		// Read from snapshots no longer current: forget it all.
		r.kids, r.byKey, r.refs, r.impls = nil, nil, nil, nil
	}
	if err := rs.Close(); err != nil {
		return err
	}
	return r.pinModules(ctx, bySnap)
}

// pinModules fills the pinned statuses' modules from the cache, reading
// those of the snapshots it does not hold yet in one query of the pinned
// transaction. bySnap indexes r.statuses by snapshot ID.
func (r *reader) pinModules(ctx context.Context, bySnap map[int64]int) error {
	var missing []int64
	for i, st := range r.statuses {
		mods, ok := r.cache.rows(st.Name, st.Snapshot.ID).modules.value()
		if !ok {
			missing = append(missing, st.Snapshot.ID)
		}
		r.statuses[i].Modules = slices.Clone(mods)
	}
	if len(missing) == 0 {
		return nil
	}
	rows, err := r.tx.Query(ctx, pinModules, missing)
	if err != nil {
		return err
	}
	read := map[int64][]graph.Module{}
	for rows.Next() {
		var snap int64
		var m graph.Module
		if err := rows.Scan(&snap, &m.Path, &m.Dir, &m.GoVersion); err != nil {
			rows.Close()
			return err
		}
		read[snap] = append(read[snap], m)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, snap := range missing {
		i := bySnap[snap]
		st := &r.statuses[i]
		st.Modules = slices.Clone(read[snap])
		r.cache.rows(st.Name, snap).modules.set(read[snap])
	}
	return nil
}

// Collect deletes every snapshot that is not its repository's current one.
// Publish already does this for its repository; Collect is for
// maintenance, after a publisher died between publishing and collecting.
// Readers that pinned a collected snapshot keep seeing it (see the package
// doc).
func (s *Store) Collect(ctx context.Context) error {
	return s.collect(ctx, 0)
}

// snapshotTables are the tables whose rows belong to one snapshot.
var snapshotTables = []string{"refs", "edges", "implements", "effects", "symbols", "files", "packages", "modules", "diagnostics"}

// collect deletes the non-current snapshots of repository repoID (of every
// repository when 0) in one transaction. It locks the repository row first,
// so it never runs beside a publish or collection of the same repository.
func (s *Store) collect(ctx context.Context, repoID int64) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("collecting snapshots: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	q := `SELECT s.id FROM snapshots s LEFT JOIN repositories r ON r.id = s.repo_id
		WHERE r.id IS NULL OR r.current_snapshot IS DISTINCT FROM s.id`
	args := []any{}
	if repoID != 0 {
		if _, err := tx.Exec(ctx, `SELECT FROM repositories WHERE id = $1 FOR UPDATE`, repoID); err != nil {
			return fmt.Errorf("locking repository: %w", err)
		}
		q += ` AND s.repo_id = $1`
		args = append(args, repoID)
	}
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("listing old snapshots: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("listing old snapshots: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	for _, table := range snapshotTables {
		if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE snapshot_id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("deleting %s of old snapshots: %w", table, err)
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM snapshots WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("deleting old snapshots: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("committing collection: %w", err)
	}
	return nil
}
