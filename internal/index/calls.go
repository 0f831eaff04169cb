package index

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
	"github.com/sextant-dev/sextant/internal/load"
)

// Call edges come from internal/index/callgraph, which builds SSA for a
// whole load unit and names both ends of every edge by the position of
// their declaring identifier (plus a package-qualified name). Like
// references, the positions are kept and resolved to keys once every
// package is extracted.

// pendingEdge is a call edge waiting for its ends to be resolved.
type pendingEdge struct {
	caller, callee target // callee.file < 0 when the callee is outside the repository
	calleeName     int32  // interned package-qualified name of the callee, -1 for none
	path           int32  // interned repo-relative path of the call site
	line, col      int32  // col counts characters
	coverage       graph.Coverage
	via            graph.Via
	goStmt, defer_ bool
}

// startCallEdges computes the call edges of one load unit and keeps them for
// resolution. It must run on every package of the unit (test variants
// included) before their syntax and types are released. A failure other
// than ctx ending leaves the unit without edges and is returned as a
// diagnostic message for the caller to record, as is the note of a unit
// whose method sets were too large (callgraph.Result.MethodSets).
//
// It runs in two halves so the call graph overlaps extraction: startCallEdges
// takes what the build needs from the unit before returning, so the caller
// may extract and release the packages while the build goes on in the
// background; finishCallEdges waits for it and keeps the edges.
//
// With a stream, the build hands its edges to the stream as it finds them
// (callgraph.Options.Emit), and streamCallEdges, not finishCallEdges,
// finishes it.
func (x *extractor) startCallEdges(ctx context.Context, unit []*packages.Package, stream *edgeStream) *callgraph.Pending {
	// InRepo runs on the build's goroutine, beside extraction: it must not
	// touch the extractor's tables, so it asks the pure path test.
	opts := callgraph.Options{
		InRepo:      func(filename string) bool { _, ok := x.rel(filename); return ok },
		Paced:       true, // see Index: packages are built as they are extracted
		Visit:       x.effectsVisit(),
		KeepBody:    x.effectsKeep(),
		MaxVTACalls: x.maxVTACalls,
	}
	if stream != nil {
		opts.Emit = stream.raw.put
	}
	return callgraph.Start(ctx, unit, opts)
}

// finishCallEdges waits for the build startCallEdges began and keeps its
// edges for resolution.
func (x *extractor) finishCallEdges(ctx context.Context, pending *callgraph.Pending) (string, error) {
	res, err := pending.Wait()
	x.noteAlgorithm(res)
	lines := siteFiles{} // site files, read once each to count characters
	x.keepEffects(err == nil && res != nil, lines)
	if err != nil {
		return failedCallGraph(ctx, err)
	}
	if res != nil {
		x.keepEdges(res.Edges, lines)
		return res.MethodSets, nil // "" unless capped
	}
	return "", nil
}

// failedCallGraph is what finishing a call graph whose build failed with
// err returns: ctx's error when it ended, else a diagnostic message.
func failedCallGraph(ctx context.Context, err error) (string, error) {
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return fmt.Sprintf("call graph not computed: %v", err), nil
}

// edgeStream carries the last unit's call edges from its build to the
// writer while the build is still reading calls: raw batches from the
// build to streamCallEdges, which resolves them, and resolved batches
// from there to the writer (see Index).
type edgeStream struct {
	raw      *queue[[]callgraph.Edge]
	resolved *queue[[]graph.CallEdge]
}

func newEdgeStream() *edgeStream {
	return &edgeStream{raw: newQueue[[]callgraph.Edge](), resolved: newQueue[[]graph.CallEdge]()}
}

// streamCallEdges is finishCallEdges for a build started with s: it
// resolves the edges kept so far (those of earlier units), then each batch
// the build emits, handing them to s.resolved, which it closes when the
// build ends. It resolves, so it must run once every package is kept; the
// writer reads s.resolved meanwhile. Edges emitted before a build fails
// stay: the failure is reported as finishCallEdges reports it.
func (x *extractor) streamCallEdges(ctx context.Context, pending *callgraph.Pending, s *edgeStream) (string, error) {
	defer s.resolved.close()
	go func() {
		pending.Wait() // opens the gate; every batch is emitted before it returns
		s.raw.close()
	}()
	if out := x.resolvedCallEdges(); len(out) > 0 {
		s.resolved.put(out)
	}
	lines := siteFiles{}
	for {
		batch, ok := s.raw.next()
		if !ok {
			break
		}
		x.keepEdges(batch, lines)
		if out := x.resolvedCallEdges(); len(out) > 0 {
			s.resolved.put(out)
		}
	}
	res, err := pending.Wait()
	x.noteAlgorithm(res)
	x.keepEffects(err == nil && res != nil, lines)
	if err != nil {
		return failedCallGraph(ctx, err)
	}
	if res != nil {
		return res.MethodSets, nil // "" unless capped
	}
	return "", nil
}

// noteAlgorithm sets x.coarse when res, a unit's call graph, was
// resolved with CHA only because x.maxVTACalls is below the default.
func (x *extractor) noteAlgorithm(res *callgraph.Result) {
	if res != nil && res.Algorithm == callgraph.CHA && res.Stats.Calls <= callgraph.DefaultMaxVTACalls {
		x.coarse = true
	}
}

// keepEdges keeps the build's edges for resolution, those called from
// outside the root left out.
func (x *extractor) keepEdges(edges []callgraph.Edge, lines siteFiles) {
	t := &x.xt
	first := len(t.edges)
	for _, e := range edges {
		rel, ok := x.rel(e.Site.Filename)
		if !ok || !e.Caller.Pos.IsValid() || x.large.has(e.Site.Filename) {
			continue
		}
		pe := pendingEdge{
			caller:     x.funcTarget(e.Caller),
			callee:     x.funcTarget(e.Callee),
			calleeName: -1,
			path:       t.intern(rel),
			line:       int32(e.Site.Line),
			col:        int32(lines.charColumnAt(e.Site.Filename, e.Site.Line, e.Site.Col)),
			coverage:   e.Coverage,
			via:        e.Via,
			goStmt:     e.Go,
			defer_:     e.Defer,
		}
		if e.Callee.Name != "" {
			pe.calleeName = t.intern(e.Callee.Name)
		}
		// A call may reach a function both as itself and through a
		// literal it contains (Edge.Literal), adjacent in the build's
		// order; the stored edge does not tell them apart.
		if n := len(t.edges); n > first && t.edges[n-1] == pe {
			continue
		}
		t.edges = append(t.edges, pe)
	}
}

// funcTarget turns one end of an edge into a target: its declaring
// position, its identifier and, for a method, its receiver's name.
func (x *extractor) funcTarget(f callgraph.Func) target {
	to := target{site: site{file: -1}, owner: -1}
	if !f.Pos.IsValid() {
		return to
	}
	file := x.rootFile(f.Pos.Filename)
	if file < 0 {
		return to
	}
	// Name is "path.Name" or "path.Recv.Name"; the path may itself hold
	// dots, but not after its last slash.
	name := f.Name
	rest := name[strings.LastIndexByte(name, '/')+1:]
	parts := strings.Split(rest, ".")
	to.file, to.line, to.col = file, int32(f.Pos.Line), int32(f.Pos.Col)
	to.name = x.xt.intern(parts[len(parts)-1])
	if len(parts) >= 3 {
		to.owner = x.xt.intern(parts[len(parts)-2])
	}
	return to
}

// resolvedCallEdges resolves the kept call edges, dropping those whose
// caller is not in the graph (a package left out, say). A callee outside
// the graph is named by CalleeName. It releases the pending edges.
func (x *extractor) resolvedCallEdges() []graph.CallEdge {
	t := &x.xt
	out := make([]graph.CallEdge, 0, len(t.edges))
	for _, e := range t.edges {
		caller := t.resolve(e.caller)
		if caller == "" {
			continue
		}
		ce := graph.CallEdge{
			Caller:   caller,
			Path:     t.strs[e.path],
			Line:     int(e.line),
			Col:      int(e.col),
			Coverage: e.coverage,
			Via:      e.via,
			Go:       e.goStmt,
			Defer:    e.defer_,
		}
		if e.callee.file >= 0 {
			ce.Callee = t.resolve(e.callee)
		}
		if ce.Callee == "" && e.calleeName >= 0 {
			ce.CalleeName = t.strs[e.calleeName]
		}
		out = append(out, ce)
	}
	t.edges = nil
	return out
}

// largeFiles says which files are over load.LargeFileLimit, by absolute
// name, each statted once: their function bodies were not checked, and
// a call from what was (a variable's initializer) is left out with their
// references. The call graph asks from its own goroutine.
type largeFiles struct {
	mu    sync.Mutex
	sizes map[string]bool
}

func (l *largeFiles) has(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	large, ok := l.sizes[name]
	if !ok {
		info, err := os.Stat(name)
		large = err == nil && info.Size() > int64(load.LargeFileLimit())
		if l.sizes == nil {
			l.sizes = map[string]bool{}
		}
		l.sizes[name] = large
	}
	return large
}
