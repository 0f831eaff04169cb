package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// SchemaVersion is the version of the database layout this package writes.
// It is stored in the meta table; Open refuses a database whose version is
// newer, because an older build cannot know what a newer one changed.
//
// Version 2 added cross-references (interned, refs, edges, implements).
// Version 3 was two versions on two development branches: effect rows
// (schemaEffects, see effects.go) on one, the full-text search index
// (schemaSearch) on the other. Version 4 has both. Version 5 added
// amended snapshots (schemaAmend, see amend.go). Version 6 finds call
// edges by callee through a table of its own (schemaCallees). Version 7
// packs references and call sites, a row per target or caller or callee
// and file (schemaPacked, see packed.go). Version 8 records the stage of
// a snapshot published early (schemaStage). Version 9 marks implicit
// references in a column of their own rather than in their target
// (schemaImplicit). Version 10 records the
// language of a symbol (schemaLanguage). Version 11 records what made a
// snapshot: its build configuration and indexers (schemaProvenance).
// Version 12 adds the per-test coverage `sextant tests record` writes
// (schemaTestRuns, see testrun.go). Version 13 records the format of a
// snapshot's records (schemaFormat). Version 14 keeps the search rows in
// a plain table (schemaWords).
const SchemaVersion = 14

// ErrNewerSchema is returned (wrapped) by Open when the database was written
// by a newer Sextant whose schema this build does not understand.
var ErrNewerSchema = errors.New("database schema is newer than this build supports")

// schemaV6 creates every table and index of schema version 6: the
// version 1 layout followed by what versions 2 to 6 added. A new database
// gets it and then the version 7 upgrade (upgradeToPacked), which on
// empty tables only swaps them.
var schemaV6 = slices.Concat(schemaV1, schemaV2, schemaEffects, schemaSearch, schemaAmend, schemaCallees)

// schemaStage records which snapshots an index published early, from
// syntax alone (graph.Snapshot.Stage; ” for a complete one).
var schemaStage = []string{
	`ALTER TABLE snapshots ADD COLUMN stage TEXT NOT NULL DEFAULT ''`,
}

// implicitSuffix ended the target of an implicit reference before schema
// version 9 (the key, then this): upgradeToImplicit finds such targets
// by it.
const implicitSuffix = "~implicit"

// schemaImplicit (schema version 9) gives refs the column implicit, 1
// for the uses of a method declared outside the graph recorded against a
// method of the graph (graph.Ref.Implicit), whose target is then a stable
// key like any other. A row holds plain or implicit uses, not both.
// Before, such a use was stored under the target key + implicitSuffix;
// the upgrade moves those rows to the key itself, interning it where the
// snapshot did not have it, so an upgraded database keeps its snapshots
// and answers as it did.
var schemaImplicit = []string{
	`ALTER TABLE refs ADD COLUMN implicit INTEGER NOT NULL DEFAULT 0`,
	`INSERT OR IGNORE INTO interned (snapshot_id, value)
		SELECT snapshot_id, substr(value, 1, length(value) - ` + suffixLen + `) FROM interned
		WHERE value GLOB '*` + implicitSuffix + `'`,
	`UPDATE refs SET implicit = 1, target = (
		SELECT b.id FROM interned a
		JOIN interned b ON b.snapshot_id = a.snapshot_id AND b.value = substr(a.value, 1, length(a.value) - ` + suffixLen + `)
		WHERE a.id = refs.target)
		WHERE target IN (SELECT id FROM interned WHERE value GLOB '*` + implicitSuffix + `')`,
	`DELETE FROM interned WHERE value GLOB '*` + implicitSuffix + `'`,
}

// suffixLen is the length of implicitSuffix, as SQL spells it.
var suffixLen = strconv.Itoa(len(implicitSuffix))

// schemaLanguage records the language of each symbol (graph.Symbol.
// Language): empty for the Go symbols of older snapshots, which read back as
// they were written.
var schemaLanguage = []string{
	`ALTER TABLE symbols ADD COLUMN language TEXT NOT NULL DEFAULT ''`,
}

// schemaProvenance records what made a snapshot (graph.Snapshot.Build and
// Indexers, one per line): empty in the snapshots of an older version.
var schemaProvenance = []string{
	`ALTER TABLE snapshots ADD COLUMN build TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE snapshots ADD COLUMN indexers TEXT NOT NULL DEFAULT ''`,
}

// schemaFormat records the format of a snapshot's records
// (graph.Snapshot.Format): 0 in the snapshots of an older version.
var schemaFormat = []string{
	`ALTER TABLE snapshots ADD COLUMN format INTEGER NOT NULL DEFAULT 0`,
}

// schemaWords (schema version 14) makes the search rows of version 3 a
// plain table: search_code ranks them in memory (internal/store/
// textindex), so FTS5's index of them, which every published symbol paid
// for and nothing reads, goes. The rows keep their ids (the symbols').
var schemaWords = []string{
	`CREATE TABLE symbol_words (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL, doc TEXT NOT NULL, signature TEXT NOT NULL, body TEXT NOT NULL, path TEXT NOT NULL
	)`,
	`INSERT INTO symbol_words (id, name, doc, signature, body, path)
		SELECT rowid, name, doc, signature, body, path FROM symbol_text`,
	`DROP TABLE symbol_text`,
	`ALTER TABLE symbol_words RENAME TO symbol_text`,
}

// schemaPacked creates the tables of packed references and call sites
// (schema version 7, see packed.go), which replace refs, edges and
// edges_by_callee. Each row holds the entries of one key (target, caller
// or callee) in one file (path, which an amend deletes by):
//   - refs: the uses of target in path;
//   - calls_by_caller: the call sites of caller in path, with how many of
//     them are unresolved, which the partial index calls_unresolved sums
//     for get_callers' verdict;
//   - calls_by_callee: the same sites again, those with a callee, by
//     callee: reading them for callers then costs one index search per
//     callee and no join, as edges_by_callee did per edge.
//
// The writer inserts a flush's rows in key order, so the rows of a key
// are mostly neighbours in the table too. A key may have more than one
// row for the same path (its entries arrived in two flushes); readers
// concatenate them in rowid order, which is the order they were written.
var schemaPacked = []string{
	`CREATE TABLE refs (
		snapshot_id INTEGER NOT NULL,
		target INTEGER NOT NULL,
		path INTEGER NOT NULL,
		uses BLOB NOT NULL
	)`,
	`CREATE INDEX refs_target ON refs (snapshot_id, target)`,
	`CREATE TABLE calls_by_caller (
		snapshot_id INTEGER NOT NULL,
		caller INTEGER NOT NULL,
		path INTEGER NOT NULL,
		unresolved INTEGER NOT NULL,
		sites BLOB NOT NULL
	)`,
	`CREATE INDEX calls_caller ON calls_by_caller (snapshot_id, caller)`,
	`CREATE INDEX calls_unresolved ON calls_by_caller (snapshot_id, unresolved) WHERE unresolved > 0`,
	`CREATE TABLE calls_by_callee (
		snapshot_id INTEGER NOT NULL,
		callee INTEGER NOT NULL,
		path INTEGER NOT NULL,
		sites BLOB NOT NULL
	)`,
	`CREATE INDEX calls_callee ON calls_by_callee (snapshot_id, callee)`,
}

// schemaCallees (schema version 6) replaces the index edges_callee with
// the table edges_by_callee, which the writer fills in one sorted pass.
//
// Call edges are written in the order of their caller (see xrefBuffer),
// so the entries of an index on the caller are appended at its end, but
// those of an index on the callee landed at random places: on
// prometheus (180k edges) maintaining edges_callee took most of the two
// seconds that inserting the edges cost, at the end of indexing when
// nothing else is left to do. edges_by_callee holds the same entries
// (snapshot, callee, edge id) and is filled after the edges by one
// INSERT ... SELECT ordered by callee, which appends. edges gains an
// INTEGER PRIMARY KEY so that the ids it refers to are stable (a plain
// rowid may change on VACUUM). The upgrade rebuilds edges with the same
// rows and ids and fills the new table, so a version 5 database keeps
// its snapshots.
var schemaCallees = []string{
	`CREATE TABLE edges_v6 (id INTEGER PRIMARY KEY, ` + edgeColumns + `)`,
	`INSERT INTO edges_v6 (id, snapshot_id, caller, callee, callee_name, path, line, col, coverage, via, is_go, is_defer)
		SELECT rowid, snapshot_id, caller, callee, callee_name, path, line, col, coverage, via, is_go, is_defer
		FROM edges ORDER BY rowid`,
	`DROP TABLE edges`,
	`ALTER TABLE edges_v6 RENAME TO edges`,
	`CREATE INDEX edges_caller ON edges (snapshot_id, caller)`,
	`CREATE INDEX edges_unresolved ON edges (snapshot_id) WHERE coverage = 3`,
	`CREATE TABLE edges_by_callee (
		snapshot_id INTEGER NOT NULL,
		callee INTEGER NOT NULL,
		edge INTEGER NOT NULL,
		PRIMARY KEY (snapshot_id, callee, edge)
	) WITHOUT ROWID`,
	`INSERT INTO edges_by_callee (snapshot_id, callee, edge)
		SELECT snapshot_id, callee, id FROM edges WHERE callee IS NOT NULL ORDER BY snapshot_id, callee, id`,
}

// schemaAmend adds what amended snapshots need (schema version 5):
//   - repositories.current_revision is the snapshot an amend published
//     (NULL when it is current_snapshot itself). current_snapshot stays the
//     id the rows are keyed by, which an amend changes in place, so every
//     row query joins it as before; only the snapshot a reader reports and
//     caches by is the revision.
//   - snapshots.amended lists, one per line, the package directories an
//     amend re-derived (empty for a whole index).
//   - packages.api is the hash of what the package declares
//     (graph.Package.API), which decides whether an edit can be amended;
//   - symbols_unit finds the symbols of a file, which an amend replaces
//     and whose declarations it resolves references against.
//
// The columns are added to the version 1 tables, so a version 4 database
// upgrades in place and keeps its snapshots.
var schemaAmend = []string{
	`ALTER TABLE repositories ADD COLUMN current_revision INTEGER`,
	`ALTER TABLE snapshots ADD COLUMN amended TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE packages ADD COLUMN api TEXT NOT NULL DEFAULT ''`,
	`CREATE INDEX symbols_unit ON symbols (unit_id)`,
}

// schemaV1 creates the tables and indexes of schema version 1.
//
// Everything a snapshot holds is keyed by snapshot_id, so publishing is one
// UPDATE of repositories.current_snapshot and collecting a snapshot is a
// DELETE per table. Symbols are the bulk of the data (about 150k rows for
// golang.org/x/tools), so their rows are kept compact:
//   - package path, package name, module path and file path, which repeat
//     for every symbol of a file, live once in units and are referenced by id;
//   - kind is a small integer (see kindCodes);
//   - qname holds the qualified name only when it differs from name (methods
//     and fields), so package-level symbols do not store their name twice and
//     the qualified-name index covers only dotted names;
//   - parent is NULL rather than "" when there is none, so its partial index
//     holds only methods and fields.
//
// lname (the name lower-cased by Go's strings.ToLower) serves get_symbol's
// lookups of a plain name by index (they check name too, so no separate
// index on name is needed). find_symbol's searches, of every mode, scan
// the name table kept in memory per snapshot (names.go), which reads lname
// rather than lower-casing every name again.
var schemaV1 = []string{
	`CREATE TABLE meta (
		key TEXT PRIMARY KEY,
		value TEXT NOT NULL
	) WITHOUT ROWID`,
	`CREATE TABLE repositories (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		root TEXT NOT NULL UNIQUE,
		vcs_head TEXT NOT NULL DEFAULT '',
		current_snapshot INTEGER
	)`,
	`CREATE TABLE snapshots (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		repo_id INTEGER NOT NULL,
		created_at INTEGER NOT NULL,
		vcs_head TEXT NOT NULL DEFAULT '',
		packages INTEGER NOT NULL DEFAULT 0,
		files INTEGER NOT NULL DEFAULT 0,
		symbols INTEGER NOT NULL DEFAULT 0,
		diagnostics INTEGER NOT NULL DEFAULT 0
	)`,
	`CREATE INDEX snapshots_repo ON snapshots (repo_id)`,
	`CREATE TABLE modules (
		snapshot_id INTEGER NOT NULL,
		path TEXT NOT NULL,
		dir TEXT NOT NULL,
		go_version TEXT NOT NULL
	)`,
	`CREATE INDEX modules_snapshot ON modules (snapshot_id)`,
	`CREATE TABLE packages (
		snapshot_id INTEGER NOT NULL,
		path TEXT NOT NULL,
		name TEXT NOT NULL,
		module_path TEXT NOT NULL,
		dir TEXT NOT NULL,
		hash TEXT NOT NULL,
		test_only INTEGER NOT NULL,
		errors INTEGER NOT NULL
	)`,
	`CREATE INDEX packages_path ON packages (snapshot_id, path)`,
	`CREATE TABLE files (
		snapshot_id INTEGER NOT NULL,
		path TEXT NOT NULL,
		package TEXT NOT NULL,
		hash TEXT NOT NULL,
		size INTEGER NOT NULL,
		mod_time_ns INTEGER NOT NULL,
		test INTEGER NOT NULL,
		ignored INTEGER NOT NULL,
		PRIMARY KEY (snapshot_id, path)
	) WITHOUT ROWID`,
	`CREATE TABLE units (
		id INTEGER PRIMARY KEY,
		snapshot_id INTEGER NOT NULL,
		package_path TEXT NOT NULL,
		package_name TEXT NOT NULL,
		module_path TEXT NOT NULL,
		path TEXT NOT NULL
	)`,
	`CREATE INDEX units_snapshot ON units (snapshot_id)`,
	`CREATE TABLE symbols (
		id INTEGER PRIMARY KEY,
		snapshot_id INTEGER NOT NULL,
		unit_id INTEGER NOT NULL,
		name TEXT NOT NULL,
		lname TEXT NOT NULL,
		qname TEXT,
		kind INTEGER NOT NULL,
		exported INTEGER NOT NULL,
		test_only INTEGER NOT NULL,
		start_line INTEGER NOT NULL,
		start_col INTEGER NOT NULL,
		end_line INTEGER NOT NULL,
		end_col INTEGER NOT NULL,
		key TEXT NOT NULL,
		parent TEXT,
		receiver TEXT NOT NULL,
		signature TEXT NOT NULL,
		doc TEXT NOT NULL
	)`,
	`CREATE INDEX symbols_key ON symbols (snapshot_id, key)`,
	`CREATE INDEX symbols_lname ON symbols (snapshot_id, lname)`,
	`CREATE INDEX symbols_qname ON symbols (snapshot_id, qname) WHERE qname IS NOT NULL`,
	`CREATE INDEX symbols_parent ON symbols (snapshot_id, parent) WHERE parent IS NOT NULL`,
	`CREATE TABLE diagnostics (
		snapshot_id INTEGER NOT NULL,
		package TEXT NOT NULL,
		path TEXT NOT NULL,
		line INTEGER NOT NULL,
		col INTEGER NOT NULL,
		kind TEXT NOT NULL,
		message TEXT NOT NULL
	)`,
	`CREATE INDEX diagnostics_snapshot ON diagnostics (snapshot_id)`,
}

// edgeColumns are the columns of edges since version 2 (version 6 adds
// an id before them: see schemaCallees).
const edgeColumns = `snapshot_id INTEGER NOT NULL, caller INTEGER NOT NULL, callee INTEGER,
	callee_name INTEGER, path INTEGER NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
	coverage INTEGER NOT NULL, via INTEGER NOT NULL, is_go INTEGER NOT NULL, is_defer INTEGER NOT NULL`

// schemaV2 creates the cross-reference tables that version 2 added.
//
// References and call edges are the largest tables (about 300k and 100k
// rows for golang.org/x/tools) and consist mostly of stable keys and file
// paths, which repeat: a key is used hundreds of times, a path by every
// reference in its file. So every such string is stored once per snapshot
// in interned and referenced by its integer id, which costs 2 to 4 bytes
// in a row instead of 33 and more, keeps the indexes on refs and edges
// small, and makes their lookups integer comparisons. A reference or edge
// row then takes about 31 bytes on disk and its index entry 12 to 16
// (measured by TestLargeSnapshot). Kind, coverage and via are small integers (see
// refKindNames, coverageNames and viaNames); the booleans cost no bytes
// at all in SQLite's record format for 0 and 1.
//
// Readers turn keys into ids with the (snapshot_id, value) index of
// interned, then search refs, edges and implements by their (snapshot_id,
// id) indexes. Optional strings (enclosing, callee, callee_name) are NULL
// when empty. Unresolved call sites are counted with a partial index that
// holds only them.
var schemaV2 = []string{
	`CREATE TABLE interned (
		id INTEGER PRIMARY KEY,
		snapshot_id INTEGER NOT NULL,
		value TEXT NOT NULL
	)`,
	`CREATE UNIQUE INDEX interned_value ON interned (snapshot_id, value)`,
	`CREATE TABLE refs (
		snapshot_id INTEGER NOT NULL,
		target INTEGER NOT NULL,
		path INTEGER NOT NULL,
		line INTEGER NOT NULL,
		col INTEGER NOT NULL,
		end_col INTEGER NOT NULL,
		enclosing INTEGER,
		kind INTEGER NOT NULL,
		test_only INTEGER NOT NULL
	)`,
	`CREATE INDEX refs_target ON refs (snapshot_id, target)`,
	`CREATE TABLE edges (` + edgeColumns + `)`,
	`CREATE INDEX edges_caller ON edges (snapshot_id, caller)`,
	`CREATE INDEX edges_callee ON edges (snapshot_id, callee) WHERE callee IS NOT NULL`,
	`CREATE INDEX edges_unresolved ON edges (snapshot_id) WHERE coverage = 3`,
	`CREATE TABLE implements (
		snapshot_id INTEGER NOT NULL,
		type INTEGER NOT NULL,
		iface INTEGER NOT NULL,
		pointer INTEGER NOT NULL
	)`,
	`CREATE UNIQUE INDEX implements_iface ON implements (snapshot_id, iface, type)`,
	`CREATE INDEX implements_type ON implements (snapshot_id, type)`,
}

// schemaSearch creates the search rows of search_code (schema version
// 3): one row per symbol whose rowid is the symbol's row id, so a
// snapshot's rows are found through symbols. Columns, in the order of
// textindex.Weights: the qualified name and name split into words (see
// graph.SearchWords), the doc comment, the signature, Symbol.Text (string
// literals and comments of the body) and the file and package paths as
// words (sqlbase.SearchColumns). SearchText ranks them in memory
// (textindex), whose terms are those the porter tokenizer gives.
var schemaSearch = []string{
	`CREATE VIRTUAL TABLE symbol_text USING fts5(
		name, doc, signature, body, path,
		tokenize = 'porter unicode61'
	)`,
}

// upgradeToSearch adds the version 3 search index to a version 2
// database. Its snapshots have no search rows, and search_code would find
// nothing in them, so like upgradeFromV1 it drops every snapshot; the next
// call re-indexes.
func upgradeToSearch(ctx context.Context, tx *sql.Tx) error {
	for _, table := range snapshotTables {
		if table == "symbol_text" {
			continue
		}
		if ok, err := hasTable(ctx, tx, table); err != nil {
			return err
		} else if !ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table); err != nil {
			return fmt.Errorf("emptying %s: %w", table, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots`); err != nil {
		return fmt.Errorf("emptying snapshots: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE repositories SET current_snapshot = NULL, vcs_head = ''`); err != nil {
		return fmt.Errorf("resetting repositories: %w", err)
	}
	if ok, err := hasTable(ctx, tx, "symbol_text"); err != nil {
		return err
	} else if ok {
		_, err := tx.ExecContext(ctx, `DELETE FROM symbol_text`)
		return err
	}
	for _, stmt := range schemaSearch {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("creating the search index: %w", err)
		}
	}
	return nil
}

// upgradeAndCommit brings a version 6 layout to SchemaVersion and commits.
func upgradeAndCommit(ctx context.Context, tx *sql.Tx) error {
	if err := upgradeToPacked(ctx, tx); err != nil {
		return fmt.Errorf("upgrading schema to packed references: %w", err)
	}
	if err := applyAll(ctx, tx, slices.Concat(schemaStage, schemaImplicit, schemaLanguage, schemaProvenance, schemaTestRuns, schemaFormat, schemaWords)); err != nil {
		return fmt.Errorf("upgrading schema to staged snapshots: %w", err)
	}
	return commitUpgrade(ctx, tx)
}

// commitUpgrade records SchemaVersion and commits the upgrade.
func commitUpgrade(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'schema_version'`,
		strconv.Itoa(SchemaVersion)); err != nil {
		return fmt.Errorf("recording schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing schema upgrade: %w", err)
	}
	return nil
}

// applyAll executes stmts in order.
func applyAll(ctx context.Context, tx *sql.Tx, stmts []string) error {
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// hasTable reports whether the database has a table called name.
func hasTable(ctx context.Context, q queryer, name string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("looking for table %s: %w", name, err)
	}
	return n > 0, nil
}

// snapshotTables are the tables whose rows belong to one snapshot, in the
// order garbage collection empties them.
var snapshotTables = []string{"effects", "refs", "calls_by_caller", "calls_by_callee", "implements", "interned",
	"symbols", "units", "files", "packages", "modules", "diagnostics"}

// upgradeFromV1 brings a version 1 database to version 2. Version 1
// snapshots have no cross-references, and serving them would answer "no
// references" and "no callers" where there are some, so the upgrade drops
// every snapshot (the store is a cache; the next call re-indexes) and
// keeps only the repositories, so their names stay the ones already chosen.
func upgradeFromV1(ctx context.Context, tx *sql.Tx) error {
	for _, table := range []string{"symbols", "units", "files", "packages", "modules", "diagnostics", "snapshots"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table); err != nil {
			return fmt.Errorf("emptying %s: %w", table, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE repositories SET current_snapshot = NULL, vcs_head = ''`); err != nil {
		return fmt.Errorf("resetting repositories: %w", err)
	}
	for _, stmt := range schemaV2 {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("creating version 2 tables: %w", err)
		}
	}
	return nil
}

// migrate brings the database at db to SchemaVersion. A database that
// already has it costs one read and takes no write lock, so opening a store
// while another process indexes does not wait for it.
func migrate(ctx context.Context, db *sql.DB) error {
	v, err := schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return fmt.Errorf("schema version %d, this build supports %d; upgrade sextant or use another database: %w",
			v, SchemaVersion, ErrNewerSchema)
	}

	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: see writeParams
	if err != nil {
		return fmt.Errorf("beginning schema transaction: %w", err)
	}
	defer tx.Rollback()
	// Another process may have created the schema while we waited.
	v, err = schemaVersion(ctx, tx)
	if err != nil {
		return err
	}
	switch {
	case v == SchemaVersion:
		return nil
	case v > SchemaVersion:
		return fmt.Errorf("schema version %d, this build supports %d: %w", v, SchemaVersion, ErrNewerSchema)
	case v == 13:
		if err := applyAll(ctx, tx, schemaWords); err != nil {
			return fmt.Errorf("upgrading schema to plain search rows: %w", err)
		}
		return commitUpgrade(ctx, tx)
	case v == 12:
		if err := applyAll(ctx, tx, slices.Concat(schemaFormat, schemaWords)); err != nil {
			return fmt.Errorf("upgrading schema to snapshot formats: %w", err)
		}
		return commitUpgrade(ctx, tx)
	case v == 11:
		if err := applyAll(ctx, tx, slices.Concat(schemaTestRuns, schemaFormat, schemaWords)); err != nil {
			return fmt.Errorf("upgrading schema to test recordings: %w", err)
		}
		return commitUpgrade(ctx, tx)
	case v == 10:
		if err := applyAll(ctx, tx, slices.Concat(schemaProvenance, schemaTestRuns, schemaFormat, schemaWords)); err != nil {
			return fmt.Errorf("upgrading schema to snapshot provenance: %w", err)
		}
		return commitUpgrade(ctx, tx)
	case v == 9:
		if err := applyAll(ctx, tx, slices.Concat(schemaLanguage, schemaProvenance, schemaTestRuns, schemaFormat, schemaWords)); err != nil {
			return fmt.Errorf("upgrading schema to symbol languages: %w", err)
		}
		return commitUpgrade(ctx, tx)
	case v == 8:
		if err := applyAll(ctx, tx, slices.Concat(schemaImplicit, schemaLanguage, schemaProvenance, schemaTestRuns, schemaFormat, schemaWords)); err != nil {
			return fmt.Errorf("upgrading schema to implicit references: %w", err)
		}
		return commitUpgrade(ctx, tx)
	case v == 7:
		if err := applyAll(ctx, tx, slices.Concat(schemaStage, schemaImplicit, schemaLanguage, schemaProvenance, schemaTestRuns, schemaFormat, schemaWords)); err != nil {
			return fmt.Errorf("upgrading schema to staged snapshots: %w", err)
		}
		return commitUpgrade(ctx, tx)
	case v == 6:
		return upgradeAndCommit(ctx, tx)
	case v == 5:
		if err := applyAll(ctx, tx, schemaCallees); err != nil {
			return fmt.Errorf("upgrading schema to the callee table: %w", err)
		}
		return upgradeAndCommit(ctx, tx)
	case v == 4:
		if err := applyAll(ctx, tx, slices.Concat(schemaAmend, schemaCallees)); err != nil {
			return fmt.Errorf("upgrading schema to amended snapshots: %w", err)
		}
		return upgradeAndCommit(ctx, tx)
	case v >= 1 && v <= 3:
		if v == 1 {
			if err := upgradeFromV1(ctx, tx); err != nil {
				return fmt.Errorf("upgrading schema from version 1: %w", err)
			}
		}
		// A version 3 database has one of the two tables; each upgrade
		// below drops every snapshot and adds its table when missing.
		if err := upgradeEffects(ctx, tx); err != nil {
			return fmt.Errorf("upgrading schema to effect rows: %w", err)
		}
		if err := upgradeToSearch(ctx, tx); err != nil {
			return fmt.Errorf("upgrading schema to the search index: %w", err)
		}
		if err := applyAll(ctx, tx, slices.Concat(schemaAmend, schemaCallees)); err != nil {
			return fmt.Errorf("upgrading schema to amended snapshots: %w", err)
		}
		return upgradeAndCommit(ctx, tx)
	case v > 0:
		return fmt.Errorf("schema version %d has no upgrade path to %d", v, SchemaVersion)
	}
	var tables int
	if err := tx.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`).Scan(&tables); err != nil {
		return fmt.Errorf("listing tables: %w", err)
	}
	if tables > 0 {
		return errors.New("database has tables but no sextant meta table; it is not a sextant database")
	}
	for _, stmt := range schemaV6 {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("creating schema: %w", err)
		}
	}
	if err := upgradeToPacked(ctx, tx); err != nil {
		return fmt.Errorf("creating schema: %w", err)
	}
	if err := applyAll(ctx, tx, slices.Concat(schemaStage, schemaImplicit, schemaLanguage, schemaProvenance, schemaTestRuns, schemaFormat, schemaWords)); err != nil {
		return fmt.Errorf("creating schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('schema_version', ?)`,
		strconv.Itoa(SchemaVersion)); err != nil {
		return fmt.Errorf("recording schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing schema: %w", err)
	}
	return nil
}

// queryer is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// schemaVersion returns the schema version recorded in the database, or 0
// when it has no meta table.
func schemaVersion(ctx context.Context, q queryer) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("reading schema: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	var s string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, errors.New("meta table has no schema_version")
	}
	if err != nil {
		return 0, fmt.Errorf("reading schema version: %w", err)
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("invalid schema version %q", s)
	}
	return v, nil
}
