// Package names is the in-memory name search of the stores: per-snapshot
// tables of the columns that find_symbol matches and ranks on, and the
// matching (exact, prefix, substring, fuzzy camel-case), ranking and paging
// over them. A prefix, substring or fuzzy query must look at every name of
// a snapshot; scanning a compact table in memory is faster than any index
// either SQL engine offers for the fuzzy case, and doing it in one place
// keeps the semantics (Go's strings.ToLower, byte-order comparisons, rune
// counts) identical whatever store holds the rows.
//
// The postgres store uses it; the sqlite store has its own copy of the
// same logic (names.go, fuzzy.go there) until it is moved here.
package names

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Entry is one symbol as name search sees it. ID is the store's row id,
// with which the store loads the page's full rows.
type Entry struct {
	ID                  int64
	Name, LName, QN     string // name, strings.ToLower(name), qualified name
	Path                string
	Kind                graph.Kind
	Exported, Test      bool
	StartLine, StartCol int
}

// Cache holds the name tables of snapshots, one per snapshot id. A
// snapshot never changes once published, so a table is valid as long as
// the snapshot exists; a repository's older tables are dropped when a newer
// snapshot of it is seen. It is safe for concurrent use.
type Cache struct {
	mu     sync.Mutex
	tables map[int64]*table
	latest map[string]int64 // repository → newest snapshot id cached
}

type table struct {
	once    sync.Once
	err     error
	entries []Entry
}

// Table returns the entries of snapshot id of repository repo, calling load
// on first use (once, however many callers ask at the same time).
func (c *Cache) Table(ctx context.Context, repo string, id int64, load func(context.Context) ([]Entry, error)) ([]Entry, error) {
	c.mu.Lock()
	if c.tables == nil {
		c.tables, c.latest = map[int64]*table{}, map[string]int64{}
	}
	t, ok := c.tables[id]
	if !ok {
		t = &table{}
		c.tables[id] = t
		if old, had := c.latest[repo]; had && old < id {
			delete(c.tables, old)
		}
		if c.latest[repo] < id {
			c.latest[repo] = id
		}
	}
	c.mu.Unlock()
	t.once.Do(func() { t.entries, t.err = load(ctx) })
	if t.err != nil {
		c.mu.Lock()
		if c.tables[id] == t {
			delete(c.tables, id) // let a later call retry
		}
		c.mu.Unlock()
	}
	return t.entries, t.err
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

// Table of one repository's snapshot, as Search takes it.
type RepoTable struct {
	Repo    string
	Entries []Entry
}

// Search matches q against the tables, ranks the matches the way
// graph.Reader.FindSymbols documents (exact name before prefix before the
// rest, exported before unexported, non-test before test, shorter names,
// then qualified name, repository, path, line, column and row id), and
// returns the row ids of the page q asks for with their repositories, and
// the total number of matches. An unknown mode or kind is an
// INVALID_ARGUMENT error; an empty mode is exact.
func Search(q graph.SymbolQuery, tables []RepoTable) (page []Hit, total int, err error) {
	kinds := map[graph.Kind]bool{}
	for _, k := range q.Kinds {
		if _, ok := graph.ParseKind(string(k)); !ok {
			return nil, 0, graph.Errorf(graph.CodeInvalidArgument, "unknown symbol kind %q", k)
		}
		kinds[k] = true
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
		for i := range rt.Entries {
			e := &rt.Entries[i]
			if len(kinds) > 0 && !kinds[e.Kind] {
				continue
			}
			if q.PathPrefix != "" && !strings.HasPrefix(e.Path, q.PathPrefix) {
				continue
			}
			if q.Exported != nil && e.Exported != *q.Exported {
				continue
			}
			if !match(e) {
				continue
			}
			cands = append(cands, candidate{e: e, repo: rt.Repo, tier: rankTier(e, q.Name, lq),
				length: utf8.RuneCountInString(e.Name)})
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
	slices.SortFunc(cands, compareCandidates)
	for _, c := range cands[offset:end] {
		page = append(page, Hit{ID: c.e.ID, Repo: c.repo})
	}
	return page, total, nil
}

// Hit is one match of a page: the row id and its repository.
type Hit struct {
	ID   int64
	Repo string
}

// Matcher returns the test an entry must pass for mode and name.
func Matcher(mode graph.MatchMode, name string) (func(*Entry) bool, error) {
	lq := strings.ToLower(name)
	switch mode {
	case graph.MatchExact, "":
		if strings.ContainsAny(name, ".#") {
			return func(e *Entry) bool { return e.QN == name && e.QN != e.Name }, nil
		}
		return func(e *Entry) bool { return e.Name == name }, nil
	case graph.MatchPrefix:
		return func(e *Entry) bool { return strings.HasPrefix(e.LName, lq) }, nil
	case graph.MatchSubstring:
		return func(e *Entry) bool { return strings.Contains(e.LName, lq) }, nil
	case graph.MatchFuzzy:
		m := newFuzzyMatcher(name)
		// Every letter of the query must appear in order in the name: a
		// byte loop that rejects most names before the hump split, which
		// allocates.
		letters := strings.ReplaceAll(lq, "_", "")
		return func(e *Entry) bool { return isSubsequence(letters, e.LName) && m.match(e.Name) }, nil
	}
	return nil, graph.Errorf(graph.CodeInvalidArgument, "unknown match mode %q", mode)
}

type candidate struct {
	e            *Entry
	repo         string
	tier, length int
}

// compareCandidates orders candidates the way FindSymbols documents.
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
		cands[i] = candidate{e: &entries[i], repo: s.Repository, tier: rankTier(&entries[i], name, lq),
			length: utf8.RuneCountInString(s.Name)}
	}
	slices.SortStableFunc(cands, compareCandidates)
	out := make([]graph.Symbol, len(syms))
	for i, c := range cands {
		out[i] = syms[c.e.ID]
	}
	copy(syms, out)
}
