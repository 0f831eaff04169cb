package sqlite

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// internedStrings maps the interned ids of one data set to their strings,
// so a cross-reference query can read a row's ids and name them from
// memory: joining interned for a reference's path and enclosing
// declaration cost two B-tree searches a row, most of find_references'
// time in the store. Like a name table it belongs to one published
// snapshot, whose interned rows never change; about 23k strings
// (0.8 MB of text) for prometheus.
//
// A data set's ids are allocated in runs after the largest id in use (see
// xrefBuffer.insert and amendIDs), so they are mostly dense: they are
// kept in a slice indexed by id less the smallest, and in a map when
// the ids are spread too thinly for that.
type internedStrings struct {
	mu     sync.Mutex
	loaded bool // a failed load leaves it false, for the next call to retry

	base   int64
	dense  []string // dense[id-base], "" for an id of another data set
	sparse map[int64]string
}

// strings returns the interned strings of published snapshot rev of
// repository repo, loading them from data set data through r on first
// use.
func (r *reader) strings(ctx context.Context, repo string, rev, data int64) (*internedStrings, error) {
	s := r.strs.Get(repo, rev)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded {
		return s, nil
	}
	if err := s.load(ctx, r, data); err != nil {
		return nil, fmt.Errorf("loading interned strings: %w", err)
	}
	s.loaded = true
	return s, nil
}

func (s *internedStrings) load(ctx context.Context, r *reader, data int64) error {
	rows, err := r.query(ctx, `SELECT id, value FROM interned WHERE snapshot_id = ?`, data)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ids []int64
	var vals []string
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			return err
		}
		ids = append(ids, id)
		vals = append(vals, v)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	lo, hi := slices.Min(ids), slices.Max(ids)
	if span := hi - lo + 1; span <= 2*int64(len(ids))+1024 {
		s.base, s.dense = lo, make([]string, span)
		for i, id := range ids {
			s.dense[id-lo] = vals[i]
		}
		return nil
	}
	s.sparse = make(map[int64]string, len(ids))
	for i, id := range ids {
		s.sparse[id] = vals[i]
	}
	return nil
}

// get returns the string interned as id, and false when id is outside the
// data set's ids. (Rows refer only to ids of their own data set, so an id
// within its range that belongs to another, which reads as "", does not
// occur.)
func (s *internedStrings) get(id int64) (string, bool) {
	if s.sparse != nil {
		v, ok := s.sparse[id]
		return v, ok
	}
	if i := id - s.base; i >= 0 && i < int64(len(s.dense)) {
		return s.dense[i], true
	}
	return "", false
}
