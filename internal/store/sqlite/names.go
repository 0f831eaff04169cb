package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// names caches, per snapshot, the columns that name matching and ranking
// read, so fuzzy, substring and prefix searches scan memory instead of
// every symbol row. A snapshot never changes once published, so an entry
// is valid for as long as the snapshot exists; entries of snapshots that
// are no longer current are dropped when a newer one is seen.
type names struct {
	mu     sync.Mutex
	tables map[int64]*nameTable // snapshot id → table
	latest map[string]int64     // repository → snapshot id of its cached table
}

type nameTable struct {
	once    sync.Once
	err     error
	entries []nameEntry
	ready   atomic.Bool // entries are loaded (see names.loaded)

	humpsOnce sync.Once
	humps     []entryHumps // parallel to entries, built on the first fuzzy search

	keysOnce sync.Once
	byKey    map[string]*nameEntry // built on the first lookup by key

	strs internedStrings // the data set's interned strings, loaded on first use (see strings)
}

// entry returns the entry of the symbol with stable key key, or nil.
func (t *nameTable) entry(key string) *nameEntry {
	t.keysOnce.Do(func() {
		t.byKey = make(map[string]*nameEntry, len(t.entries))
		for i := range t.entries {
			t.byKey[t.entries[i].key] = &t.entries[i]
		}
	})
	return t.byKey[key]
}

// entryHumps are a name's humps, lower-cased, as fuzzyMatcher.match splits
// it both ways (acronym is nil when it splits the same as plain).
type entryHumps struct {
	plain, acronym [][]rune
}

// fuzzyHumps returns the humps of every entry, splitting them once per
// snapshot rather than on every fuzzy search.
func (t *nameTable) fuzzyHumps() []entryHumps {
	t.humpsOnce.Do(func() {
		t.humps = make([]entryHumps, len(t.entries))
		for i := range t.entries {
			name := t.entries[i].name
			h := entryHumps{plain: lowerRunes(splitHumps(name, false))}
			if acr := lowerRunes(splitHumps(name, true)); !sameHumps(h.plain, acr) {
				h.acronym = acr
			}
			t.humps[i] = h
		}
	})
	return t.humps
}

func sameHumps(a, b [][]rune) bool {
	return slices.EqualFunc(a, b, func(x, y []rune) bool { return slices.Equal(x, y) })
}

// nameEntry is one symbol as name search sees it, with what a brief
// answer shows (see graph.SymbolQuery.Brief). Strings are shared with the
// row values SQLite returned; the kind is its stored code.
type nameEntry struct {
	id               int64
	name, lname, qn  string
	path             string
	kind             int64
	exported, test   bool
	startLine, start int
	key, signature   string
	endLine, endCol  int
}

// brief returns the symbol of e as a brief answer has it.
func (e *nameEntry) brief(repo string) graph.Symbol {
	return graph.Symbol{Key: e.key, Repository: repo, Path: e.path, Name: e.name, QualifiedName: e.qn,
		Kind: kindOf(e.kind), Signature: e.signature, Exported: e.exported, TestOnly: e.test,
		StartLine: e.startLine, StartCol: e.start, EndLine: e.endLine, EndCol: e.endCol}
}

// table returns the name table of snapshot id of repository repo, loading
// it through r on first use.
//
// An amended snapshot (see amend.go) changes the rows of its data set in
// place, so tables are cached by the published snapshot id (rev), which
// every amend renews, and loaded from the data set id.
func (n *names) table(ctx context.Context, r *reader, repo string, rev, data int64) (*nameTable, error) {
	t := n.slot(repo, rev)
	t.once.Do(func() {
		t.entries, t.err = loadNames(ctx, r, data)
		t.ready.Store(t.err == nil)
	})
	if t.err != nil {
		n.mu.Lock()
		if n.tables[rev] == t {
			delete(n.tables, rev) // let a later call retry
		}
		n.mu.Unlock()
	}
	return t, t.err
}

// slot returns the cache entry of published snapshot rev of repository
// repo, creating it (with nothing loaded) on first use, and drops the
// entry of the repository's previous snapshot.
func (n *names) slot(repo string, rev int64) *nameTable {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.tables == nil {
		n.tables, n.latest = map[int64]*nameTable{}, map[string]int64{}
	}
	t, ok := n.tables[rev]
	if !ok {
		t = &nameTable{}
		n.tables[rev] = t
		if old, had := n.latest[repo]; had && old < rev {
			delete(n.tables, old)
		}
		if n.latest[repo] < rev {
			n.latest[repo] = rev
		}
	}
	return t
}

// loaded returns the name table of published snapshot rev when one is
// loaded already, else nil: it never loads one.
func (n *names) loaded(rev int64) *nameTable {
	n.mu.Lock()
	t := n.tables[rev]
	n.mu.Unlock()
	if t == nil || !t.ready.Load() {
		return nil
	}
	return t
}

func loadNames(ctx context.Context, r *reader, id int64) ([]nameEntry, error) {
	rows, err := r.query(ctx, `SELECT s.id, s.name, s.lname, coalesce(s.qname, s.name), u.path, s.kind,
		s.exported, s.test_only, s.start_line, s.start_col, s.key, s.signature, s.end_line, s.end_col
		FROM symbols s JOIN units u ON u.id = s.unit_id WHERE s.snapshot_id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("loading symbol names: %w", err)
	}
	defer rows.Close()
	var out []nameEntry
	paths := map[string]string{} // intern paths: many symbols share a file
	for rows.Next() {
		var e nameEntry
		if err := rows.Scan(&e.id, &e.name, &e.lname, &e.qn, &e.path, &e.kind, &e.exported, &e.test,
			&e.startLine, &e.start, &e.key, &e.signature, &e.endLine, &e.endCol); err != nil {
			return nil, fmt.Errorf("loading symbol names: %w", err)
		}
		if p, ok := paths[e.path]; ok {
			e.path = p
		} else {
			paths[e.path] = e.path
		}
		if e.lname == e.name {
			e.lname = e.name
		}
		if e.qn == e.name {
			e.qn = e.name
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// findInMemory answers FindSymbols from the name tables of the pinned
// snapshots: filter, rank, page, then load only the page's rows.
func (r *reader) findInMemory(ctx context.Context, q graph.SymbolQuery) ([]graph.Symbol, int, error) {
	kinds := map[int64]bool{}
	for _, k := range q.Kinds {
		code, ok := kindCodes[k]
		if !ok {
			return nil, 0, graph.Errorf(graph.CodeInvalidArgument, "unknown symbol kind %q", k)
		}
		kinds[code] = true
	}
	repos, err := r.pinnedSnapshots(ctx, q.Repositories)
	if err != nil {
		return nil, 0, err
	}
	lq := strings.ToLower(q.Name)
	var match func(t *nameTable, i int, e *nameEntry) bool
	switch q.Mode {
	case graph.MatchExact, "":
		// A name with a dot (Type.Method) or # is a qualified name;
		// otherwise the name itself, case and all.
		if strings.ContainsAny(q.Name, ".#") {
			match = func(_ *nameTable, _ int, e *nameEntry) bool { return e.qn == q.Name }
		} else {
			match = func(_ *nameTable, _ int, e *nameEntry) bool { return e.name == q.Name }
		}
	case graph.MatchPrefix:
		match = func(_ *nameTable, _ int, e *nameEntry) bool { return strings.HasPrefix(e.lname, lq) }
	case graph.MatchSubstring:
		match = func(_ *nameTable, _ int, e *nameEntry) bool { return strings.Contains(e.lname, lq) }
	case graph.MatchFuzzy:
		m := newFuzzyMatcher(q.Name)
		// Every letter of the query must appear in order in the name:
		// a byte loop that rejects most names before the humps are
		// compared.
		letters := strings.ReplaceAll(lq, "_", "")
		match = func(t *nameTable, i int, e *nameEntry) bool {
			return isSubsequence(letters, e.lname) && m.matchSplit(t.fuzzyHumps()[i])
		}
	default:
		return nil, 0, graph.Errorf(graph.CodeInvalidArgument, "unknown match mode %q", q.Mode)
	}
	var cands []candidate
	for _, rs := range repos {
		t, err := r.names.table(ctx, r, rs.name, rs.revision, rs.snapshot)
		if err != nil {
			return nil, 0, err
		}
		for i := range t.entries {
			e := &t.entries[i]
			if len(kinds) > 0 && !kinds[e.kind] {
				continue
			}
			if q.PathPrefix != "" && !strings.HasPrefix(e.path, q.PathPrefix) {
				continue
			}
			if q.Exported != nil && e.exported != *q.Exported {
				continue
			}
			if !match(t, i, e) {
				continue
			}
			cands = append(cands, candidate{e: e, repo: rs.name, tier: int32(rankTier(e.name, e.lname, e.qn, q.Name, lq)),
				length: int32(utf8.RuneCountInString(e.name))})
		}
	}
	total := len(cands)
	offset := max(q.Offset, 0)
	if offset >= total {
		return nil, total, nil
	}
	end := total
	if q.Limit > 0 {
		end = min(total, offset+q.Limit)
	}
	// Only the page needs to be in order: a broad prefix or substring
	// matches thousands of names, and sorting them all was a tenth of a
	// find_symbol's CPU. compareCandidates is a total order (ids break
	// ties), so the first end candidates are the same either way.
	if end < total/4 {
		firstSorted(cands, end, compareCandidates)
	} else {
		slices.SortFunc(cands, compareCandidates)
	}
	page := cands[offset:end]
	if q.Brief {
		// The table holds all a brief answer shows: no row to read.
		syms := make([]graph.Symbol, len(page))
		for i, c := range page {
			syms[i] = c.e.brief(c.repo)
		}
		return syms, total, nil
	}
	ids := make([]int64, len(page))
	for i, c := range page {
		ids[i] = c.e.id
	}
	syms, err := r.symbolsByID(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	return syms, total, nil
}

type pinned struct {
	name     string
	snapshot int64 // the data set its rows are keyed by
	revision int64 // the published snapshot id
}

// pinnedSnapshots returns the current snapshot of each repository (all of
// them when names is empty) as this reader sees it.
func (r *reader) pinnedSnapshots(ctx context.Context, names []string) ([]pinned, error) {
	rows, err := r.query(ctx, `SELECT name, current_snapshot, coalesce(current_revision, current_snapshot)
		FROM repositories WHERE current_snapshot IS NOT NULL ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("listing snapshots: %w", err)
	}
	defer rows.Close()
	var out []pinned
	for rows.Next() {
		var p pinned
		if err := rows.Scan(&p.name, &p.snapshot, &p.revision); err != nil {
			return nil, fmt.Errorf("listing snapshots: %w", err)
		}
		if len(names) == 0 || slices.Contains(names, p.name) {
			out = append(out, p)
		}
	}
	return out, rows.Err()
}

// isSubsequence reports whether the bytes of sub appear in s in order.
func isSubsequence(sub, s string) bool {
	i := 0
	for j := 0; i < len(sub) && j < len(s); j++ {
		if sub[i] == s[j] {
			i++
		}
	}
	return i == len(sub)
}

// firstSorted reorders s so that s[:k] holds its k smallest elements under
// cmp, in order: a bounded max-heap over the rest, then a sort of k.
func firstSorted[T any](s []T, k int, cmp func(a, b T) int) {
	k = min(k, len(s))
	if k <= 0 {
		return
	}
	h := s[:k]
	down := func(i int) {
		for {
			l, big := 2*i+1, i
			if l < k && cmp(h[l], h[big]) > 0 {
				big = l
			}
			if r := l + 1; r < k && cmp(h[r], h[big]) > 0 {
				big = r
			}
			if big == i {
				return
			}
			h[i], h[big] = h[big], h[i]
			i = big
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := k; i < len(s); i++ {
		if cmp(s[i], h[0]) < 0 {
			s[i], h[0] = h[0], s[i]
			down(0)
		}
	}
	slices.SortFunc(h, cmp)
}
