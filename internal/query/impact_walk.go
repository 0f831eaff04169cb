package query

import (
	"context"
	"sort"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// reached is one declaration a change reaches, and how: the step from the
// declaration one closer to the change (parent), and the weakest
// coverage on the way.
type reached struct {
	sym      graph.Symbol
	depth    int
	coverage graph.Coverage
	via      string
	parent   string // key; "" for a changed declaration
}

// The ways a declaration is reached.
const (
	viaCall      = "call"
	viaReference = "reference"
	viaInit      = "init"
	viaTestMain  = "test_main"
	viaChanged   = "changed" // a changed declaration itself
	viaBreaks    = "breaks"  // code a breaking change breaks
)

// impactWalk walks from changed declarations to the code that runs or
// uses them: callers through call edges (static, and candidate edges
// through interfaces and function values), and the declarations that
// reference them otherwise (a function value taken, a type, constant or
// variable used), level by level until nothing new is found or depth
// is reached. Test functions end a path: the testing framework calls
// them.
type impactWalk struct {
	v        *session.View
	repo     string
	maxDepth int // 0: no bound

	nodes     map[string]*reached
	order     []string          // keys in the order found
	initPkgs  map[string]string // packages whose initialisation runs a reached declaration, to the key that does
	cut       bool              // depth stopped the walk with more to find
	stopped   bool              // maxImpactNodes stopped it
	fileLevel map[string]string // files with a use at file level (no enclosing declaration), to the key used
}

func newImpactWalk(v *session.View, repo string, depth int) *impactWalk {
	return &impactWalk{v: v, repo: repo, maxDepth: depth, nodes: map[string]*reached{},
		initPkgs: map[string]string{}, fileLevel: map[string]string{}}
}

// weaker combines the coverage of a path with the coverage of one more
// step: package_level over candidate over exact.
func weaker(a, b graph.Coverage) graph.Coverage {
	rank := func(c graph.Coverage) int {
		switch c {
		case graph.CoveragePackageLevel:
			return 2
		case graph.CoverageCandidate:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// walk runs from the seeds.
func (w *impactWalk) walk(ctx context.Context, seeds []graph.Symbol, seedVia map[string]string) error {
	var frontier []string
	for _, s := range seeds {
		if _, ok := w.nodes[s.Key]; ok {
			continue
		}
		via := seedVia[s.Key]
		if via == "" {
			via = viaChanged
		}
		w.nodes[s.Key] = &reached{sym: s, coverage: graph.CoverageExact, via: via}
		w.order = append(w.order, s.Key)
		frontier = append(frontier, s.Key)
		w.noteInit(s)
	}
	for depth := 1; len(frontier) > 0; depth++ {
		var expand []string
		for _, k := range frontier {
			if testEntryKind(w.nodes[k].sym) == "" || w.nodes[k].depth == 0 {
				expand = append(expand, k)
			}
		}
		if len(expand) == 0 {
			break
		}
		if w.maxDepth > 0 && depth > w.maxDepth {
			w.cut = true
			break
		}
		type step struct {
			from, to string
			cov      graph.Coverage
			via      string
		}
		var steps []step
		edges, err := w.v.Reader().CallEdges(ctx, graph.EdgeQuery{Callees: expand})
		if err != nil {
			return graph.Wrap(graph.CodeInternal, err, "reading call edges")
		}
		valueTaken, err := w.valuesTaken(ctx, edges)
		if err != nil {
			return err
		}
		called := map[string]bool{}
		for _, e := range edges {
			if e.Caller == "" || e.Coverage == graph.CoverageUnresolved {
				continue
			}
			called[e.Callee] = true
			if e.Via == graph.ViaFuncValue && !valueTaken[e.Callee] {
				// A call of a function value that can only be a literal
				// inside the callee: the literal exists only once the
				// callee ran, so the tests that run it are among those
				// that reach the callee by its other callers.
				continue
			}
			steps = append(steps, step{from: e.Callee, to: e.Caller, cov: e.Coverage, via: viaCall})
		}
		refs, _, err := w.v.Reader().Refs(ctx, graph.RefQuery{Targets: expand, IncludeTests: true})
		if err != nil {
			return graph.Wrap(graph.CodeInternal, err, "reading references")
		}
		referenced := map[string]bool{}
		for _, r := range refs {
			if r.Kind == graph.RefImport {
				continue
			}
			referenced[r.Target] = true
			if r.Enclosing == "" {
				if _, ok := w.fileLevel[r.Path]; !ok {
					w.fileLevel[r.Path] = r.Target
				}
				continue
			}
			via := viaReference
			if r.Kind == graph.RefCall {
				via = viaCall
			}
			steps = append(steps, step{from: r.Target, to: r.Enclosing, cov: graph.CoverageExact, via: via})
		}
		// A method code outside the index may call through an interface
		// (sort calls Less, fmt calls String), or one nothing in the
		// index calls, runs where values of its type are made or
		// converted: those uses of the type stand for its callers.
		typeOf := map[string]string{}
		for _, k := range expand {
			n := w.nodes[k]
			if n.sym.Kind == graph.KindMethod && n.sym.Parent != "" && (outsideCalled[n.sym.Name] || !called[k] && !referenced[k]) {
				typeOf[n.sym.Parent] = k
			}
		}
		if len(typeOf) > 0 {
			trefs, _, err := w.v.Reader().Refs(ctx, graph.RefQuery{Targets: sortedKeys(typeOf), IncludeTests: true,
				Kinds: []graph.RefKind{graph.RefType, graph.RefRead, graph.RefCall}})
			if err != nil {
				return graph.Wrap(graph.CodeInternal, err, "reading uses of types")
			}
			for _, r := range trefs {
				if r.Enclosing != "" {
					steps = append(steps, step{from: typeOf[r.Target], to: r.Enclosing, cov: graph.CoverageCandidate, via: viaReference})
				}
			}
		}
		// Stable order: by the far end, then exact steps first.
		sort.SliceStable(steps, func(i, j int) bool {
			if steps[i].to != steps[j].to {
				return steps[i].to < steps[j].to
			}
			return weaker(steps[i].cov, steps[j].cov) == steps[j].cov && steps[i].cov != steps[j].cov
		})
		var want []string
		for _, s := range steps {
			if _, ok := w.nodes[s.to]; !ok {
				want = append(want, s.to)
			}
		}
		syms, err := w.v.Reader().SymbolsByKeys(ctx, dedupe(want))
		if err != nil {
			return graph.Wrap(graph.CodeInternal, err, "reading declarations")
		}
		byKey := make(map[string]graph.Symbol, len(syms))
		for _, s := range syms {
			byKey[s.Key] = s
		}
		var next []string
		for _, s := range steps {
			if _, ok := w.nodes[s.to]; ok {
				continue
			}
			sym, ok := byKey[s.to]
			if !ok {
				continue
			}
			if len(w.nodes) >= maxImpactNodes {
				w.stopped = true
				break
			}
			p := w.nodes[s.from]
			n := &reached{sym: sym, depth: depth, coverage: weaker(p.coverage, s.cov), via: s.via, parent: s.from}
			if s.cov == graph.CoveragePackageLevel {
				n.via = viaInit
			}
			w.nodes[s.to] = n
			w.order = append(w.order, s.to)
			next = append(next, s.to)
			w.noteInit(sym)
		}
		frontier = next
	}
	return nil
}

// noteInit records a reached declaration that runs when its package is
// initialised: an init function, or a package-level variable, whose
// initialiser is where a call or use in it happens.
func (w *impactWalk) noteInit(s graph.Symbol) {
	if (s.Kind == graph.KindVar && s.Parent == "") || (s.Kind == graph.KindFunc && s.Name == "init") {
		if _, ok := w.initPkgs[s.PackagePath]; !ok {
			w.initPkgs[s.PackagePath] = s.Key
		}
	}
}

// reach spells the path from a reached declaration back to the change.
func (w *impactWalk) reach(key string) []string {
	var out []string
	for k := key; k != ""; {
		n := w.nodes[k]
		out = append(out, n.sym.QualifiedName)
		k = n.parent
		if len(out) > 64 {
			break
		}
	}
	return out
}

// valuesTaken reports which callees of func-value edges have their value
// taken somewhere (a read reference), so that a call through a function
// value may reach them as themselves and not only through a literal they
// contain.
func (w *impactWalk) valuesTaken(ctx context.Context, edges []graph.CallEdge) (map[string]bool, error) {
	var keys []string
	for _, e := range edges {
		if e.Via == graph.ViaFuncValue && e.Callee != "" {
			keys = append(keys, e.Callee)
		}
	}
	out := map[string]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	refs, _, err := w.v.Reader().Refs(ctx, graph.RefQuery{Targets: dedupe(keys), Kinds: []graph.RefKind{graph.RefRead}, IncludeTests: true})
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading function values")
	}
	for _, r := range refs {
		out[r.Target] = true
	}
	return out, nil
}

// outsideCalled are the names of methods of the standard library's
// interfaces that its code calls on values it is given: a method of one
// of these names may run without any call in the index naming it.
var outsideCalled = map[string]bool{
	"String": true, "GoString": true, "Format": true, "Error": true, "Unwrap": true, "Is": true, "As": true,
	"Len": true, "Less": true, "Swap": true, "Push": true, "Pop": true,
	"Read": true, "Write": true, "Close": true, "ReadFrom": true, "WriteTo": true, "ReadByte": true, "WriteString": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true, "MarshalBinary": true, "UnmarshalBinary": true,
	"ServeHTTP": true, "RoundTrip": true, "Set": true, "Get": true, "Type": true, "Scan": true, "Value": true,
	// go/types' Importer, called by the type checker.
	"Import": true, "ImportFrom": true,
	// io/fs: a file system handed to fs.WalkDir, fs.ReadFile, http.FS.
	"Open": true, "Stat": true, "ReadDir": true, "ReadFile": true, "Sub": true, "Glob": true,
	"Name": true, "Size": true, "Mode": true, "ModTime": true, "IsDir": true, "Sys": true, "Info": true,
}

// seedOf returns the changed declaration (or broken code) a reached
// declaration's way back ends at; the zero Symbol for an unknown key.
func (w *impactWalk) seedOf(key string) graph.Symbol {
	for i := 0; key != "" && i < 1<<16; i++ {
		n := w.nodes[key]
		if n == nil {
			break
		}
		if n.parent == "" {
			return n.sym
		}
		key = n.parent
	}
	return graph.Symbol{}
}
