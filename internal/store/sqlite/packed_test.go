package sqlite

import (
	"database/sql"
	"fmt"
	"math"
	"slices"
	"testing"
)

// dumpPacked decodes the packed rows of snapshot snap into one line per
// reference ("refs") and per call edge ("edges", from calls_by_caller),
// with every id named, and counts the ids that are not strings of the
// snapshot ("dangling", which must be zero).
func dumpPacked(t *testing.T, db *sql.DB, snap int64) map[string][]string {
	t.Helper()
	strs := map[int64]string{}
	rows, err := db.Query(`SELECT id, value FROM interned WHERE snapshot_id = ?`, snap)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		strs[id] = v
	}
	rows.Close()
	dangling := 0
	name := func(id int64) string {
		if id == 0 {
			return "<nil>"
		}
		v, ok := strs[id]
		if !ok {
			dangling++
		}
		return v
	}
	out := map[string][]string{}
	for _, table := range []string{"refs", "calls_by_caller"} {
		key := map[string]string{"refs": "target, path, uses", "calls_by_caller": "caller, path, sites"}[table]
		rows, err := db.Query(`SELECT `+key+` FROM `+table+` WHERE snapshot_id = ?`, snap)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var key, path int64
			var entries []byte
			if err := rows.Scan(&key, &path, &entries); err != nil {
				t.Fatal(err)
			}
			u := unpacker{buf: entries}
			for u.more() {
				if table == "refs" {
					e := u.use()
					out["refs"] = append(out["refs"], fmt.Sprintln(name(key), name(path), e.line, e.col, e.endCol,
						name(e.encl), e.kind, e.test))
				} else {
					e := u.site()
					out["edges"] = append(out["edges"], fmt.Sprintln(name(key), name(e.other), name(e.name), name(path),
						e.line, e.col, e.cov, e.via, e.goStmt, e.deferred))
				}
			}
			if u.err != nil {
				t.Fatalf("%s: %v", table, u.err)
			}
		}
		rows.Close()
	}
	out["dangling"] = []string{fmt.Sprint(dangling)}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// TestPackedRoundTrip packs entries of every shape, extremes included,
// and reads them back.
func TestPackedRoundTrip(t *testing.T) {
	uses := []useEntry{
		{line: 10, col: 5, endCol: 9, encl: 7, kind: 1},
		{line: 10, col: 5, endCol: 9, encl: 7, kind: 1}, // a duplicate
		{line: 3, col: 1, endCol: 1, encl: 0, kind: 6, test: true},
		{line: math.MaxInt32, col: math.MaxInt32, endCol: 0, encl: math.MaxInt64, kind: 255},
		{line: 0, col: 0, endCol: math.MaxInt32, encl: 1},
	}
	var p packer
	for _, u := range uses {
		p.use(u)
	}
	un := unpacker{buf: p.buf}
	var got []useEntry
	for un.more() {
		got = append(got, un.use())
	}
	if un.err != nil || !slices.Equal(got, uses) {
		t.Errorf("uses: %v, %v; want %v", got, un.err, uses)
	}

	sites := []siteEntry{
		{line: 4, col: 2, other: 9, name: 0, cov: 1, via: 1},
		{line: 2, col: 8, other: 0, name: 12, cov: 3, via: 3, goStmt: true},
		{line: 2, col: 8, other: 0, name: 12, cov: 3, via: 3, deferred: true},
		{line: math.MaxInt32, col: math.MaxInt32, other: math.MaxInt64, name: math.MaxInt64, cov: 255, via: 255,
			goStmt: true, deferred: true},
	}
	p.reset()
	for _, s := range sites {
		p.site(s)
	}
	un = unpacker{buf: p.buf}
	var gotSites []siteEntry
	for un.more() {
		gotSites = append(gotSites, un.site())
	}
	if un.err != nil || !slices.Equal(gotSites, sites) {
		t.Errorf("sites: %v, %v; want %v", gotSites, un.err, sites)
	}

	// Cut short anywhere, an entry is an error, never a panic or a
	// silently shorter list, unless the cut falls between entries.
	for cut := 1; cut < len(p.buf); cut++ {
		un := unpacker{buf: p.buf[:cut]}
		n := 0
		for un.more() {
			un.site()
			n++
		}
		if un.err == nil && n >= len(sites) {
			t.Errorf("cut at %d of %d: %d sites decoded without error", cut, len(p.buf), n)
		}
	}
}

// FuzzUnpack decodes arbitrary bytes as packed uses and call sites: a
// damaged database must give errors, not panics, and whatever decodes
// must encode back to the same bytes' meaning.
func FuzzUnpack(f *testing.F) {
	var p packer
	p.use(useEntry{line: 10, col: 5, endCol: 9, encl: 7, kind: 1})
	f.Add(p.buf)
	p.reset()
	p.site(siteEntry{line: 4, col: 2, other: 9, cov: 1, via: 1, goStmt: true})
	f.Add(p.buf)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, sites := range []bool{false, true} {
			un := unpacker{buf: data}
			var again packer
			var decoded []any
			for un.more() {
				if sites {
					s := un.site()
					if un.err == nil {
						again.site(s)
						decoded = append(decoded, s)
					}
				} else {
					u := un.use()
					if un.err == nil {
						again.use(u)
						decoded = append(decoded, u)
					}
				}
			}
			if un.err != nil {
				continue
			}
			// What decoded whole re-encodes to entries that decode the same.
			un2 := unpacker{buf: again.buf}
			for i := 0; un2.more(); i++ {
				var e any
				if sites {
					e = un2.site()
				} else {
					e = un2.use()
				}
				if un2.err != nil || i >= len(decoded) || e != decoded[i] {
					t.Fatalf("entry %d: %v (%v), decoded first as %v", i, e, un2.err, decoded)
				}
			}
		}
	})
}
