// Package names is the in-memory name search of the stores: per-snapshot
// tables of the columns that find_symbol matches and ranks on, and the
// matching (exact, prefix, substring, fuzzy camel-case), ranking and paging
// over them. A prefix, substring or fuzzy query must look at every name of
// a snapshot; scanning a compact table in memory is faster than any index
// either SQL engine offers for the fuzzy case, and doing it in one place
// keeps the semantics (Go's strings.ToLower, byte-order comparisons, rune
// counts) identical whatever store holds the rows. Both the sqlite and the
// postgres store use it.
package names

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Entry is one symbol as name search sees it. ID is the store's row id,
// with which the store loads the page's full rows. Key, Signature,
// EndLine and EndCol are what a brief answer shows beyond the rest (see
// graph.SymbolQuery.Brief); a store that reads brief answers from its
// rows leaves them empty.
type Entry struct {
	ID                  int64
	Name, LName, QN     string // name, strings.ToLower(name), qualified name
	Path                string
	Kind                graph.Kind
	Exported, Test      bool
	StartLine, StartCol int
	Key, Signature      string
	EndLine, EndCol     int
}

// Brief returns the symbol of e, of repository repo, as a brief answer
// has it.
func (e *Entry) Brief(repo string) graph.Symbol {
	return graph.Symbol{Key: e.Key, Repository: repo, Path: e.Path, Name: e.Name, QualifiedName: e.QN,
		Kind: e.Kind, Signature: e.Signature, Exported: e.Exported, TestOnly: e.Test,
		StartLine: e.StartLine, StartCol: e.StartCol, EndLine: e.EndLine, EndCol: e.EndCol}
}

// Snapshots holds one value per snapshot id, for what a store computes
// once per published snapshot. A snapshot never changes once published,
// so a value is valid as long as the snapshot exists; a repository's
// older values are dropped when a newer snapshot of it is seen. It is
// safe for concurrent use; the zero value is ready.
type Snapshots[T any] struct {
	// DropOlder makes Get hand out, and not keep, a fresh value for a
	// snapshot older than the newest one seen of its repository (one a
	// reader still pins). Otherwise such a value is kept until its id is
	// forgotten.
	DropOlder bool

	mu     sync.Mutex
	values map[int64]*T
	latest map[string]int64 // repository → newest snapshot id seen
}

// Get returns the value of snapshot id of repository repo, a zero T on
// first use.
func (s *Snapshots[T]) Get(repo string, id int64) *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values == nil {
		s.values, s.latest = map[int64]*T{}, map[string]int64{}
	}
	if s.DropOlder && id < s.latest[repo] {
		return new(T)
	}
	v, ok := s.values[id]
	if !ok {
		v = new(T)
		s.values[id] = v
		if old, had := s.latest[repo]; had && old < id {
			delete(s.values, old)
		}
		if s.latest[repo] < id {
			s.latest[repo] = id
		}
	}
	return v
}

// Peek returns the value of snapshot id when one is held, else nil.
func (s *Snapshots[T]) Peek(id int64) *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values[id]
}

// Forget drops the value of snapshot id when it is still v, so that the
// next Get starts afresh (after a failed load, say).
func (s *Snapshots[T]) Forget(id int64, v *T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values[id] == v {
		delete(s.values, id)
	}
}

// Table is the entries of one snapshot, with what name search derives
// from them on first use.
type Table struct {
	Entries []Entry

	once  sync.Once
	err   error
	ready atomic.Bool // Entries are loaded (see Cache.Loaded)

	humpsOnce sync.Once
	humps     []entryHumps // parallel to Entries, built on the first fuzzy search

	keysOnce sync.Once
	byKey    map[string]*Entry // built on the first lookup by key
}

// NewTable returns a table of entries, for a search over rows a store
// read for one query rather than a cached snapshot.
func NewTable(entries []Entry) *Table {
	t := &Table{Entries: entries}
	t.ready.Store(true)
	return t
}

// Entry returns the entry of the symbol with stable key key, or nil.
func (t *Table) Entry(key string) *Entry {
	t.keysOnce.Do(func() {
		t.byKey = make(map[string]*Entry, len(t.Entries))
		for i := range t.Entries {
			t.byKey[t.Entries[i].Key] = &t.Entries[i]
		}
	})
	return t.byKey[key]
}

// FillQualifiedNames sets out[k] to the qualified name of the symbol of
// each key k in keys that the table holds and out does not have yet: over
// tables in a store's order, the first table holding a key names it.
func (t *Table) FillQualifiedNames(keys []string, out map[string]string) {
	for _, k := range keys {
		if _, done := out[k]; done {
			continue
		}
		if e := t.Entry(k); e != nil {
			out[k] = e.QN
		}
	}
}

// entryHumps are a name's humps, lower-cased, as fuzzyMatcher.match splits
// it both ways (acronym is nil when it splits the same as plain).
type entryHumps struct {
	plain, acronym [][]rune
}

// fuzzyHumps returns the humps of every entry, splitting them once per
// table rather than on every fuzzy search.
func (t *Table) fuzzyHumps() []entryHumps {
	t.humpsOnce.Do(func() {
		t.humps = make([]entryHumps, len(t.Entries))
		for i := range t.Entries {
			name := t.Entries[i].Name
			h := entryHumps{plain: lowerRunes(SplitHumps(name, false))}
			if acr := lowerRunes(SplitHumps(name, true)); !sameHumps(h.plain, acr) {
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

// Cache holds the name tables of snapshots, one per snapshot id (see
// Snapshots). It is safe for concurrent use; the zero value is ready.
type Cache struct {
	tables Snapshots[Table]
}

// Table returns the table of snapshot id of repository repo, calling load
// on first use (once, however many callers ask at the same time).
func (c *Cache) Table(ctx context.Context, repo string, id int64, load func(context.Context) ([]Entry, error)) (*Table, error) {
	t := c.tables.Get(repo, id)
	t.once.Do(func() {
		t.Entries, t.err = load(ctx)
		t.ready.Store(t.err == nil)
	})
	if t.err != nil {
		c.tables.Forget(id, t) // let a later call retry
	}
	return t, t.err
}

// Loaded returns the table of snapshot id when it is loaded already, else
// nil: it never loads one.
func (c *Cache) Loaded(id int64) *Table {
	t := c.tables.Peek(id)
	if t == nil || !t.ready.Load() {
		return nil
	}
	return t
}

// Intern makes entries that share a path share one string, and name
// strings share lname and qn where equal, to keep tables small.
func Intern(entries []Entry) {
	paths := map[string]string{}
	for i := range entries {
		e := &entries[i]
		if p, ok := paths[e.Path]; ok {
			e.Path = p
		} else {
			paths[e.Path] = e.Path
		}
		if e.LName == e.Name {
			e.LName = e.Name
		}
		if e.QN == e.Name {
			e.QN = e.Name
		}
	}
}

// RepoTable is the table of one repository's snapshot, as Search takes it.
type RepoTable struct {
	Repo  string
	Table *Table
}

// Search matches q against the tables, ranks the matches the way
// graph.Reader.FindSymbols documents (exact name before prefix before the
// rest, exported before unexported, non-test before test, shorter names,
// then qualified name, repository, path, line, column and row id), and
// returns the page q asks for with their repositories, and the total
// number of matches. An unknown mode or kind is an INVALID_ARGUMENT error;
// an empty mode is exact.
func Search(q graph.SymbolQuery, tables []RepoTable) (page []Hit, total int, err error) {
	var kinds []graph.Kind
	for _, k := range q.Kinds {
		if _, ok := graph.ParseKind(string(k)); !ok {
			return nil, 0, graph.Errorf(graph.CodeInvalidArgument, "unknown symbol kind %q", k)
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	match, err := Matcher(q.Mode, q.Name)
	if err != nil {
		return nil, 0, err
	}
	lq := strings.ToLower(q.Name)
	var cands []candidate
	for _, rt := range tables {
		if len(q.Repositories) > 0 && !slices.Contains(q.Repositories, rt.Repo) {
			continue
		}
		if rt.Table == nil {
			continue
		}
		for i := range rt.Table.Entries {
			e := &rt.Table.Entries[i]
			if len(kinds) > 0 && !slices.Contains(kinds, e.Kind) {
				continue
			}
			if q.PathPrefix != "" && !strings.HasPrefix(e.Path, q.PathPrefix) {
				continue
			}
			if q.Exported != nil && e.Exported != *q.Exported {
				continue
			}
			if !match(rt.Table, i) {
				continue
			}
			cands = append(cands, candidate{e: e, repo: rt.Repo, tier: int32(rankTier(e, q.Name, lq)),
				length: int32(utf8.RuneCountInString(e.Name))})
		}
	}
	total = len(cands)
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
	page = make([]Hit, 0, end-offset)
	for _, c := range cands[offset:end] {
		page = append(page, Hit{ID: c.e.ID, Repo: c.repo, Entry: c.e})
	}
	return page, total, nil
}

// Hit is one match of a page: the row id, its repository, and its entry
// in the table searched.
type Hit struct {
	ID    int64
	Repo  string
	Entry *Entry
}

// Matcher returns the test entry i of a table must pass for mode and name.
func Matcher(mode graph.MatchMode, name string) (func(t *Table, i int) bool, error) {
	lq := strings.ToLower(name)
	switch mode {
	case graph.MatchExact, "":
		// A name with a dot (Type.Method) or # is a qualified name;
		// otherwise the name itself, case and all.
		if strings.ContainsAny(name, ".#") {
			return func(t *Table, i int) bool { e := &t.Entries[i]; return e.QN == name && e.QN != e.Name }, nil
		}
		return func(t *Table, i int) bool { return t.Entries[i].Name == name }, nil
	case graph.MatchPrefix:
		return func(t *Table, i int) bool { return strings.HasPrefix(t.Entries[i].LName, lq) }, nil
	case graph.MatchSubstring:
		return func(t *Table, i int) bool { return strings.Contains(t.Entries[i].LName, lq) }, nil
	case graph.MatchFuzzy:
		m := newFuzzyMatcher(name)
		// Every letter of the query must appear in order in the name: a
		// byte loop that rejects most names before the humps are
		// compared.
		letters := strings.ReplaceAll(lq, "_", "")
		return func(t *Table, i int) bool {
			return isSubsequence(letters, t.Entries[i].LName) && m.matchSplit(t.fuzzyHumps()[i])
		}, nil
	}
	return nil, graph.Errorf(graph.CodeInvalidArgument, "unknown match mode %q", mode)
}

// candidate is a match being ranked: its entry and what ranking derives
// from it. Small, since a broad match has thousands.
type candidate struct {
	e      *Entry
	repo   string
	tier   int32
	length int32 // characters of the name
}

// compareCandidates orders candidates the way FindSymbols documents:
// rank tier, exported first, non-test first, shorter names, then
// qualified name, repository, path, position and row id, which make it a
// total order.
func compareCandidates(a, b candidate) int {
	if c := cmp.Compare(a.tier, b.tier); c != 0 {
		return c
	}
	if a.e.Exported != b.e.Exported {
		if a.e.Exported {
			return -1
		}
		return 1
	}
	if a.e.Test != b.e.Test {
		if !a.e.Test {
			return -1
		}
		return 1
	}
	return cmp.Or(
		cmp.Compare(a.length, b.length),
		strings.Compare(a.e.QN, b.e.QN),
		strings.Compare(a.repo, b.repo),
		strings.Compare(a.e.Path, b.e.Path),
		cmp.Compare(a.e.StartLine, b.e.StartLine),
		cmp.Compare(a.e.StartCol, b.e.StartCol),
		cmp.Compare(a.e.ID, b.e.ID),
	)
}

// rankTier is the first ranking key: 0 for an exact (case-sensitive) name
// or qualified name, 1 for a case-insensitive exact name, 2 for a prefix,
// 3 for the rest.
func rankTier(e *Entry, q, lq string) int {
	switch {
	case e.Name == q || e.QN == q:
		return 0
	case e.LName == lq:
		return 1
	case strings.HasPrefix(e.LName, lq):
		return 2
	}
	return 3
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

// RankSymbols sorts syms, matches of the find_symbol query name, in the
// order Search ranks them, for merging the pages of several readers. Ties
// keep their order in syms.
func RankSymbols(name string, syms []graph.Symbol) {
	lq := strings.ToLower(name)
	cands := make([]candidate, len(syms))
	entries := make([]Entry, len(syms))
	for i := range syms {
		s := &syms[i]
		entries[i] = Entry{ID: int64(i), Name: s.Name, LName: strings.ToLower(s.Name), QN: s.QualifiedName,
			Path: s.Path, Kind: s.Kind, Exported: s.Exported, Test: s.TestOnly, StartLine: s.StartLine, StartCol: s.StartCol}
		cands[i] = candidate{e: &entries[i], repo: s.Repository, tier: int32(rankTier(&entries[i], name, lq)),
			length: int32(utf8.RuneCountInString(s.Name))}
	}
	slices.SortStableFunc(cands, compareCandidates)
	out := make([]graph.Symbol, len(syms))
	for i, c := range cands {
		out[i] = syms[c.e.ID]
	}
	copy(syms, out)
}
