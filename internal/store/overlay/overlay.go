// Package overlay layers a local working copy over a shared graph: a
// graph.Store that reads a shared store (PostgreSQL, published by CI) and a
// local one (the embedded SQLite store, where `sextant serve` indexes the
// roots it is given), and answers as one graph.
//
// A repository indexed locally whose name is also in the shared graph is
// an overlay repository: its rows come from the local index of the
// working copy, so uncommitted edits (added, renamed and deleted symbols,
// their references and calls) are what answers describe, while every other
// repository comes from the shared graph. Stable keys hash the repository
// name, and the local index names a repository as CI does (its module
// path), so keys agree across the two layers and a reference from a shared
// repository to a symbol of the working copy is found by the same key.
//
// Each row says its layer (graph.Layer): LayerShared for rows of the
// shared graph, and for rows of an overlay repository whose file has the
// content the shared snapshot has (the row is the shared graph's);
// LayerLocal for rows in files that differ from the shared snapshot (or
// that it does not have), and for repositories only indexed locally. The
// files that differ are found by comparing content hashes of the two
// snapshots, once per pair of snapshots.
//
// Writes (EnsureRepository, BeginSnapshot) go to the local store: serving
// a working copy never publishes into the shared graph; `sextant publish`
// does that.
package overlay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/names"
)

var _ graph.Store = (*Store)(nil)

// Store is the overlay of local on shared. It is safe for concurrent use.
type Store struct {
	shared, local graph.Store

	mu    sync.Mutex
	diffs map[diffKey]map[string]bool // paths that differ, per pair of snapshots
}

type diffKey struct {
	repo          string
	shared, local int64
}

// New returns the overlay of local on shared. Close closes both.
func New(shared, local graph.Store) *Store {
	return &Store{shared: shared, local: local, diffs: map[diffKey]map[string]bool{}}
}

// EnsureRepository implements graph.Store on the local store.
func (s *Store) EnsureRepository(ctx context.Context, root, name string) (graph.Repository, error) {
	return s.local.EnsureRepository(ctx, root, name)
}

// BeginSnapshot implements graph.Store on the local store.
func (s *Store) BeginSnapshot(ctx context.Context, repo graph.Repository, vcsHead string) (graph.SnapshotWriter, error) {
	return s.local.BeginSnapshot(ctx, repo, vcsHead)
}

// Close implements graph.Store.
func (s *Store) Close() error {
	return errors.Join(s.local.Close(), s.shared.Close())
}

// Read implements graph.Store: it pins a reader of each store and works
// out which repositories are overlaid and which of their files differ.
func (s *Store) Read(ctx context.Context) (graph.Reader, error) {
	sr, err := s.shared.Read(sideContext(wholeRefsAhead(ctx)))
	if err != nil {
		return graph.Reader{}, fmt.Errorf("reading the shared graph: %w", err)
	}
	lr, err := s.local.Read(ctx)
	if err != nil {
		sr.Close()
		return graph.Reader{}, fmt.Errorf("reading the local index: %w", err)
	}
	r := &reader{s: sr, l: lr, local: map[string]*localRepo{}}
	if err := s.pin(ctx, r); err != nil {
		r.Close()
		return graph.Reader{}, err
	}
	return graph.Reader{Catalog: r, Symbols: r, XRefs: r, Effects: r, Search: r, Closer: r}, nil
}

// wholeRefsAhead returns ctx with the page of uses the request will ask
// for (graph.WithRefsAhead) widened to all of them: Refs reads every use
// of each side (see Refs), so that is what the shared side may read
// ahead.
func wholeRefsAhead(ctx context.Context) context.Context {
	q, ok := graph.RefsAhead(ctx)
	if !ok {
		return ctx
	}
	q.Offset, q.Limit = 0, 0
	return graph.WithRefsAhead(ctx, q)
}

// sideContext returns ctx for a read of either side: this reader names
// the declarations enclosing uses with SymbolsByKeys, not QualifiedNames,
// so a side must not count on the latter (graph.WithEnclosingNames).
func sideContext(ctx context.Context) context.Context {
	if !graph.EnclosingNames(ctx) {
		return ctx
	}
	return graph.WithEnclosingNames(ctx, false)
}

// localRepo is a repository the local index holds.
type localRepo struct {
	status graph.RepositoryStatus
	shared bool            // the shared graph has it too: an overlay repository
	differ map[string]bool // files whose content differs from the shared snapshot's
}

func (s *Store) pin(ctx context.Context, r *reader) error {
	shared, err := r.s.Repositories(ctx)
	if err != nil {
		return fmt.Errorf("listing shared repositories: %w", err)
	}
	local, err := r.l.Repositories(ctx)
	if err != nil {
		return fmt.Errorf("listing local repositories: %w", err)
	}
	sharedByName := map[string]graph.RepositoryStatus{}
	for _, st := range shared {
		sharedByName[st.Name] = st
	}
	for _, st := range local {
		lr := &localRepo{status: st}
		r.local[st.Name] = lr
		r.statuses = append(r.statuses, st)
		ss, ok := sharedByName[st.Name]
		if !ok {
			continue
		}
		lr.shared = true
		key := diffKey{st.Name, ss.Snapshot.ID, st.Snapshot.ID}
		s.mu.Lock()
		d, ok := s.diffs[key]
		s.mu.Unlock()
		if !ok {
			if d, err = differing(ctx, r, st.Name); err != nil {
				return err
			}
			s.mu.Lock()
			for k := range s.diffs {
				if k.repo == key.repo {
					delete(s.diffs, k)
				}
			}
			s.diffs[key] = d
			s.mu.Unlock()
		}
		lr.differ = d
	}
	for _, st := range shared {
		if r.local[st.Name] == nil {
			r.statuses = append(r.statuses, st)
			r.sharedNames = append(r.sharedNames, st.Name)
		}
	}
	slices.SortFunc(r.statuses, func(a, b graph.RepositoryStatus) int { return strings.Compare(a.Name, b.Name) })
	for name := range r.local {
		r.localNames = append(r.localNames, name)
	}
	slices.Sort(r.localNames)
	return nil
}

// differing compares the files of the two snapshots of repo by content.
func differing(ctx context.Context, r *reader, repo string) (map[string]bool, error) {
	sf, err := r.s.Files(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("listing shared files of %s: %w", repo, err)
	}
	lf, err := r.l.Files(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("listing local files of %s: %w", repo, err)
	}
	hashes := make(map[string]string, len(sf))
	for _, f := range sf {
		hashes[f.Path] = f.Hash
	}
	d := map[string]bool{}
	for _, f := range lf {
		if h, ok := hashes[f.Path]; !ok || h != f.Hash {
			d[f.Path] = true
		}
		delete(hashes, f.Path)
	}
	for p := range hashes {
		d[p] = true // deleted locally
	}
	return d, nil
}

// reader is one pinned view of both stores.
type reader struct {
	s, l        graph.Reader
	local       map[string]*localRepo // repositories answered from the local index
	localNames  []string
	sharedNames []string // repositories answered from the shared graph
	statuses    []graph.RepositoryStatus
}

// Close implements graph.Reader.
func (r *reader) Close() error { return errors.Join(r.l.Close(), r.s.Close()) }

// isLocal reports whether repo is answered from the local index.
func (r *reader) isLocal(repo string) bool { return r.local[repo] != nil }

// layer is the layer of a row of repo in file path.
func (r *reader) layer(repo, path string) graph.Layer {
	lr := r.local[repo]
	if lr == nil || lr.shared && !lr.differ[path] {
		return graph.LayerShared
	}
	return graph.LayerLocal
}

// side returns the reader that answers for repo.
func (r *reader) side(repo string) graph.Reader {
	if r.isLocal(repo) {
		return r.l
	}
	return r.s
}

// Repositories implements graph.Reader: the local statuses of the
// repositories indexed locally, the shared ones of the rest.
func (r *reader) Repositories(ctx context.Context) ([]graph.RepositoryStatus, error) {
	return slices.Clone(r.statuses), nil
}

// Repository implements graph.Reader.
func (r *reader) Repository(ctx context.Context, name string) (graph.RepositoryStatus, error) {
	return r.side(name).Repository(ctx, name)
}

// side is one of the two stores a query goes to: local says which.
type side struct {
	rd    graph.Reader
	local bool
	repos []string // the repositories of the query it answers for (see split)
}

// sides returns the stores to read rows from, shared first; the local one
// only when the local index holds a repository.
func (r *reader) sides() []side {
	if len(r.local) == 0 {
		return []side{{rd: r.s}}
	}
	return []side{{rd: r.s}, {rd: r.l, local: true}}
}

// split divides the repositories a query names (all, when none) into those
// of each side, shared first; a side with nothing to search is left out.
func (r *reader) split(repos []string) []side {
	var shared, local []string
	if len(repos) == 0 {
		shared, local = r.sharedNames, r.localNames
	}
	for _, n := range repos {
		if r.isLocal(n) {
			local = append(local, n)
		} else {
			shared = append(shared, n)
		}
	}
	var out []side
	if len(shared) > 0 {
		out = append(out, side{rd: r.s, repos: shared})
	}
	if len(local) > 0 {
		out = append(out, side{rd: r.l, local: true, repos: local})
	}
	return out
}

func (r *reader) markSymbols(syms []graph.Symbol) []graph.Symbol {
	for i := range syms {
		syms[i].Layer = r.layer(syms[i].Repository, syms[i].Path)
	}
	return syms
}

// keep returns the symbols answered by the side they were read from.
func (r *reader) keep(syms []graph.Symbol, local bool) []graph.Symbol {
	var out []graph.Symbol
	for _, s := range syms {
		if r.isLocal(s.Repository) == local {
			out = append(out, s)
		}
	}
	return out
}

// FindSymbols implements graph.Reader: each side ranks its own
// repositories' matches up to the end of the page, and the two are merged
// in the same ranking.
func (r *reader) FindSymbols(ctx context.Context, q graph.SymbolQuery) ([]graph.Symbol, int, error) {
	if _, _, err := names.Search(q, nil); err != nil { // invalid mode or kind, whatever the sides
		return nil, 0, err
	}
	var all []graph.Symbol
	total := 0
	for _, side := range r.split(q.Repositories) {
		sq := q
		sq.Repositories, sq.Offset = side.repos, 0
		if q.Limit > 0 {
			sq.Limit = max(q.Offset, 0) + q.Limit
		}
		syms, n, err := side.rd.FindSymbols(ctx, sq)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, syms...)
		total += n
	}
	names.RankSymbols(q.Name, all)
	off := min(max(q.Offset, 0), len(all))
	all = all[off:]
	if q.Limit > 0 && len(all) > q.Limit {
		all = all[:q.Limit]
	}
	return r.markSymbols(all), total, nil
}

// SymbolByKey implements graph.Reader. A key of an overlay repository is
// found only if the working copy still declares it.
func (r *reader) SymbolByKey(ctx context.Context, key string) (graph.Symbol, error) {
	if len(r.local) > 0 {
		sym, err := r.l.SymbolByKey(ctx, key)
		if err == nil {
			return r.markSymbols([]graph.Symbol{sym})[0], nil
		}
		if !errors.Is(err, graph.ErrNotFound) {
			return sym, err
		}
	}
	sym, err := r.s.SymbolByKey(wholeRefsAhead(ctx), key)
	if err != nil {
		return sym, err
	}
	if r.isLocal(sym.Repository) {
		return graph.Symbol{}, fmt.Errorf("symbol %s (not in the working copy of %s): %w", key, sym.Repository, graph.ErrNotFound)
	}
	return r.markSymbols([]graph.Symbol{sym})[0], nil
}

// both reads symbols from each side with f, keeps each side's own
// repositories, and orders them by repository, path and position.
func (r *reader) both(ctx context.Context, f func(graph.Reader) ([]graph.Symbol, error)) ([]graph.Symbol, error) {
	var out []graph.Symbol
	for _, side := range r.sides() {
		syms, err := f(side.rd)
		if err != nil {
			return nil, err
		}
		out = append(out, r.keep(syms, side.local)...)
	}
	slices.SortStableFunc(out, func(a, b graph.Symbol) int {
		return cmp.Or(strings.Compare(a.Repository, b.Repository), strings.Compare(a.Path, b.Path),
			cmp.Compare(a.StartLine, b.StartLine), cmp.Compare(a.StartCol, b.StartCol))
	})
	return r.markSymbols(out), nil
}

// LookupSymbols implements graph.Reader.
func (r *reader) LookupSymbols(ctx context.Context, l graph.Lookup) ([]graph.Symbol, error) {
	if l.Repository != "" {
		syms, err := r.side(l.Repository).LookupSymbols(ctx, l)
		return r.markSymbols(syms), err
	}
	return r.both(ctx, func(rd graph.Reader) ([]graph.Symbol, error) { return rd.LookupSymbols(ctx, l) })
}

// Children implements graph.Reader.
func (r *reader) Children(ctx context.Context, repo, parentKey string) ([]graph.Symbol, error) {
	if repo != "" {
		syms, err := r.side(repo).Children(ctx, repo, parentKey)
		return r.markSymbols(syms), err
	}
	return r.both(ctx, func(rd graph.Reader) ([]graph.Symbol, error) { return rd.Children(ctx, "", parentKey) })
}

// SymbolsByKeys implements graph.Reader.
func (r *reader) SymbolsByKeys(ctx context.Context, keys []string) ([]graph.Symbol, error) {
	return r.both(ctx, func(rd graph.Reader) ([]graph.Symbol, error) { return rd.SymbolsByKeys(ctx, keys) })
}

// Refs implements graph.Reader: every match of each side's repositories,
// merged in order (as a store orders them: a plain use before an implicit
// one at the same position) and paged here, so totals are exact.
func (r *reader) Refs(ctx context.Context, q graph.RefQuery) ([]graph.Ref, int, error) {
	whole := q
	whole.Offset, whole.Limit = 0, 0
	ctx = sideContext(ctx)
	var all []graph.Ref
	for _, side := range r.sides() {
		refs, _, err := side.rd.Refs(ctx, whole)
		if err != nil {
			return nil, 0, err
		}
		for _, ref := range refs {
			if r.isLocal(ref.Repository) == side.local {
				ref.Layer = r.layer(ref.Repository, ref.Path)
				all = append(all, ref)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b graph.Ref) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			strings.Compare(a.Repository, b.Repository), strings.Compare(a.Target, b.Target),
			cmp.Compare(b2i(a.Implicit), b2i(b.Implicit)))
	})
	total := len(all)
	all = all[min(max(q.Offset, 0), total):]
	if q.Limit > 0 && len(all) > q.Limit {
		all = all[:q.Limit]
	}
	return all, total, nil
}

// b2i orders false before true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CallEdges implements graph.Reader.
func (r *reader) CallEdges(ctx context.Context, q graph.EdgeQuery) ([]graph.CallEdge, error) {
	var all []graph.CallEdge
	for _, side := range r.sides() {
		edges, err := side.rd.CallEdges(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, e := range edges {
			if r.isLocal(e.Repository) == side.local {
				e.Layer = r.layer(e.Repository, e.Path)
				all = append(all, e)
			}
		}
	}
	byCaller := len(q.Callers) > 0
	slices.SortStableFunc(all, func(a, b graph.CallEdge) int {
		ka, kb := a.Callee, b.Callee
		if byCaller {
			ka, kb = a.Caller, b.Caller
		}
		return cmp.Or(strings.Compare(ka, kb), strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col), strings.Compare(a.Repository, b.Repository))
	})
	return all, nil
}

// UnresolvedCalls implements graph.Reader.
func (r *reader) UnresolvedCalls(ctx context.Context, repo string) (int, error) {
	return r.side(repo).UnresolvedCalls(ctx, repo)
}

// Implementations implements graph.Reader. Records carry no repository,
// so the two sides' records are merged and those naming a key of an
// overlay repository that the working copy no longer declares (a type or
// interface deleted or renamed there) are dropped; a key neither side
// declares (an interface of the standard library, say) stays. A shared
// record about a type of an overlay repository that still exists but no
// longer satisfies the interface is not detected: it is kept.
func (r *reader) Implementations(ctx context.Context, key string, byInterface bool) ([]graph.Implements, error) {
	seen := map[[2]string]bool{}
	var all []graph.Implements
	var keys []string
	for _, side := range slices.Backward(r.sides()) { // the working copy's first
		impls, err := side.rd.Implementations(ctx, key, byInterface)
		if err != nil {
			return nil, err
		}
		for _, im := range impls {
			k := [2]string{im.Type, im.Interface}
			if !seen[k] {
				seen[k] = true
				all = append(all, im)
				keys = append(keys, im.Type, im.Interface)
			}
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	gone, err := r.gone(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, im := range all {
		if !gone[im.Type] && !gone[im.Interface] {
			out = append(out, im)
		}
	}
	slices.SortStableFunc(out, func(a, b graph.Implements) int {
		if byInterface {
			return strings.Compare(a.Type, b.Type)
		}
		return strings.Compare(a.Interface, b.Interface)
	})
	return out, nil
}

// gone returns those of keys that the shared graph declares in an overlay
// repository and the working copy no longer does.
func (r *reader) gone(ctx context.Context, keys []string) (map[string]bool, error) {
	if len(r.local) == 0 {
		return nil, nil
	}
	shared, err := r.s.SymbolsByKeys(ctx, keys)
	if err != nil {
		return nil, err
	}
	var overlaid []string
	for _, s := range shared {
		if r.isLocal(s.Repository) {
			overlaid = append(overlaid, s.Key)
		}
	}
	if len(overlaid) == 0 {
		return nil, nil
	}
	local, err := r.l.SymbolsByKeys(ctx, overlaid)
	if err != nil {
		return nil, err
	}
	gone := make(map[string]bool, len(overlaid))
	for _, k := range overlaid {
		gone[k] = true
	}
	for _, s := range local {
		delete(gone, s.Key)
	}
	return gone, nil
}

// File implements graph.Reader.
func (r *reader) File(ctx context.Context, repo, path string) (graph.File, error) {
	return r.side(repo).File(ctx, repo, path)
}

// Files implements graph.Reader.
func (r *reader) Files(ctx context.Context, repo string) ([]graph.File, error) {
	return r.side(repo).Files(ctx, repo)
}

// Package implements graph.Reader.
func (r *reader) Package(ctx context.Context, repo, importPath string) (graph.Package, error) {
	return r.side(repo).Package(ctx, repo, importPath)
}

// Packages implements graph.Reader.
func (r *reader) Packages(ctx context.Context, repo string) ([]graph.Package, error) {
	return r.side(repo).Packages(ctx, repo)
}

// Diagnostics implements graph.Reader.
func (r *reader) Diagnostics(ctx context.Context, repo string, limit int) ([]graph.Diagnostic, error) {
	return r.side(repo).Diagnostics(ctx, repo, limit)
}

// EffectRecords implements graph.Reader: the records of a function of a
// repository answered from the local index come from it, those of the
// other repositories from the shared graph, and those of a function
// neither side declares from the local index when it has any.
func (r *reader) EffectRecords(ctx context.Context, keys []string) ([]graph.EffectRecord, error) {
	if len(r.local) == 0 {
		return r.s.EffectRecords(ctx, keys)
	}
	syms, err := r.SymbolsByKeys(ctx, keys)
	if err != nil {
		return nil, err
	}
	local := map[string]bool{} // declared: whether the local index answers for it
	for _, s := range syms {
		local[s.Key] = r.isLocal(s.Repository)
	}
	localRecs, err := r.l.EffectRecords(ctx, keys)
	if err != nil {
		return nil, err
	}
	sharedRecs, err := r.s.EffectRecords(ctx, keys)
	if err != nil {
		return nil, err
	}
	var out []graph.EffectRecord
	localHas := map[string]bool{}
	for _, rec := range localRecs {
		if isLocal, declared := local[rec.Function]; isLocal || !declared {
			out = append(out, rec)
			localHas[rec.Function] = true
		}
	}
	for _, rec := range sharedRecs {
		if isLocal, declared := local[rec.Function]; declared && !isLocal || !declared && !localHas[rec.Function] {
			out = append(out, rec)
		}
	}
	order := map[graph.Effect]int{}
	for i, e := range graph.AllEffects {
		order[e] = i
	}
	order[graph.EffectOpen], order[graph.EffectPure] = len(graph.AllEffects), len(graph.AllEffects)+1
	slices.SortStableFunc(out, func(a, b graph.EffectRecord) int {
		return cmp.Or(strings.Compare(a.Function, b.Function), cmp.Compare(order[a.Effect], order[b.Effect]))
	})
	return out, nil
}

// SearchText implements graph.Reader. Each side searches its own
// repositories, and the two lists are merged by score: both stores rank
// with BM25 (internal/store/textindex), each side with the statistics of
// its own repositories, so a score compares across the sides as it
// would between two stores of one repository each.
func (r *reader) SearchText(ctx context.Context, q graph.TextQuery) ([]graph.TextHit, error) {
	var all []graph.TextHit
	for _, side := range r.split(q.Repositories) {
		sq := q
		sq.Repositories = side.repos
		hits, err := side.rd.SearchText(ctx, sq)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			h.Symbol.Layer = r.layer(h.Symbol.Repository, h.Symbol.Path)
			all = append(all, h)
		}
	}
	slices.SortStableFunc(all, func(a, b graph.TextHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Symbol.Repository, b.Symbol.Repository),
			strings.Compare(a.Symbol.Path, b.Symbol.Path), cmp.Compare(a.Symbol.StartLine, b.Symbol.StartLine))
	})
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	if len(all) > limit {
		all = all[:limit]
	}
	return all, nil
}
