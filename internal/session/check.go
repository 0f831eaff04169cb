package session

import (
	"context"
	"sync"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Checked is what a CheckFunc made: a store of its own holding one
// snapshot of a part of a repository, and how many packages it holds.
type Checked struct {
	Store    graph.Store
	Packages int
}

// CheckFunc type-checks, into a store of its own, the part of the
// repository at root (named repo in the session's store) that the uses of
// a declaration called ident of package pkg lie in: that package and the
// packages that depend on it and spell ident (internal/index's Check;
// ident "" for every dependent). A question about such uses reads it
// while the first index of the root has not reached its types stage, on
// a large workspace many times sooner. The CLI wires it to
// internal/index; the session closes the store when it ends.
type CheckFunc func(ctx context.Context, root, repo, pkg, ident string) (Checked, error)

// checks are the checks of parts of repositories made for questions
// asked before the types stage of their root: one per root, package and
// name, which the questions about it share, kept until the root's
// snapshot reaches the types stage (or the session ends).
type checks struct {
	mu     sync.Mutex
	byKey  map[string]*checkFlight
	serial int64 // the last check's serial (see checkFlight.id)
}

// checkFlight is one check; done is closed when it has ended.
type checkFlight struct {
	root string
	done chan struct{}
	res  Checked
	err  error
	// id is the negative snapshot id the check's views give their
	// repository: unlike any id of the session's store, so the caches
	// kept per snapshot (facts, file sets, watches) never mix the two.
	id int64

	mu      sync.Mutex
	views   int  // views reading the store
	dropped bool // no longer wanted: the last view closes the store
}

// start returns the check of ident in pkg in root, starting it unless a
// question already did. It runs until it ends or life does, whoever
// waits for it.
func (c *checks) start(life context.Context, check CheckFunc, root, repo, pkg, ident string) *checkFlight {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := root + "\x00" + pkg + "\x00" + ident
	if f, ok := c.byKey[key]; ok {
		return f
	}
	if c.byKey == nil {
		c.byKey = map[string]*checkFlight{}
	}
	c.serial++
	f := &checkFlight{root: root, done: make(chan struct{}), id: -c.serial}
	c.byKey[key] = f
	go func() {
		defer close(f.done)
		f.res, f.err = check(life, root, repo, pkg, ident)
	}()
	return f
}

// close drops every check (see drop).
func (c *checks) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.byKey {
		f.drop()
	}
	c.byKey = nil
}

// reached drops the checks of the roots whose snapshot among repos has
// reached the types stage: the questions read the index from now on.
func (c *checks) reached(repos []graph.RepositoryStatus) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byKey) == 0 {
		return
	}
	for _, rp := range repos {
		if !graph.StageReached(rp.Snapshot.Stage, graph.StageTypes) {
			continue
		}
		for key, f := range c.byKey {
			if f.root == rp.Root {
				f.drop()
				delete(c.byKey, key)
			}
		}
	}
}

// drop closes the check's store once it has ended and no view reads it:
// at once when it has (a server shutting down removes its directory
// before it exits), else when it ends.
func (f *checkFlight) drop() {
	closeDone := func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.dropped = true
		f.closeUnused()
	}
	select {
	case <-f.done:
		closeDone()
	default:
		go func() {
			<-f.done
			closeDone()
		}()
	}
}

// closeUnused closes the store of a dropped check no view reads. The
// caller holds f.mu.
func (f *checkFlight) closeUnused() {
	if f.dropped && f.views == 0 && f.res.Store != nil {
		f.res.Store.Close()
		f.res.Store = nil
	}
}

// OpenChecked is Open for a question about the uses of a declaration
// called ident of package pkg of rp, a repository of a root whose
// snapshot has not reached the types stage (a first index is under way):
// while the index goes on, the package and the packages that depend on
// it are checked on their own (see CheckFunc), and the view reads
// whichever comes first, that check or the index's types stage. Several
// questions about one name of a package share one check; none starts a
// second index. checked is the check's package count when the view reads
// it, 0 when it reads the session's store. Without a CheckFunc, or for a
// call that waits for the complete snapshot (a command line), it is Open
// for the types stage.
func (s *Session) OpenChecked(ctx context.Context, rp graph.RepositoryStatus, pkg, ident string, progress func(Progress)) (v *View, checked int, _ error) {
	typedCtx := WithStage(ctx, graph.StageTypes)
	if s.set.check == nil || s.set.stageOf(typedCtx) == "" || !s.IsRoot(rp.Root) {
		v, err := s.Open(typedCtx, progress)
		return v, 0, err
	}
	life := s.set.life
	if life == nil {
		life = context.Background()
	}
	f := s.checks.start(life, s.set.check, rp.Root, rp.Name, pkg, ident)
	type opened struct {
		v   *View
		err error
	}
	cctx, cancel := context.WithCancel(typedCtx)
	defer cancel()
	typed := make(chan opened, 1)
	go func() {
		v, err := s.Open(cctx, progress)
		typed <- opened{v, err}
	}()
	select {
	case o := <-typed:
		if o.err == nil || graph.CodeOf(o.err) != graph.CodeIndexNotReady {
			return o.v, 0, o.err
		}
		select {
		case <-f.done: // the check ended as the call's patience ran out
		default:
			return nil, 0, o.err
		}
		if f.err != nil {
			return nil, 0, o.err
		}
	case <-f.done:
		if f.err != nil {
			// The index's types stage answers, as without a check.
			o := <-typed
			return o.v, 0, o.err
		}
		cancel()
		if o := <-typed; o.err == nil {
			return o.v, 0, nil // the types stage came at the same moment
		}
	}
	v, err := f.view(ctx, s)
	if err != nil {
		// Dropped as the types stage came: read that.
		v, err := s.Open(typedCtx, progress)
		return v, 0, err
	}
	return v, f.res.Packages, nil
}

// view opens a view of the check for a request of s, its repository's
// snapshot id made the check's own (see checkFlight.id).
func (f *checkFlight) view(ctx context.Context, s *Session) (*View, error) {
	f.mu.Lock()
	if f.res.Store == nil {
		f.mu.Unlock()
		return nil, graph.Errorf(graph.CodeIndexNotReady, "the check of %s was dropped; call again", f.root)
	}
	r, err := f.res.Store.Read(ctx)
	if err == nil {
		f.views++
	}
	f.mu.Unlock()
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "opening the check")
	}
	release := func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.views--
		f.closeUnused()
	}
	repos, err := r.Repositories(ctx)
	if err != nil {
		r.Close()
		release()
		return nil, graph.Wrap(graph.CodeInternal, err, "listing repositories")
	}
	for i := range repos {
		repos[i].Snapshot.ID = f.id
	}
	return &View{s: s, r: r, repos: repos, used: map[string]bool{}, stale: map[string][]string{}, done: []func(){release}}, nil
}
