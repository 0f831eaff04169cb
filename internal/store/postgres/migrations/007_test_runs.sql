-- Schema version 7: the per-test coverage `sextant tests record` writes
-- (graph.TestRecorder): a repository's recording by name, its runs, and
-- for each declaration a run executed, the body hash it had then. None of
-- it belongs to a snapshot: publishing and collecting leave it alone.
CREATE TABLE test_recordings (
	repository  text PRIMARY KEY,
	recorded_at timestamptz NOT NULL,
	vcs_head    text NOT NULL DEFAULT '',
	go_version  text NOT NULL DEFAULT ''
);
CREATE TABLE test_runs (
	id          bigserial PRIMARY KEY,
	repository  text NOT NULL,
	package     text NOT NULL,
	dir         text NOT NULL,
	name        text NOT NULL,
	kind        text NOT NULL,
	status      text NOT NULL,
	binary_hash text NOT NULL DEFAULT '',
	message     text NOT NULL DEFAULT '',
	duration_ms bigint NOT NULL DEFAULT 0,
	UNIQUE (repository, package, name)
);
CREATE TABLE test_cover (
	repository text NOT NULL,
	key        text NOT NULL,
	run_id     bigint NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
	body_hash  text NOT NULL,
	PRIMARY KEY (repository, key, run_id)
);
CREATE INDEX test_cover_run ON test_cover (run_id);
CREATE TABLE test_decls (
	repository text NOT NULL,
	key        text NOT NULL,
	body_hash  text NOT NULL,
	PRIMARY KEY (repository, key)
);
