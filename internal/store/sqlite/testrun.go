package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

// schemaTestRuns (schema version 11) holds the per-test coverage
// `sextant tests record` writes (graph.TestRecorder): a repository's
// recording by name, its runs, and for each declaration a run executed,
// the body hash it had then. Nothing here belongs to a snapshot, so
// publishing and collecting snapshots leaves it alone.
var schemaTestRuns = []string{
	`CREATE TABLE test_recordings (
		repository  TEXT PRIMARY KEY,
		recorded_at INTEGER NOT NULL,
		vcs_head    TEXT NOT NULL DEFAULT '',
		go_version  TEXT NOT NULL DEFAULT ''
	)`,
	`CREATE TABLE test_runs (
		id          INTEGER PRIMARY KEY,
		repository  TEXT NOT NULL,
		package     TEXT NOT NULL,
		dir         TEXT NOT NULL,
		name        TEXT NOT NULL,
		kind        TEXT NOT NULL,
		status      TEXT NOT NULL,
		binary      TEXT NOT NULL DEFAULT '',
		message     TEXT NOT NULL DEFAULT '',
		duration_ms INTEGER NOT NULL DEFAULT 0,
		UNIQUE (repository, package, name)
	)`,
	`CREATE TABLE test_cover (
		repository TEXT NOT NULL,
		key        TEXT NOT NULL,
		run_id     INTEGER NOT NULL,
		body_hash  TEXT NOT NULL,
		PRIMARY KEY (repository, key, run_id)
	) WITHOUT ROWID`,
	`CREATE INDEX test_cover_run ON test_cover (run_id)`,
	`CREATE TABLE test_decls (
		repository TEXT NOT NULL,
		key        TEXT NOT NULL,
		body_hash  TEXT NOT NULL,
		PRIMARY KEY (repository, key)
	) WITHOUT ROWID`,
}

var _ graph.TestRecorder = (*Store)(nil)

// RecordTests implements graph.TestRecorder.
func (s *Store) RecordTests(ctx context.Context, rec graph.TestRecording, runs []graph.TestRun) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("recording tests: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO test_recordings (repository, recorded_at, vcs_head, go_version) VALUES (?, ?, ?, ?)
		ON CONFLICT (repository) DO UPDATE SET recorded_at = MAX(excluded.recorded_at, test_recordings.recorded_at + 1), vcs_head = excluded.vcs_head, go_version = excluded.go_version`,
		rec.Repository, rec.RecordedAt.UnixMilli(), rec.VCSHead, rec.GoVersion); err != nil {
		return fmt.Errorf("recording tests: %w", err)
	}
	for _, k := range rec.Known {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO test_decls (repository, key, body_hash) VALUES (?, ?, ?)`,
			rec.Repository, k.Key, k.BodyHash); err != nil {
			return fmt.Errorf("recording tests: %w", err)
		}
	}
	for _, r := range runs {
		var old int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM test_runs WHERE repository = ? AND package = ? AND name = ?`, rec.Repository, r.Package, r.Name).Scan(&old)
		switch {
		case err == nil:
			if _, err := tx.ExecContext(ctx, `DELETE FROM test_cover WHERE run_id = ?`, old); err != nil {
				return fmt.Errorf("recording %s: %w", r.Name, err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM test_runs WHERE id = ?`, old); err != nil {
				return fmt.Errorf("recording %s: %w", r.Name, err)
			}
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("recording %s: %w", r.Name, err)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO test_runs (repository, package, dir, name, kind, status, binary, message, duration_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, rec.Repository, r.Package, r.Dir, r.Name, r.Kind, r.Status, r.Binary, r.Message, r.Duration.Milliseconds())
		if err != nil {
			return fmt.Errorf("recording %s: %w", r.Name, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("recording %s: %w", r.Name, err)
		}
		for _, c := range r.Covered {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO test_cover (repository, key, run_id, body_hash) VALUES (?, ?, ?, ?)`,
				rec.Repository, c.Key, id, c.BodyHash); err != nil {
				return fmt.Errorf("recording %s: %w", r.Name, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("recording tests: %w", err)
	}
	return nil
}

// TestRecording implements graph.TestRecorder.
func (s *Store) TestRecording(ctx context.Context, repo string) (graph.TestRecording, []graph.TestRun, error) {
	rec := graph.TestRecording{Repository: repo}
	var at int64
	err := s.readQueryRow(ctx, `SELECT recorded_at, vcs_head, go_version FROM test_recordings WHERE repository = ?`, repo).Scan(&at, &rec.VCSHead, &rec.GoVersion)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, nil, fmt.Errorf("test recording of %s: %w", repo, graph.ErrNotFound)
	}
	if err != nil {
		return rec, nil, fmt.Errorf("reading the test recording: %w", err)
	}
	rec.RecordedAt = time.UnixMilli(at)
	runs, err := s.recRuns.Read(rec, func() ([]graph.TestRun, error) {
		rows, err := s.readQuery(ctx, `SELECT package, dir, name, kind, status, binary, message, duration_ms FROM test_runs
			WHERE repository = ? ORDER BY package, name`, repo)
		if err != nil {
			return nil, fmt.Errorf("reading the test recording: %w", err)
		}
		defer rows.Close()
		return sqlbase.Collect(rows, sqlbase.TestRun, "reading the test recording")
	})
	return rec, runs, err
}

// TestsCovering implements graph.TestRecorder. The hashes the recording
// knows and the runs that covered the keys are one statement, the former
// first for each key (run false).
func (s *Store) TestsCovering(ctx context.Context, repo string, keys []string) (map[string]string, []graph.TestCover, error) {
	var out []graph.TestCover
	known := map[string]string{}
	err := chunks(keys, func(chunk []string) error {
		b := &builder{}
		repoArg, in := b.Arg(repo), inList(b, chunk)
		rows, err := s.readQuery(ctx, `SELECT key, 0, body_hash, '', '', '' FROM test_decls WHERE repository = `+repoArg+` AND key IN `+in+`
			UNION ALL
			SELECT c.key, 1, c.body_hash, r.package, r.dir, r.name FROM test_cover c
			JOIN test_runs r ON r.id = c.run_id
			WHERE c.repository = `+repoArg+` AND c.key IN `+in+`
			ORDER BY 1, 2, 4, 6`, b.Args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c graph.TestCover
			var run bool
			if err := rows.Scan(&c.Key, &run, &c.BodyHash, &c.Package, &c.Dir, &c.Name); err != nil {
				return err
			}
			if !run {
				known[c.Key] = c.BodyHash
				continue
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, nil, fmt.Errorf("reading the test recording: %w", err)
	}
	return known, out, nil
}
