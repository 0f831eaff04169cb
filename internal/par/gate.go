package par

import (
	"context"
	"sync"
)

// Gate holds work of a lower priority back while work of a higher one
// runs: a server's whole index waits at its steps (Yield) while the
// check a question waits for holds the gate, so that on a machine of few
// cores the question's packages are checked first instead of sharing the
// cores with the whole repository's. The zero Gate is open.
type Gate struct {
	mu   sync.Mutex
	held int
	open chan struct{} // closed when held drops to 0; nil while never held
}

// Hold closes the gate until release is called (each Hold once; the
// gate opens when every holder has released it).
func (g *Gate) Hold() (release func()) {
	g.mu.Lock()
	if g.held == 0 {
		g.open = make(chan struct{})
	}
	g.held++
	g.mu.Unlock()
	return sync.OnceFunc(func() {
		g.mu.Lock()
		g.held--
		if g.held == 0 {
			close(g.open)
		}
		g.mu.Unlock()
	})
}

// Wait returns once the gate is open, or ctx has ended.
func (g *Gate) Wait(ctx context.Context) {
	g.mu.Lock()
	open, held := g.open, g.held > 0
	g.mu.Unlock()
	if !held {
		return
	}
	select {
	case <-open:
	case <-ctx.Done():
	}
}

type gateKey struct{}

// WithGate returns ctx carrying g, at which the work done under ctx
// waits between its steps (see Yield).
func WithGate(ctx context.Context, g *Gate) context.Context {
	return context.WithValue(ctx, gateKey{}, g)
}

// Yield waits at the gate ctx carries (see WithGate) while it is held;
// without one it returns at once. Long work calls it between steps (a
// package checked, a package extracted), so a step in progress finishes
// and the next waits.
func Yield(ctx context.Context) {
	if g, ok := ctx.Value(gateKey{}).(*Gate); ok {
		g.Wait(ctx)
	}
}
