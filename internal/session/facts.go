package session

import (
	"context"
	"sync"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Facts are what the completeness verdicts need to know about one
// snapshot of a repository. They are computed once per snapshot, each
// part when a verdict first needs it.
type Facts struct {
	snapshot int64

	mu          sync.Mutex
	loaded      bool
	ErrPackages []string // import paths of packages with recorded type errors
	Unresolved  int      // unresolved dynamic call sites

	reflectLoaded bool
	reflectors    map[string]bool // stable keys of functions that call through reflection

	memoMu sync.Mutex
	memo   map[string]any // see Memo
}

// Facts returns the facts of repo's pinned snapshot, with the package
// errors and the count of unresolved calls loaded.
func (v *View) Facts(ctx context.Context, repo string) (*Facts, error) {
	var snap int64
	for _, r := range v.repos {
		if r.Name == repo {
			snap = r.Snapshot.ID
		}
	}
	v.s.mu.Lock()
	f, ok := v.s.facts[repo]
	if !ok || f.snapshot != snap {
		f = &Facts{snapshot: snap}
		v.s.facts[repo] = f
	}
	v.s.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded {
		return f, nil
	}
	pkgs, err := v.r.Packages(ctx, repo)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading packages")
	}
	var errPkgs []string
	for _, p := range pkgs {
		if p.Errors > 0 {
			errPkgs = append(errPkgs, p.Path)
		}
	}
	unresolved, err := v.r.UnresolvedCalls(ctx, repo)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "counting unresolved calls")
	}
	f.ErrPackages, f.Unresolved, f.loaded = errPkgs, unresolved, true
	return f, nil
}

// Reflectors returns the functions of repo that call through reflection,
// found by find on first use.
func (f *Facts) Reflectors(ctx context.Context, find func(context.Context) (map[string]bool, error)) (map[string]bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reflectLoaded {
		return f.reflectors, nil
	}
	m, err := find(ctx)
	if err != nil {
		return nil, err
	}
	f.reflectors, f.reflectLoaded = m, true
	return m, nil
}

// maxMemos bounds the values Memo keeps for one snapshot.
const maxMemos = 16

// Memo returns the value kept for this snapshot under key, made by make
// on first use; a failed make is not kept. Answers keep there what they
// derive from a snapshot and reuse across calls (get_impact's reverse call
// graph and package imports). make runs without the lock, so two calls
// may both make it; the first kept wins. The value must be safe for
// concurrent use.
func (f *Facts) Memo(key string, make func() (any, error)) (any, error) {
	f.memoMu.Lock()
	v, ok := f.memo[key]
	f.memoMu.Unlock()
	if ok {
		return v, nil
	}
	v, err := make()
	if err != nil {
		return nil, err
	}
	f.memoMu.Lock()
	defer f.memoMu.Unlock()
	if old, ok := f.memo[key]; ok {
		return old, nil
	}
	if f.memo == nil || len(f.memo) >= maxMemos {
		f.memo = map[string]any{} // keys of other repositories' older snapshots
	}
	f.memo[key] = v
	return v, nil
}
