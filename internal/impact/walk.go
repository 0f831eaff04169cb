package impact

import (
	"context"
	"path"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// reached is one declaration a change reaches, and how: the step from the
// declaration one closer to the change (parent), and the weakest
// coverage on the way.
type reached struct {
	sym      *graph.Symbol // shared with the session's cache: read only
	depth    int
	coverage graph.Coverage
	via      string
	parent   string // key; "" for a changed declaration
	seed     string // key of the changed declaration the way back ends at
	test     string // testEntryKind of sym, once settled
}

// The ways a declaration is reached.
const (
	viaCall       = "call"
	viaReference  = "reference"
	viaInit       = "init"
	viaTestMain   = "test_main"
	viaReflection = "reflection" // a function that calls through reflection may call it
	viaChanged    = "changed"    // a changed declaration itself
	viaBreaks     = "breaks"     // code a breaking change breaks
)

// walker walks from changed declarations to the code that runs or
// uses them: callers through call edges (static, and candidate edges
// through interfaces and function values), and the declarations that
// reference them otherwise (a function value taken, a type, constant or
// variable used), level by level until nothing new is found or depth
// is reached. Test functions end a path: the testing framework calls
// them.
type walker struct {
	v        *session.View
	g        *cache
	repo     string
	maxDepth int // 0: no bound

	nodes     map[string]*reached
	order     []string          // keys in the order found
	initPkgs  map[string]string // packages whose initialisation runs a reached declaration, to the key that does
	testInit  map[string]string // package directories whose test files' initialisation does so, likewise
	varInit   map[string]bool   // package-level variables whose initialisers run reached code (runsAtInit)
	root      string            // the repository's directory
	cut       bool              // depth stopped the walk with more to find
	stopped   bool              // maxNodes stopped it
	fileLevel map[string]string // files with a use at file level (no enclosing declaration), to the key used
	// scriptUses: by file of TypeScript, JavaScript or Python, its uses
	// at file level of reached declarations
	scriptUses map[string][]scriptUse
}

// scriptUse is a use at file level of the reached declaration key.
type scriptUse struct {
	line     int
	key, via string
}

func newWalker(v *session.View, g *cache, repo, root string, depth int) *walker {
	return &walker{v: v, g: g, repo: repo, root: root, maxDepth: depth, nodes: map[string]*reached{},
		initPkgs: map[string]string{}, testInit: map[string]string{}, varInit: map[string]bool{}, fileLevel: map[string]string{},
		scriptUses: map[string][]scriptUse{}}
}

// weaker combines the coverage of a path with the coverage of one more
// step: package_level over candidate over exact.
func weaker(a, b graph.Coverage) graph.Coverage {
	if coverageRank(b) > coverageRank(a) {
		return b
	}
	return a
}

// coverageRank orders coverage from the surest: exact, candidate,
// package_level.
func coverageRank(c graph.Coverage) int {
	switch c {
	case graph.CoveragePackageLevel:
		return 2
	case graph.CoverageCandidate:
		return 1
	}
	return 0
}

// step is one way from a reached declaration (from) to one that calls or
// uses it (to).
type step struct {
	from, to string
	cov      graph.Coverage
	via      string
	// the call or use, for a step into a package-level variable, whose
	// initialiser may or may not run it (see runsAtInit)
	path      string
	line, col int
}

// walk runs from the seeds, surest paths first: every declaration reached
// through exact steps alone (static calls and uses) is found before any
// that needs a call through an interface or function value, and those
// before any reached only through package initialisation, so a
// declaration's coverage is that of its surest path, and its depth the
// length of the shortest path of that coverage. Within one coverage the
// walk goes level by level, reading each level's edges and uses at once.
func (w *walker) walk(ctx context.Context, seeds []graph.Symbol, seedVia map[string]string) error {
	// best holds what is known of a declaration found but not yet
	// expanded: the surest way to it so far.
	best := map[string]*reached{}
	var buckets [3][]string
	for _, s := range seeds {
		if _, ok := best[s.Key]; ok {
			continue
		}
		via := seedVia[s.Key]
		if via == "" {
			via = viaChanged
		}
		best[s.Key] = &reached{sym: &s, coverage: graph.CoverageExact, via: via, seed: s.Key}
		buckets[0] = append(buckets[0], s.Key)
	}
	for rank := 0; rank < len(buckets); rank++ {
		for len(buckets[rank]) > 0 {
			level := buckets[rank]
			buckets[rank] = nil
			// Settle this level: the surest way to each is known now.
			var expand []string
			for _, k := range level {
				n := best[k]
				if n == nil || coverageRank(n.coverage) != rank {
					continue // settled already, or surer in a lower bucket
				}
				delete(best, k)
				n.test = testEntryKind(n.sym)
				w.nodes[k] = n
				w.order = append(w.order, k)
				if n.depth == 0 || w.varInit[k] || n.sym.Kind != graph.KindVar {
					w.noteInit(n)
				}
				if n.test != "" && n.depth > 0 {
					continue // the testing framework calls it
				}
				if w.maxDepth > 0 && n.depth >= w.maxDepth {
					w.cut = true
					continue
				}
				expand = append(expand, k)
			}
			if len(expand) == 0 {
				continue
			}
			infos, err := w.steps(ctx, expand)
			if err != nil {
				return err
			}
			var want []string
			for _, info := range infos {
				for i := range info.steps {
					to := info.steps[i].to
					if _, ok := w.nodes[to]; !ok {
						if _, ok := best[to]; !ok {
							want = append(want, to)
						}
					}
				}
			}
			byKey, err := w.g.symbols(ctx, w.v.Reader(), want)
			if err != nil {
				return err
			}
			for idx, info := range infos {
				p := w.nodes[expand[idx]] // every step of info is from it
				for i := range info.steps {
					s := &info.steps[i]
					settled := w.nodes[s.to]
					var old *reached
					var to *graph.Symbol
					if settled != nil {
						to = settled.sym
					} else if old = best[s.to]; old != nil {
						to = old.sym
					} else {
						to = byKey[s.to]
					}
					if to == nil {
						continue // not in the index
					}
					if to.Kind == graph.KindVar && to.Parent == "" && !w.varInit[s.to] && w.runsAtInit(p, s) {
						w.varInit[s.to] = true
						if settled != nil {
							w.noteInit(settled)
						}
					}
					if settled != nil {
						continue
					}
					cov := weaker(p.coverage, s.cov)
					if old != nil && (coverageRank(old.coverage) < coverageRank(cov) ||
						coverageRank(old.coverage) == coverageRank(cov) && old.depth <= p.depth+1) {
						continue
					}
					if old == nil && len(w.nodes)+len(best) >= maxNodes {
						w.stopped = true
						continue
					}
					n := &reached{sym: to, depth: p.depth + 1, coverage: cov, via: s.via, parent: s.from, seed: p.seed}
					if s.cov == graph.CoveragePackageLevel {
						n.via = viaInit
					}
					best[s.to] = n
					buckets[coverageRank(cov)] = append(buckets[coverageRank(cov)], s.to)
				}
			}
		}
	}
	return nil
}

// steps returns the ways from the declarations expand to those that call
// or use them, in a stable order (that of expand, then of the index),
// and records the files that use them at file level.
func (w *walker) steps(ctx context.Context, expand []string) ([]*nodeSteps, error) {
	syms := make([]*graph.Symbol, len(expand))
	for i, k := range expand {
		syms[i] = w.nodes[k].sym
	}
	infos, err := w.g.stepsOf(ctx, w.v, syms)
	if err != nil {
		return nil, err
	}
	for i, info := range infos {
		for _, p := range info.fileLevel {
			if _, ok := w.fileLevel[p]; !ok {
				w.fileLevel[p] = expand[i]
			}
		}
		for _, u := range info.fileUses {
			w.scriptUses[u.path] = append(w.scriptUses[u.path], scriptUse{line: u.line, key: expand[i], via: u.via})
		}
	}
	return infos, nil
}

// runsAtInit reports whether the step s from p into a package-level
// variable is a call or use its initialiser makes when the package is
// initialised. Two are not: taking a reached function's value (var F =
// f), and a call inside a function literal stored in a composite literal
// (var A = &Analyzer{Run: func(p *Pass) { p.Report() }}), which runs when
// the stored function is called, through the variable's readers and the
// calls of its value, both walked from it.
func (w *walker) runsAtInit(p *reached, s *step) bool {
	if s.via == viaReference && s.cov == graph.CoverageExact && p.sym.Kind.IsFunction() {
		return false
	}
	if s.via == viaCall && s.path != "" && w.g.inStoredLiteral(w.root, s.path, s.line, s.col) {
		return false
	}
	return true
}

// noteInit records a reached declaration that runs when its package is
// initialised: an init function, or a package-level variable, whose
// initialiser is where a call or use in it happens.
func (w *walker) noteInit(n *reached) {
	s := n.sym
	if !s.IsGo() {
		return // a module's code runs as it is imported, not in a test binary
	}
	if (s.Kind == graph.KindVar && s.Parent == "") || (s.Kind == graph.KindFunc && s.Name == "init") {
		if s.TestOnly {
			// Declared in a _test.go file: only its package's test
			// binary has it.
			if d := path.Dir(s.Path); w.testInit[d] == "" {
				w.testInit[d] = s.Key
			}
		} else if _, ok := w.initPkgs[s.PackagePath]; !ok {
			w.initPkgs[s.PackagePath] = s.Key
		}
	}
}

// reach spells the path from a reached declaration back to the change.
func (w *walker) reach(key string) []string {
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
	// go/ast's Visitor, called by ast.Walk; its Node, by the printer and ast.Inspect.
	"Visit": true, "Pos": true, "End": true,
	// More of io, encoding, fmt, flag, container/heap, context, net,
	// net/http, database/sql, hash, log/slog and sync.
	"ReadAt": true, "WriteAt": true, "Seek": true, "ReadRune": true, "UnreadRune": true, "UnreadByte": true, "WriteByte": true, "WriteRune": true,
	"MarshalXML": true, "UnmarshalXML": true, "GobEncode": true, "GobDecode": true, "AppendText": true, "AppendBinary": true,
	"IsBoolFlag": true, "Deadline": true, "Done": true, "Err": true, "Flush": true, "Hijack": true, "Header": true, "WriteHeader": true,
	"Network": true, "LocalAddr": true, "RemoteAddr": true, "SetDeadline": true, "SetReadDeadline": true, "SetWriteDeadline": true, "Accept": true, "Addr": true,
	"Sum": true, "Reset": true, "BlockSize": true, "LogValue": true, "Enabled": true, "Handle": true, "WithAttrs": true, "WithGroup": true,
	"Lock": true, "Unlock": true, "Timeout": true, "Temporary": true,
}

// seedOf returns the changed declaration (or broken code) a reached
// declaration's way back ends at; the zero Symbol for an unknown key.
func (w *walker) seedOf(key string) graph.Symbol {
	if n := w.nodes[key]; n != nil {
		if s := w.nodes[n.seed]; s != nil {
			return *s.sym
		}
	}
	return graph.Symbol{}
}
