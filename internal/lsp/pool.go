package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// readOnly are the requests that change nothing in the server or the
// files: sending one again to a restarted server is safe.
var readOnly = map[string]bool{
	"textDocument/hover": true, "textDocument/definition": true, "textDocument/declaration": true,
	"textDocument/typeDefinition": true, "textDocument/implementation": true, "textDocument/references": true,
	"textDocument/documentSymbol": true, "textDocument/completion": true, "textDocument/signatureHelp": true,
	"textDocument/documentHighlight": true, "textDocument/foldingRange": true, "textDocument/selectionRange": true,
	"textDocument/inlayHint": true, "textDocument/diagnostic": true, "textDocument/prepareCallHierarchy": true,
	"callHierarchy/incomingCalls": true, "callHierarchy/outgoingCalls": true, "workspace/symbol": true,
}

// Call is Server.Call with the retry of CallRaw.
func (l *Lease) Call(ctx context.Context, method string, params, result any) error {
	raw, err := l.CallRaw(ctx, method, params, 0)
	return decodeResult(l.Name, method, raw, err, result)
}

// CallRaw is Server.CallRaw, except that a read-only request is not lost
// to a server found dead, one killed (by a user, the OOM killer) between
// the pool's check and the call: when the server is dead or dying (a
// SIGKILL pending, see dying) before the request is sent, or the request
// cannot be written to it, the request
// goes to the restarted server instead, with the call's documents synced
// to it again, and the lease's Notices say the server was restarted and
// how the old one ended. A server that dies once it has the request is
// not sent it again: the request may be what killed it, and a caller
// must learn that it did.
func (l *Lease) CallRaw(ctx context.Context, method string, params any, timeout time.Duration) (json.RawMessage, error) {
	if readOnly[method] && (!l.Server.Alive() || dying(l.Server.Pid())) {
		l.restart(ctx) // when it cannot, the call fails on the dead one as before
	}
	raw, err := l.Server.CallRaw(ctx, method, params, timeout)
	if err == nil || !readOnly[method] || !errors.Is(err, errDied) || !errors.Is(err, errNotSent) {
		return raw, err
	}
	if !l.restart(ctx) {
		return raw, err
	}
	return l.Server.CallRaw(ctx, method, params, timeout)
}

// Sync is Server.Sync, on a restarted server when the lease's one is
// found dead.
func (l *Lease) Sync(abs, languageID string, text []byte) (string, error) {
	uri, err := l.Server.Sync(abs, languageID, text)
	if err == nil || !errors.Is(err, errDied) || !l.restart(context.Background()) {
		return uri, err
	}
	return l.Server.Sync(abs, languageID, text)
}

// restart replaces the lease's dead server by a live one (started unless
// another call already did), opens the dead one's documents on it, and
// adds the restart to the notices. It reports false when there is no
// live server with the same position encoding to go on with.
func (l *Lease) restart(ctx context.Context) bool {
	p, e, dead := l.p, l.e, l.Server
	if dead.Alive() {
		if !dying(dead.Pid()) {
			return false
		}
		// Killed and not yet gone: wait for the kernel to finish, so the
		// pool sees it dead.
		select {
		case <-dead.proc.exited:
		case <-time.After(2 * time.Second):
			return false
		}
	}
	p.mu.Lock()
	select {
	case <-p.done:
		p.mu.Unlock()
		return false
	default:
	}
	if p.ents[e.key] != e {
		p.mu.Unlock()
		return false
	}
	if err := p.serveLocked(ctx, e, dead.spec, dead.Root); err != nil {
		p.mu.Unlock()
		return false
	}
	srv, notices := e.srv, e.notices
	e.notices = nil
	p.mu.Unlock()
	if len(notices) == 0 { // another call restarted it and was told
		note := fmt.Sprintf("%s was restarted: the previous process (pid %d) ended (%s)", dead.Name, dead.Pid(), orDefault(dead.proc.exitStatus(), "it stopped answering"))
		if t := dead.StderrTail(1500); t != "" {
			note += "; its stderr ended with:\n" + t
		}
		notices = []string{note}
	}
	for i := range notices {
		notices[i] += "; the call was sent again to the new process (pid " + strconv.Itoa(srv.Pid()) + ")"
	}
	l.Server = srv
	l.Notices = append(l.Notices, notices...)
	if srv.Encoding() != dead.Encoding() {
		return false // the call's positions were converted for the old encoding
	}
	dead.mu.Lock()
	docs := make([]*document, 0, len(dead.docs))
	for _, d := range dead.docs {
		docs = append(docs, d)
	}
	dead.mu.Unlock()
	for _, d := range docs {
		if _, err := srv.Sync(URIPath(d.uri), d.languageID, d.text); err != nil {
			return false
		}
	}
	return true
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
	if err := p.serveLocked(ctx, e, spec, root); err != nil {
		e.inflight--
		if e.inflight == 0 && e.srv == nil && p.ents[key] == e {
			delete(p.ents, key)
		}
		p.mu.Unlock()
		return nil, err
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

// serveLocked makes e.srv a live server, restarting a dead one (and
// noting why in e.notices) or starting one, or waits for the caller
// already starting it. It is called and returns with p.mu held; the
// caller holds e (inflight).
func (p *Pool) serveLocked(ctx context.Context, e *entry, spec ServerSpec, root string) error {
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
				return graph.Wrap(graph.CodeLSPTimeout, ctx.Err(), spec.Name+" is still starting; call again")
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
			return err
		}
		e.srv = srv
	}
	return nil
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
	slices.SortFunc(keys, func(a, b Key) int {
		return cmp.Or(strings.Compare(a.Server, b.Server), strings.Compare(a.Root, b.Root))
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
