-- Schema version 1 of the shared graph: the data of graph.Store.
--
-- Every row a snapshot holds carries its snapshot_id, so publishing is one
-- UPDATE of repositories.current_snapshot and collecting a snapshot is a
-- DELETE per table. Every text column compares byte-wise (COLLATE "C"),
-- so ORDER BY and index range scans agree with Go's string order and with
-- the sqlite store, whatever the database's default collation is.
-- seq columns record the order rows were written in, which orderings use
-- as their last tie-breaker.

CREATE TABLE repositories (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name text COLLATE "C" NOT NULL UNIQUE,
	root text COLLATE "C" NOT NULL UNIQUE,
	vcs_head text COLLATE "C" NOT NULL DEFAULT '',
	current_snapshot bigint
);

CREATE TABLE snapshots (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	repo_id bigint NOT NULL,
	created_at bigint NOT NULL, -- Unix milliseconds
	vcs_head text COLLATE "C" NOT NULL DEFAULT '',
	packages integer NOT NULL DEFAULT 0,
	files integer NOT NULL DEFAULT 0,
	symbols integer NOT NULL DEFAULT 0,
	diagnostics integer NOT NULL DEFAULT 0
);
CREATE INDEX snapshots_repo ON snapshots (repo_id);

CREATE TABLE modules (
	snapshot_id bigint NOT NULL,
	path text COLLATE "C" NOT NULL,
	dir text COLLATE "C" NOT NULL,
	go_version text COLLATE "C" NOT NULL
);
CREATE INDEX modules_snapshot ON modules (snapshot_id);

CREATE TABLE packages (
	snapshot_id bigint NOT NULL,
	seq integer NOT NULL,
	path text COLLATE "C" NOT NULL,
	name text COLLATE "C" NOT NULL,
	module_path text COLLATE "C" NOT NULL,
	dir text COLLATE "C" NOT NULL,
	hash text COLLATE "C" NOT NULL,
	test_only boolean NOT NULL,
	errors integer NOT NULL,
	PRIMARY KEY (snapshot_id, seq)
);
CREATE INDEX packages_path ON packages (snapshot_id, path);

CREATE TABLE files (
	snapshot_id bigint NOT NULL,
	path text COLLATE "C" NOT NULL,
	package text COLLATE "C" NOT NULL,
	hash text COLLATE "C" NOT NULL,
	size bigint NOT NULL,
	mod_time_ns bigint NOT NULL,
	test boolean NOT NULL,
	ignored boolean NOT NULL,
	PRIMARY KEY (snapshot_id, path)
);

-- lname is the name lower-cased by Go's strings.ToLower (not SQL's lower,
-- whose rules depend on the database's locale). qname holds the qualified
-- name only when it differs from name; parent is NULL when there is none,
-- so their partial indexes hold only methods and fields.
CREATE TABLE symbols (
	snapshot_id bigint NOT NULL,
	id integer NOT NULL,
	key text COLLATE "C" NOT NULL,
	name text COLLATE "C" NOT NULL,
	lname text COLLATE "C" NOT NULL,
	qname text COLLATE "C",
	kind smallint NOT NULL,
	exported boolean NOT NULL,
	test_only boolean NOT NULL,
	start_line integer NOT NULL,
	start_col integer NOT NULL,
	end_line integer NOT NULL,
	end_col integer NOT NULL,
	package_path text COLLATE "C" NOT NULL,
	package_name text COLLATE "C" NOT NULL,
	module_path text COLLATE "C" NOT NULL,
	path text COLLATE "C" NOT NULL,
	parent text COLLATE "C",
	receiver text COLLATE "C" NOT NULL,
	signature text COLLATE "C" NOT NULL,
	doc text COLLATE "C" NOT NULL,
	PRIMARY KEY (snapshot_id, id)
);
CREATE INDEX symbols_key ON symbols (snapshot_id, key);
CREATE INDEX symbols_name ON symbols (snapshot_id, name);
CREATE INDEX symbols_qname ON symbols (snapshot_id, qname) WHERE qname IS NOT NULL;
CREATE INDEX symbols_parent ON symbols (snapshot_id, parent) WHERE parent IS NOT NULL;

CREATE TABLE diagnostics (
	snapshot_id bigint NOT NULL,
	seq integer NOT NULL,
	package text COLLATE "C" NOT NULL,
	path text COLLATE "C" NOT NULL,
	line integer NOT NULL,
	col integer NOT NULL,
	kind text COLLATE "C" NOT NULL,
	message text COLLATE "C" NOT NULL
);
CREATE INDEX diagnostics_snapshot ON diagnostics (snapshot_id);

-- Cross-references. Kind, coverage and via are the same small integers as
-- in the sqlite store; optional keys are NULL when empty.
CREATE TABLE refs (
	snapshot_id bigint NOT NULL,
	seq integer NOT NULL,
	target text COLLATE "C" NOT NULL,
	path text COLLATE "C" NOT NULL,
	line integer NOT NULL,
	col integer NOT NULL,
	end_col integer NOT NULL,
	enclosing text COLLATE "C",
	kind smallint NOT NULL,
	test_only boolean NOT NULL
);
CREATE INDEX refs_target ON refs (snapshot_id, target);

CREATE TABLE edges (
	snapshot_id bigint NOT NULL,
	seq integer NOT NULL,
	caller text COLLATE "C" NOT NULL,
	callee text COLLATE "C",
	callee_name text COLLATE "C",
	path text COLLATE "C" NOT NULL,
	line integer NOT NULL,
	col integer NOT NULL,
	coverage smallint NOT NULL,
	via smallint NOT NULL,
	is_go boolean NOT NULL,
	is_defer boolean NOT NULL
);
CREATE INDEX edges_caller ON edges (snapshot_id, caller);
CREATE INDEX edges_callee ON edges (snapshot_id, callee) WHERE callee IS NOT NULL;
CREATE INDEX edges_unresolved ON edges (snapshot_id) WHERE coverage = 3;

CREATE TABLE implements (
	snapshot_id bigint NOT NULL,
	type text COLLATE "C" NOT NULL,
	iface text COLLATE "C" NOT NULL,
	pointer boolean NOT NULL,
	PRIMARY KEY (snapshot_id, iface, type)
);
CREATE INDEX implements_type ON implements (snapshot_id, type);
