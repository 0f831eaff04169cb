package lsp

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Key identifies a pooled server: one process per server and workspace root.
type Key struct {
	Server string
	Root   string
}

// Pool keeps language servers between calls: started on first use, at
// most MaxServers at once (the least recently used idle one makes room),
// shut down after IdleTimeout unused but never while a call holds it, and
// restarted on the next call after dying, that call being told so.
type Pool struct {
	cfg  PoolConfig
	mu   sync.Mutex
	ents map[Key]*entry
	done chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

type entry struct {
	key      Key
	srv      *Server
	starting chan struct{} // non-nil while a caller starts the server
	inflight int
	used     time.Time
	capMB    int      // memory cap chosen by lsp_restart, 0 for the configured one
	notices  []string // told to the next caller (a restart, its reason)
}

// NewPool returns an empty pool; Close shuts its servers down.
func NewPool(cfg PoolConfig) *Pool {
	p := &Pool{cfg: cfg.withDefaults(), ents: map[Key]*entry{}, done: make(chan struct{})}
	p.wg.Add(1)
	go p.janitor()
	return p
}

// Config is the pool's configuration, defaults filled.
func (p *Pool) Config() PoolConfig { return p.cfg }

// Lease is a server held for one call. Notices are what the call's answer
// must tell: a restart and why, a server grown past the soft limit.
type Lease struct {
	*Server
	Notices []string
	p       *Pool
	e       *entry
	once    sync.Once
}

// Release returns the server to the pool.
func (l *Lease) Release() {
	l.once.Do(func() {
		l.p.mu.Lock()
		l.e.inflight--
		l.e.used = time.Now()
		l.p.mu.Unlock()
	})
}

// Acquire returns the server spec runs in root, starting it if needed.
func (p *Pool) Acquire(ctx context.Context, spec ServerSpec, root string) (*Lease, error) {
	key := Key{spec.Name, root}
	p.mu.Lock()
	select {
	case <-p.done:
		p.mu.Unlock()
		return nil, graph.Errorf(graph.CodeLSPUnavailable, "the language-server pool is shut down")
	default:
	}
	e := p.ents[key]
	if e == nil {
		if err := p.makeRoomLocked(); err != nil {
			p.mu.Unlock()
			return nil, err
		}
		e = &entry{key: key}
		p.ents[key] = e
	}
	e.inflight++
	e.used = time.Now()
	for {
		if e.srv != nil && !e.srv.Alive() {
			dead := e.srv
			e.srv = nil
			select { // let the reaper tell how it ended
			case <-dead.proc.exited:
			case <-time.After(500 * time.Millisecond):
			}
			note := fmt.Sprintf("%s was restarted: the previous process (pid %d) ended (%s)", dead.Name, dead.Pid(), orDefault(dead.proc.exitStatus(), "it stopped answering"))
			if t := dead.StderrTail(1500); t != "" {
				note += "; its stderr ended with:\n" + t
			}
			e.notices = append(e.notices, note)
			go dead.kill()
		}
		if e.srv != nil {
			break
		}
		if e.starting != nil {
			ch := e.starting
			p.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				p.mu.Lock()
				e.inflight--
				p.mu.Unlock()
				return nil, graph.Wrap(graph.CodeLSPTimeout, ctx.Err(), spec.Name+" is still starting; call again")
			}
			p.mu.Lock()
			if e.srv == nil {
				// The starter failed; its caller has the error. Try again.
				continue
			}
			continue
		}
		ch := make(chan struct{})
		e.starting = ch
		capMB := e.capMB
		if capMB == 0 {
			capMB = spec.MemoryMB
		}
		if capMB == 0 {
			capMB = p.cfg.MemoryMB
		}
		if capMB < 0 {
			capMB = 0
		}
		p.mu.Unlock()
		srv, err := startServer(ctx, spec, root, p.cfg, capMB)
		p.mu.Lock()
		e.starting = nil
		close(ch)
		if err != nil {
			e.inflight--
			if e.inflight == 0 && e.srv == nil && p.ents[key] == e {
				delete(p.ents, key)
			}
			p.mu.Unlock()
			return nil, err
		}
		e.srv = srv
	}
	l := &Lease{Server: e.srv, p: p, e: e, Notices: e.notices}
	e.notices = nil
	p.mu.Unlock()
	if soft := p.cfg.SoftMemoryMB; soft > 0 {
		if f := l.Footprint(); f.Total() > int64(soft)<<20 {
			l.Notices = append(l.Notices, fmt.Sprintf("SERVER LARGE: %s (pid %d) uses %d MiB (resident %d MiB + swap %d MiB in %d processes), above the soft limit of %d MiB; lsp_restart frees it",
				l.Name, l.Pid(), f.Total()>>20, f.RSSBytes>>20, f.SwapBytes>>20, f.Processes, soft))
		}
	}
	return l, nil
}

// makeRoomLocked shuts the least recently used idle server down when the
// pool is full; when every server is busy the call is refused.
func (p *Pool) makeRoomLocked() error {
	if len(p.ents) < p.cfg.MaxServers {
		return nil
	}
	var lru *entry
	for _, e := range p.ents {
		if e.inflight > 0 || e.starting != nil {
			continue
		}
		if lru == nil || e.used.Before(lru.used) {
			lru = e
		}
	}
	if lru == nil {
		return graph.Errorf(graph.CodeLSPUnavailable, "all %d language servers (max_servers) are busy; call again when one is done, or raise max_servers in sextant.toml", p.cfg.MaxServers)
	}
	p.removeLocked(lru)
	return nil
}

func (p *Pool) removeLocked(e *entry) {
	delete(p.ents, e.key)
	if e.srv != nil {
		srv := e.srv
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			srv.shutdown()
		}()
	}
}

// Restart shuts the server spec runs in root down (if it runs) and starts
// it again, with a new memory cap when capMB is not 0 (-1: none).
func (p *Pool) Restart(ctx context.Context, spec ServerSpec, root string, capMB int) (*Lease, error) {
	if err := CheckMemoryMB(capMB); err != nil {
		return nil, graph.Errorf(graph.CodeInvalidArgument, "%v", err).WithData("field", "memory_mb")
	}
	key := Key{spec.Name, root}
	p.mu.Lock()
	if e := p.ents[key]; e != nil {
		if e.starting != nil {
			p.mu.Unlock()
			return nil, graph.Errorf(graph.CodeLSPUnavailable, "%s is starting; call again when it is up", spec.Name)
		}
		if e.srv != nil {
			old := e.srv
			e.srv = nil
			p.mu.Unlock()
			old.shutdown()
			p.mu.Lock()
		}
		if capMB != 0 {
			e.capMB = capMB
		}
	} else if capMB != 0 {
		if err := p.makeRoomLocked(); err != nil {
			p.mu.Unlock()
			return nil, err
		}
		p.ents[key] = &entry{key: key, capMB: capMB, used: time.Now()}
	}
	p.mu.Unlock()
	return p.Acquire(ctx, spec, root)
}

// Running lists the servers with a live process, by key, sorted.
func (p *Pool) Running() []Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	var keys []Key
	for k, e := range p.ents {
		if e.srv != nil && e.srv.Alive() {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Server != keys[j].Server {
			return keys[i].Server < keys[j].Server
		}
		return keys[i].Root < keys[j].Root
	})
	return keys
}

// janitor shuts idle servers down.
func (p *Pool) janitor() {
	defer p.wg.Done()
	every := p.cfg.IdleTimeout.Duration / 4
	if every > time.Minute {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		p.mu.Lock()
		for _, e := range p.ents {
			if e.inflight == 0 && e.starting == nil && time.Since(e.used) >= p.cfg.IdleTimeout.Duration {
				p.removeLocked(e)
			}
		}
		p.mu.Unlock()
	}
}

// Close shuts every server down and waits until their processes are
// reaped. Calls holding a lease fail.
func (p *Pool) Close() {
	p.once.Do(func() {
		p.mu.Lock()
		close(p.done)
		for _, e := range p.ents {
			p.removeLocked(e)
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
