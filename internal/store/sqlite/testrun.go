package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	runs, err := s.recRuns.Read(rec, func() ([]graph.TestRun, []int64, time.Time, error) {
		return s.readRuns(ctx, repo)
	})
	return rec, runs, err
}

// readRuns reads the runs of repo's recording with their row ids and
// the recorded_at they belong to, in one statement (zero when there are
// no runs).
func (s *Store) readRuns(ctx context.Context, repo string) ([]graph.TestRun, []int64, time.Time, error) {
	rows, err := s.readQuery(ctx, `SELECT r.package, r.dir, r.name, r.kind, r.status, r.binary, r.message, r.duration_ms, r.id, t.recorded_at
		FROM test_runs r JOIN test_recordings t ON t.repository = r.repository
		WHERE r.repository = ? ORDER BY r.package, r.name`, repo)
	if err != nil {
		return nil, nil, time.Time{}, fmt.Errorf("reading the test recording: %w", err)
	}
	defer rows.Close()
	var ids []int64
	var at int64
	runs, err := sqlbase.Collect(rows, func(row sqlbase.Scanner) (graph.TestRun, error) {
		var id int64
		r, err := sqlbase.TestRun(row, &id, &at)
		ids = append(ids, id)
		return r, err
	}, "reading the test recording")
	if err != nil || len(runs) == 0 {
		return runs, nil, time.Time{}, err
	}
	return runs, ids, time.UnixMilli(at), nil
}

// TestsCovering implements graph.TestRecorder. The hashes the recording
// knows and the runs that covered the keys are one statement, the former
// first for each key: by run id, named from the runs TestRecording kept
// when they are of the recorded_at the statement reads too (the usual
// case: get_impact reads the recording first), else joined to the runs.
func (s *Store) TestsCovering(ctx context.Context, repo string, keys []string) (map[string]string, []graph.TestCover, error) {
	var out []graph.TestCover
	known := map[string]string{}
	err := chunks(keys, func(chunk []string) error {
		covers, ok, err := s.coversByID(ctx, repo, chunk, known)
		if err != nil || ok {
			out = append(out, covers...)
			return err
		}
		covers, err = s.coversJoined(ctx, repo, chunk, known)
		out = append(out, covers...)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("reading the test recording: %w", err)
	}
	return known, out, nil
}

// coversByID reads the hashes the recording knows of keys into known and
// the runs that covered them by run id, grouped into one row for each key
// and hash (a function many tests run is one row, not hundreds), with the
// recording's recorded_at in the same statement, and names the runs from
// those kept at it; false, with known filled, when they cannot be named
// so.
func (s *Store) coversByID(ctx context.Context, repo string, keys []string, known map[string]string) ([]graph.TestCover, bool, error) {
	b := &builder{}
	repoArg, in := b.Arg(repo), inList(b, keys)
	rows, err := s.readQuery(ctx, `SELECT key, 0, body_hash, '' FROM test_decls WHERE repository = `+repoArg+` AND key IN `+in+`
		UNION ALL
		SELECT key, 1, body_hash, group_concat(run_id) FROM test_cover WHERE repository = `+repoArg+` AND key IN `+in+` GROUP BY key, body_hash
		UNION ALL
		SELECT '', 2, '', CAST(recorded_at AS TEXT) FROM test_recordings WHERE repository = `+repoArg, b.Args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var covers []graph.TestCover
	var ids []int64
	var at int64
	for rows.Next() {
		var c graph.TestCover
		var what int
		var list string
		if err := rows.Scan(&c.Key, &what, &c.BodyHash, &list); err != nil {
			return nil, false, err
		}
		switch what {
		case 0:
			known[c.Key] = c.BodyHash
		case 1:
			for f := range strings.SplitSeq(list, ",") {
				id, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return nil, false, fmt.Errorf("run ids %.40q: %w", list, err)
				}
				covers, ids = append(covers, c), append(ids, id)
			}
		case 2:
			if at, err = strconv.ParseInt(list, 10, 64); err != nil {
				return nil, false, fmt.Errorf("recorded_at %.40q: %w", list, err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(covers) == 0 {
		return nil, true, nil
	}
	if at == 0 || !s.recRuns.Cover(repo, time.UnixMilli(at), covers, ids) {
		return nil, false, nil
	}
	slices.SortFunc(covers, func(a, b graph.TestCover) int {
		return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Package, b.Package), strings.Compare(a.Name, b.Name))
	})
	return covers, true, nil
}

// coversJoined reads the hashes the recording knows of keys into known
// and the runs that covered them, joined to the runs for their names.
func (s *Store) coversJoined(ctx context.Context, repo string, keys []string, known map[string]string) ([]graph.TestCover, error) {
	b := &builder{}
	repoArg, in := b.Arg(repo), inList(b, keys)
	rows, err := s.readQuery(ctx, `SELECT key, 0, body_hash, '', '', '' FROM test_decls WHERE repository = `+repoArg+` AND key IN `+in+`
		UNION ALL
		SELECT c.key, 1, c.body_hash, r.package, r.dir, r.name FROM test_cover c
		JOIN test_runs r ON r.id = c.run_id
		WHERE c.repository = `+repoArg+` AND c.key IN `+in+`
		ORDER BY 1, 2, 4, 6`, b.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graph.TestCover
	for rows.Next() {
		var c graph.TestCover
		var run bool
		if err := rows.Scan(&c.Key, &run, &c.BodyHash, &c.Package, &c.Dir, &c.Name); err != nil {
			return nil, err
		}
		if !run {
			known[c.Key] = c.BodyHash
			continue
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
