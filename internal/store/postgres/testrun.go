package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
)

var _ graph.TestRecorder = (*Store)(nil)

// RecordTests implements graph.TestRecorder: a team's CI records once
// into the shared graph, and every developer's get_impact reads it.
func (s *Store) RecordTests(ctx context.Context, rec graph.TestRecording, runs []graph.TestRun) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("recording tests: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `INSERT INTO test_recordings (repository, recorded_at, vcs_head, go_version) VALUES ($1, $2, $3, $4)
		ON CONFLICT (repository) DO UPDATE SET recorded_at = GREATEST(excluded.recorded_at, test_recordings.recorded_at + interval '1 microsecond'), vcs_head = excluded.vcs_head, go_version = excluded.go_version`,
		rec.Repository, rec.RecordedAt, rec.VCSHead, rec.GoVersion); err != nil {
		return fmt.Errorf("recording tests: %w", err)
	}
	if len(rec.Known) > 0 {
		keys, hashes := make([]string, len(rec.Known)), make([]string, len(rec.Known))
		for i, k := range rec.Known {
			keys[i], hashes[i] = k.Key, k.BodyHash
		}
		if _, err := tx.Exec(ctx, `INSERT INTO test_decls (repository, key, body_hash)
			SELECT DISTINCT ON (k) $1, k, h FROM unnest($2::text[], $3::text[]) AS t(k, h)
			ON CONFLICT (repository, key) DO UPDATE SET body_hash = excluded.body_hash`, rec.Repository, keys, hashes); err != nil {
			return fmt.Errorf("recording tests: %w", err)
		}
	}
	for _, r := range runs {
		// The covered rows of a replaced run go with it (ON DELETE CASCADE).
		if _, err := tx.Exec(ctx, `DELETE FROM test_runs WHERE repository = $1 AND package = $2 AND name = $3`, rec.Repository, r.Package, r.Name); err != nil {
			return fmt.Errorf("recording %s: %w", r.Name, err)
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO test_runs (repository, package, dir, name, kind, status, binary_hash, message, duration_ms)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
			rec.Repository, r.Package, r.Dir, r.Name, r.Kind, r.Status, r.Binary, r.Message, r.Duration.Milliseconds()).Scan(&id); err != nil {
			return fmt.Errorf("recording %s: %w", r.Name, err)
		}
		if len(r.Covered) == 0 {
			continue
		}
		rows := make([][]any, 0, len(r.Covered))
		seen := map[string]bool{}
		for _, c := range r.Covered {
			if !seen[c.Key] {
				seen[c.Key] = true
				rows = append(rows, []any{rec.Repository, c.Key, id, c.BodyHash})
			}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"test_cover"}, []string{"repository", "key", "run_id", "body_hash"}, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("recording %s: %w", r.Name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("recording tests: %w", err)
	}
	return nil
}

// TestRecording implements graph.TestRecorder.
func (s *Store) TestRecording(ctx context.Context, repo string) (graph.TestRecording, []graph.TestRun, error) {
	rec := graph.TestRecording{Repository: repo}
	err := s.pool.QueryRow(ctx, `SELECT recorded_at, vcs_head, go_version FROM test_recordings WHERE repository = $1`, repo).
		Scan(&rec.RecordedAt, &rec.VCSHead, &rec.GoVersion)
	if errors.Is(err, pgx.ErrNoRows) {
		return rec, nil, fmt.Errorf("test recording of %s: %w", repo, graph.ErrNotFound)
	}
	if err != nil {
		return rec, nil, fmt.Errorf("reading the test recording: %w", err)
	}
	runs, err := s.recRuns.Read(rec, func() ([]graph.TestRun, []int64, time.Time, error) {
		// With the recorded_at they belong to, in the same statement.
		rows, err := s.pool.Query(ctx, `SELECT r.package, r.dir, r.name, r.kind, r.status, r.binary_hash, r.message, r.duration_ms, t.recorded_at
			FROM test_runs r JOIN test_recordings t ON t.repository = r.repository
			WHERE r.repository = $1 ORDER BY r.package, r.name`, repo)
		if err != nil {
			return nil, nil, time.Time{}, fmt.Errorf("reading the test recording: %w", err)
		}
		defer rows.Close()
		var at time.Time
		runs, err := sqlbase.Collect(rows, func(row sqlbase.Scanner) (graph.TestRun, error) {
			return sqlbase.TestRun(row, &at)
		}, "reading the test recording")
		return runs, nil, at, err
	})
	return rec, runs, err
}

// TestsCovering implements graph.TestRecorder. The hashes the recording
// knows and the runs that covered the keys are one statement (one round
// trip), the former first for each key (run false).
func (s *Store) TestsCovering(ctx context.Context, repo string, keys []string) (map[string]string, []graph.TestCover, error) {
	keys = graph.Dedupe(keys)
	rows, err := s.pool.Query(ctx, `SELECT key, false, body_hash, '', '', '' FROM test_decls WHERE repository = $1 AND key = ANY($2)
		UNION ALL
		SELECT c.key, true, c.body_hash, r.package, r.dir, r.name FROM test_cover c
		JOIN test_runs r ON r.id = c.run_id
		WHERE c.repository = $1 AND c.key = ANY($2)
		ORDER BY 1, 2, 4, 6`, repo, keys)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the test recording: %w", err)
	}
	defer rows.Close()
	known := map[string]string{}
	var out []graph.TestCover
	for rows.Next() {
		var c graph.TestCover
		var run bool
		if err := rows.Scan(&c.Key, &run, &c.BodyHash, &c.Package, &c.Dir, &c.Name); err != nil {
			return nil, nil, fmt.Errorf("reading the test recording: %w", err)
		}
		if !run {
			known[c.Key] = c.BodyHash
			continue
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading the test recording: %w", err)
	}
	return known, out, nil
}
