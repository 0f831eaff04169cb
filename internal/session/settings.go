package session

import (
	"context"
	"sync"
	"time"
)

// Settings are how a session behaves, as the command that made it wants:
// whether a stale root is refreshed before an answer, how long a call
// waits for an indexing run, what ends the runs, whether views are
// narrowed to the roots, whether freshness checks use a directory watch.
// A server sets them from its flags before the first call; a command
// line keeps the defaults.
type Settings struct {
	canIndex   bool            // the session has an IndexFunc: SetRefresh may turn refreshing on
	refresh    bool            // re-index a stale root before answering (see SetRefresh)
	noDirWatch bool            // see SetDirWatch
	patience   time.Duration   // how long a call waits for indexing by default (see SetPatience)
	bounded    bool            // patience was set: without, a call waits until the run ends
	life       context.Context // ends the indexing runs (see SetLifetime); nil: never
	check      CheckFunc       // checks part of a repository ahead of its index (see SetCheck); nil: never

	mu     sync.Mutex
	scoped bool // views hold the roots' repositories only (see SetScope)
}

// SetRefresh turns refreshing on or off (on by default when the session
// can index). On, a call that finds a root's snapshot stale re-indexes the
// root before answering, so an answer never describes code older than the
// disk when the call began; concurrent calls share one run. Off, such
// answers say fresh: false and why.
func (c *Settings) SetRefresh(on bool) { c.refresh = on && c.canIndex }

// SetDirWatch turns on or off (on by default, where inotify is
// available) the directory watch by which a freshness check that saw no
// change since the last one answers without statting every file. Off,
// every check stats; benchmarks compare the two. Set it before the first
// call.
func (c *Settings) SetDirWatch(on bool) { c.noDirWatch = !on }

// SetPatience sets how long a call that names no patience of its own
// waits for the indexing run of its root (0: not at all). Unset, such a
// call waits until the run ends, as a command line wants.
func (c *Settings) SetPatience(d time.Duration) { c.patience, c.bounded = max(d, 0), true }

// SetLifetime ties the indexing runs to ctx: they outlive the calls that
// started them, but not the server, whose shutdown cancels them.
func (c *Settings) SetLifetime(ctx context.Context) { c.life = ctx }

// SetCheck lets a question about the uses of a declaration, asked while
// the first index of its root has not reached the types stage, be
// answered from a check of the declaration's package and its dependents
// alone (see Session.OpenChecked). Set it before the first call.
func (c *Settings) SetCheck(check CheckFunc) { c.check = check }

// SetScope narrows every view to the repositories of the roots when on:
// those whose root is one of the roots, lies under one or holds one. A
// command run inside a repository answers about that repository, not
// about every repository its database has held (other clones of the same
// module, say). Off (the default), or with no roots (a command run
// outside any repository), a view holds every repository of the store,
// as a server over a shared graph must.
func (c *Settings) SetScope(on bool) {
	c.mu.Lock()
	c.scoped = on
	c.mu.Unlock()
}

// isScoped reports what SetScope set.
func (c *Settings) isScoped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scoped
}

// stageOf returns the earliest stage the call of ctx may read, "" for the
// complete snapshot only: a call that names one, in a session whose calls
// have a patience (a server). A command line waits for the complete
// index whatever it asks, so that the one run it starts finishes.
func (c *Settings) stageOf(ctx context.Context) string {
	stage, _ := ctx.Value(stageKey{}).(string)
	if !c.bounded {
		return ""
	}
	return stage
}

// patienceOf returns how long the call of ctx waits, and whether it waits
// at all before giving up (false: until the run ends).
func (c *Settings) patienceOf(ctx context.Context) (time.Duration, bool) {
	if d, ok := ctx.Value(patienceKey{}).(time.Duration); ok {
		return d, true
	}
	return c.patience, c.bounded
}
