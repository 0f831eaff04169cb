package textindex

import (
	"context"
	"maps"
	"slices"
)

// An amended snapshot (see graph.Amender) differs from its base in a few
// files' rows: an amend removes the rows of the files it re-derives and
// adds theirs anew under fresh ids. Reading every row again on the
// amended snapshot's first search cost as much as its first search ever
// did (on prometheus 100 ms), so a store that amends in this process
// tells the Cache which rows went and which came (Amended), and the index
// of the amended snapshot is the base's, those rows taken out, the new
// ones read and put in.

// delta is what an amend changed: the ids of the rows it removed from
// base, and the range of ids, [lo, hi), of the rows it may have added.
type delta struct {
	base, rev int64
	removed   []int64
	lo, hi    int64
}

// maxDeltas bounds the amends kept per repository: a chain longer than
// that is read whole.
const maxDeltas = 64

// Amended records that snapshot rev of repo is snapshot base amended:
// the rows of ids removed went, and rows with ids from lo to hi
// (exclusive) may have come; a later removal of one of them is recorded
// by a later amend.
func (c *Cache) Amended(repo string, base, rev int64, removed []int64, lo, hi int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deltas == nil {
		c.deltas = map[string][]delta{}
	}
	ds := append(c.deltas[repo], delta{base: base, rev: rev, removed: slices.Clone(removed), lo: lo, hi: hi})
	if len(ds) > maxDeltas {
		ds = slices.Delete(ds, 0, len(ds)-maxDeltas)
	}
	c.deltas[repo] = ds
}

// chain returns the newest index held of a snapshot that rev of repo
// amends (through one amend or several), with the ids removed and the
// id ranges added since; nil when none is held.
func (c *Cache) chain(repo string, rev int64) (*Index, map[int64]bool, [][2]int64) {
	c.mu.Lock()
	ds := slices.Clone(c.deltas[repo])
	c.mu.Unlock()
	removed := map[int64]bool{}
	var added [][2]int64
	for at := rev; ; {
		i := slices.IndexFunc(ds, func(d delta) bool { return d.rev == at })
		if i < 0 {
			return nil, nil, nil
		}
		d := ds[i]
		for _, id := range d.removed {
			removed[id] = true
		}
		added = append(added, [2]int64{d.lo, d.hi})
		if e := c.indexes.Peek(d.base); e != nil && e.ready.Load() {
			return e.ix, removed, added
		}
		at = d.base
	}
}

// amend returns the index of ix's snapshot with the rows whose ids are
// in removed taken out and the rows of added put in, as Index would
// have made it from all of them.
func (ix *Index) amend(removed map[int64]bool, added []Row) *Index {
	bd := &Builder{terms: maps.Clone(ix.terms), stems: map[string]int32{},
		df: make([]int32, len(ix.post)), freq: make([]uint32, len(ix.post))}
	for _, r := range added {
		bd.Add(r)
	}
	bd.sortDocs()
	// The rows in order: the base's that stay and the new ones, merged.
	oldRow := make([]int32, len(ix.ids)) // base row → new row, -1 gone
	newRow := make([]uint32, len(bd.docs))
	kept := 0
	for r, id := range ix.ids {
		if removed[id] {
			oldRow[r] = -1
		} else {
			kept++
		}
	}
	nx := newIndex(kept+len(bd.docs), bd.terms, len(bd.df))
	row := uint32(0)
	j := 0
	for r := range ix.ids {
		if oldRow[r] < 0 {
			continue
		}
		for ; j < len(bd.docs) && compareRows(bd.docs[j].path, bd.docs[j].line, bd.docs[j].id, ix.paths[r], int(ix.lines[r]), ix.ids[r]) < 0; j++ {
			newRow[j] = row
			nx.setRow(row, bd.docs[j])
			row++
		}
		oldRow[r] = int32(row)
		nx.setRow(row, doc{id: ix.ids[r], kind: ix.kinds[r], path: ix.paths[r], line: int(ix.lines[r]), length: ix.length[r]})
		row++
	}
	for ; j < len(bd.docs); j++ {
		newRow[j] = row
		nx.setRow(row, bd.docs[j])
		row++
	}
	// Each term's postings: the base's remapped, merged with the new
	// rows', both in row order.
	fresh := make([][]posting, len(bd.df))
	for j, d := range bd.docs {
		for _, p := range bd.pairs[d.start:d.end] {
			fresh[p.term] = append(fresh[p.term], posting{row: newRow[j], freq: p.freq})
		}
	}
	for t := range nx.post {
		var base []posting
		if t < len(ix.post) {
			base = ix.post[t]
		}
		out := make([]posting, 0, len(base)+len(fresh[t]))
		f := fresh[t]
		for _, p := range base {
			r := oldRow[p.row]
			if r < 0 {
				continue
			}
			for len(f) > 0 && f[0].row < uint32(r) {
				out, f = append(out, f[0]), f[1:]
			}
			out = append(out, posting{row: uint32(r), freq: p.freq})
		}
		nx.post[t] = append(out, f...)
	}
	return nx
}

// readAdded reads the rows of the id ranges through load, each row
// once (an amend's range may reach into an earlier one's, where a later
// amend removed the rows at its top).
func readAdded(ctx context.Context, load func(ctx context.Context, lo, hi int64, add func(Row)) error, ranges [][2]int64) ([]Row, error) {
	var rows []Row
	seen := map[int64]bool{}
	for _, r := range ranges {
		err := load(ctx, r[0], r[1], func(row Row) {
			if !seen[row.ID] {
				seen[row.ID] = true
				rows = append(rows, row)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}
