package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// References and call sites are stored packed (schema version 7, see
// schemaPacked): one row holds every use of a target in one file, or
// every call site of a caller (or to a callee) in one file, as a list of
// varint-encoded entries. A file's uses of a target share the row's
// target and path, so an entry only carries what differs, and each
// number is a delta from the entry before it where that makes it small:
// lines (uses come in source order), enclosing declarations and
// callees (consecutive uses often sit in the same function, or call the
// same one), all zigzag-encoded so that any order stays valid. An entry
// takes about six bytes, against thirty-one for a row of its own and a
// dozen more for that row's index entry; on prometheus the references go
// from 195k rows to 39k and the call edges from 180k rows, in three
// B-trees, to 8k by caller and 37k by callee.
//
// Entries keep the order they were written in, which decides the order
// of uses at the same position (see compareRefHits).

// errCorrupt is returned when a packed column does not decode: the
// database was damaged or written by something else.
var errCorrupt = errors.New("packed cross-reference column is corrupt")

// useEntry is one use in a packed refs row: the row gives its target and
// path.
type useEntry struct {
	line, col, endCol int32
	encl              int64 // interned id, 0 for none
	kind              uint8
	test              bool
}

// siteEntry is one call site in a packed calls_by_caller or
// calls_by_callee row, whose key is the caller or the callee and whose
// path is the site's file. other is the other end: the callee (0 when
// none was resolved) in a row by caller, the caller in a row by callee.
type siteEntry struct {
	line, col        int32
	other, name      int64 // interned ids; name is the callee's name, 0 for none
	cov, via         uint8
	goStmt, deferred bool
}

// packer appends entries to a packed column.
type packer struct {
	buf        []byte
	line       int64
	ref1, ref2 int64 // the previous entry's interned ids
	n          int
}

func (p *packer) reset() { *p = packer{buf: p.buf[:0]} }

func (p *packer) varint(v int64)   { p.buf = binary.AppendVarint(p.buf, v) }
func (p *packer) uvarint(v uint64) { p.buf = binary.AppendUvarint(p.buf, v) }

// position appends the line and column every entry starts with.
func (p *packer) position(line, col int32) {
	p.varint(int64(line) - p.line)
	p.uvarint(uint64(col))
	p.line = int64(line)
}

// use appends u.
func (p *packer) use(u useEntry) {
	p.position(u.line, u.col)
	p.varint(int64(u.endCol) - int64(u.col))
	p.varint(u.encl - p.ref1)
	flags := uint64(u.kind) << 1
	if u.test {
		flags |= 1
	}
	p.uvarint(flags)
	p.ref1 = u.encl
	p.n++
}

// site appends s.
func (p *packer) site(s siteEntry) {
	p.position(s.line, s.col)
	p.varint(s.other - p.ref1)
	p.varint(s.name - p.ref2)
	p.uvarint(uint64(s.cov))
	flags := uint64(s.via) << 2
	if s.goStmt {
		flags |= 2
	}
	if s.deferred {
		flags |= 1
	}
	p.uvarint(flags)
	p.ref1, p.ref2 = s.other, s.name
	p.n++
}

// unpacker reads the entries of a packed column.
type unpacker struct {
	buf        []byte
	line       int64
	ref1, ref2 int64
	err        error
}

func (u *unpacker) more() bool { return u.err == nil && len(u.buf) > 0 }

// varint reads a zigzag-encoded varint, as binary.AppendVarint writes it.
func (u *unpacker) varint() int64 {
	x := u.uvarint()
	return int64(x>>1) ^ -int64(x&1)
}

func (u *unpacker) uvarint() uint64 {
	v, n := binary.Uvarint(u.buf)
	if n <= 0 {
		u.fail()
		return 0
	}
	u.buf = u.buf[n:]
	return v
}

func (u *unpacker) fail() {
	if u.err == nil {
		u.err = errCorrupt
	}
	u.buf = nil
}

// pos checks that a position read is a non-negative 32-bit integer, as
// AddRefs and AddCallEdges store them.
func (u *unpacker) pos(v int64) int32 {
	if v < 0 || v > math.MaxInt32 {
		u.fail()
		return 0
	}
	return int32(v)
}

// small checks that a code read fits a byte.
func (u *unpacker) small(v uint64) uint8 {
	if v > math.MaxUint8 {
		u.fail()
		return 0
	}
	return uint8(v)
}

// position reads the line and column every entry starts with.
func (u *unpacker) position() (line, col int32) {
	u.line += u.varint()
	return u.pos(u.line), u.pos(int64(min(u.uvarint(), math.MaxInt64)))
}

// use reads the next use; u.err tells whether it was whole.
func (u *unpacker) use() useEntry {
	var e useEntry
	e.line, e.col = u.position()
	e.endCol = u.pos(int64(e.col) + u.varint())
	u.ref1 += u.varint()
	e.encl = u.ref1
	flags := u.uvarint()
	e.kind, e.test = u.small(flags>>1), flags&1 == 1
	return e
}

// site reads the next call site; u.err tells whether it was whole.
func (u *unpacker) site() siteEntry {
	var s siteEntry
	s.line, s.col = u.position()
	u.ref1 += u.varint()
	u.ref2 += u.varint()
	s.other, s.name = u.ref1, u.ref2
	s.cov = u.small(u.uvarint())
	flags := u.uvarint()
	s.via, s.goStmt, s.deferred = u.small(flags>>2), flags&2 != 0, flags&1 != 0
	return s
}

// unresolvedCode is the code of graph.CoverageUnresolved (see
// coverageNames), which rowPacker counts.
const unresolvedCode = 3

// rowPacker packs entries into rows: uses into refs rows, call sites into
// calls_by_caller or calls_by_callee rows. Entries are put in the order of
// their rows, (snapshot, key, [implicit,] path), and within a row in the
// order they were written; add inserts each row once it is complete, as
// the values snapshot, key, path, the entries and, before the entries,
// whether its uses are implicit when flagged (refs since schema version
// 9) and how many of its call sites are unresolved when counted
// (calls_by_caller).
type rowPacker struct {
	add             func(vals ...any) error
	counted         bool
	flagged         bool
	snap, key, path int64
	implicit        bool
	unresolved      int
	p               packer
}

// start makes (snap, key, path, implicit) the row being packed, inserting
// the one before it when it is another.
func (g *rowPacker) start(snap, key, path int64, implicit bool) error {
	if g.p.n > 0 && (snap != g.snap || key != g.key || path != g.path || implicit != g.implicit) {
		if err := g.flush(); err != nil {
			return err
		}
	}
	g.snap, g.key, g.path, g.implicit = snap, key, path, implicit
	return nil
}

// use packs u, a use of target in path, implicit or not (see
// graph.Ref.Implicit; a rowPacker that is not flagged writes plain uses
// only).
func (g *rowPacker) use(snap, target, path int64, implicit bool, u useEntry) error {
	if err := g.start(snap, target, path, implicit); err != nil {
		return err
	}
	g.p.use(u)
	return nil
}

func (g *rowPacker) site(snap, key, path int64, s siteEntry) error {
	if err := g.start(snap, key, path, false); err != nil {
		return err
	}
	if s.cov == unresolvedCode {
		g.unresolved++
	}
	g.p.site(s)
	return nil
}

// flush inserts the row being packed, if any.
func (g *rowPacker) flush() error {
	if g.p.n == 0 {
		return nil
	}
	vals := []any{g.snap, g.key, g.path}
	if g.flagged {
		vals = append(vals, g.implicit)
	}
	if g.counted {
		vals = append(vals, int64(g.unresolved))
	}
	err := g.add(append(vals, slices.Clone(g.p.buf))...)
	g.p.reset()
	g.unresolved = 0
	return err
}

// upgradeToPacked replaces the version 6 tables refs, edges and
// edges_by_callee with the packed tables of schemaPacked, packing the
// rows of every snapshot, so that an upgraded database keeps its
// snapshots and answers as it did.
func upgradeToPacked(ctx context.Context, tx *sql.Tx) error {
	if err := applyAll(ctx, tx, []string{`DROP INDEX refs_target`, `ALTER TABLE refs RENAME TO refs_v6`}); err != nil {
		return fmt.Errorf("setting the old references aside: %w", err)
	}
	if err := applyAll(ctx, tx, schemaPacked); err != nil {
		return fmt.Errorf("creating packed tables: %w", err)
	}
	var snaps []int64
	err := queryEach(ctx, tx, `SELECT DISTINCT snapshot_id FROM refs_v6 UNION SELECT DISTINCT snapshot_id FROM edges`,
		nil, func(rows *sql.Rows) error {
			snaps = append(snaps, 0)
			return rows.Scan(&snaps[len(snaps)-1])
		})
	if err != nil {
		return fmt.Errorf("listing snapshots: %w", err)
	}
	// Each packed table, with the version 6 query that lists its entries
	// in the order of its rows.
	tables := []struct {
		insert, query string
		counted, uses bool
	}{
		{`INSERT INTO refs (snapshot_id, target, path, uses) VALUES (?, ?, ?, ?)`,
			`SELECT target, path, line, col, end_col, coalesce(enclosing, 0), kind, test_only
			FROM refs_v6 WHERE snapshot_id = ? ORDER BY target, path, rowid`, false, true},
		{`INSERT INTO calls_by_caller (snapshot_id, caller, path, unresolved, sites) VALUES (?, ?, ?, ?, ?)`,
			`SELECT caller, path, line, col, coalesce(callee, 0), coalesce(callee_name, 0), coverage, via, is_go, is_defer
			FROM edges WHERE snapshot_id = ? ORDER BY caller, path, id`, true, false},
		{`INSERT INTO calls_by_callee (snapshot_id, callee, path, sites) VALUES (?, ?, ?, ?)`,
			`SELECT callee, path, line, col, caller, coalesce(callee_name, 0), coverage, via, is_go, is_defer
			FROM edges WHERE snapshot_id = ? AND callee IS NOT NULL ORDER BY callee, path, id`, false, false},
	}
	for _, t := range tables {
		st, err := tx.PrepareContext(ctx, t.insert)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, snap := range snaps {
			// A snapshot's entries are read whole and then inserted, so no
			// statement writes while another reads.
			type entry struct {
				key, path int64
				u         useEntry
				s         siteEntry
			}
			var entries []entry
			err := queryEach(ctx, tx, t.query, []any{snap}, func(rows *sql.Rows) error {
				var e entry
				var err error
				if t.uses {
					err = rows.Scan(&e.key, &e.path, &e.u.line, &e.u.col, &e.u.endCol, &e.u.encl, &e.u.kind, &e.u.test)
				} else {
					err = rows.Scan(&e.key, &e.path, &e.s.line, &e.s.col, &e.s.other, &e.s.name, &e.s.cov, &e.s.via,
						&e.s.goStmt, &e.s.deferred)
				}
				entries = append(entries, e)
				return err
			})
			if err != nil {
				return fmt.Errorf("reading snapshot %d: %w", snap, err)
			}
			g := rowPacker{counted: t.counted, add: func(vals ...any) error {
				_, err := st.ExecContext(ctx, vals...)
				return err
			}}
			for _, e := range entries {
				if t.uses {
					err = g.use(snap, e.key, e.path, false, e.u)
				} else {
					err = g.site(snap, e.key, e.path, e.s)
				}
				if err != nil {
					break
				}
			}
			if err == nil {
				err = g.flush()
			}
			if err != nil {
				return fmt.Errorf("packing snapshot %d: %w", snap, err)
			}
		}
	}
	if err := applyAll(ctx, tx, []string{`DROP TABLE refs_v6`, `DROP TABLE edges_by_callee`, `DROP TABLE edges`}); err != nil {
		return fmt.Errorf("dropping the old tables: %w", err)
	}
	return nil
}

// queryEach runs q with args and calls f for each row.
func queryEach(ctx context.Context, tx *sql.Tx, q string, args []any, f func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
