package impact

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// cache is what get_impact reads of one repository in one pinned set
// of snapshots, kept in the session (session.Facts.Memo) for the calls
// that follow: the call edges into each function, the uses of each
// declaration, the declarations, the packages, who imports each package
// and the tests of each package directory. Edges, uses and declarations
// are read from the index the first time a walk needs them, the rest on
// first use; a snapshot never changes, so nothing read goes stale.
type cache struct {
	repo string

	mu      sync.Mutex
	callers map[string][]graph.CallEdge // by callee; an empty slice: none
	uses    map[string][]graph.Ref      // by target, uses in tests included
	syms    map[string]*graph.Symbol    // by key; nil: not in the index
	// nodeSteps: by key, what the walk derives from the above
	nodeSteps map[string]*nodeSteps
	// versions: parsed old sides of diffs, by name and content, for the
	// calls that follow (see parseVersion)
	versions     map[versionKey]*keptVersion
	versionBytes int    // the content the versions kept have
	versionMax   int    // the most content kept: maxVersionBytes, or less in tests
	versionUses  uint64 // a clock of their uses
	// stored: by file, the function literals stored in composite
	// literals at package level (see inStoredLiteral)
	stored map[string]*storedLiterals

	pkgsOnce lazy
	pkgs     []graph.Package
	pkgDirs  map[string][]graph.Package // by directory
	dirOf    map[string]string          // import path to directory
	imports  map[string][]graph.Ref     // import path to the imports of it
	pkgOfKey map[string]string          // package symbol key to import path

	tests testIndex

	testImpsOnce lazy
	testImps     map[string][]string // by package directory: what its _test.go files import, read from the disk

	linked map[string]map[string]string // by import path: linkers of it alone (read only)

	scriptTests map[string]keptScriptTests // by test file of TypeScript, JavaScript or Python

	// recorded: the tests the test recording has coverage of (dir and
	// name), as read at recordedAt (a recording's version: see
	// graph.TestRecorder.RecordTests)
	recordedAt time.Time
	recorded   map[testID]bool
}

// cacheOf returns the session's cache of repo for the
// snapshots v pinned.
func cacheOf(ctx context.Context, v *session.View, repo string) (*cache, error) {
	facts, err := v.Facts(ctx, repo)
	if err != nil {
		return nil, err
	}
	g, err := facts.Memo("impact\x00"+v.Key(nil), func() (any, error) {
		return &cache{repo: repo, versionMax: maxVersionBytes, callers: map[string][]graph.CallEdge{}, uses: map[string][]graph.Ref{},
			syms: map[string]*graph.Symbol{}}, nil
	})
	if err != nil {
		return nil, err
	}
	return g.(*cache), nil
}

// missing returns the keys of keys (deduplicated) that have is false.
func missing(keys []string, has func(string) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k] && !has(k) {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// memoRows returns the rows memo holds for keys, in the order of keys,
// reading those of the keys it lacks at once with read and filing them by
// keyOf (a key with none gets an empty slice).
func memoRows[T any](g *cache, memo map[string][]T, keys []string, read func(want []string) ([]T, error), keyOf func(T) string) ([]T, error) {
	g.mu.Lock()
	want := missing(keys, func(k string) bool { _, ok := memo[k]; return ok })
	g.mu.Unlock()
	if len(want) > 0 {
		rows, err := read(want)
		if err != nil {
			return nil, err
		}
		by := make(map[string][]T, len(want))
		for _, k := range want {
			by[k] = []T{}
		}
		for _, x := range rows {
			by[keyOf(x)] = append(by[keyOf(x)], x)
		}
		g.mu.Lock()
		for k, xs := range by {
			memo[k] = xs
		}
		g.mu.Unlock()
	}
	var out []T
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range graph.Dedupe(keys) {
		out = append(out, memo[k]...)
	}
	return out, nil
}

// callEdges returns the call edges into the functions keys, in the order
// of keys.
func (g *cache) callEdges(ctx context.Context, r graph.Reader, keys []string) ([]graph.CallEdge, error) {
	return memoRows(g, g.callers, keys, func(want []string) ([]graph.CallEdge, error) {
		edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callees: want})
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading call edges")
		}
		return edges, nil
	}, func(e graph.CallEdge) string { return e.Callee })
}

// refs returns the uses of keys of the kinds given (all when none), uses
// in tests included, in the order of keys.
func (g *cache) refs(ctx context.Context, r graph.Reader, keys []string, kinds ...graph.RefKind) ([]graph.Ref, error) {
	all, err := memoRows(g, g.uses, keys, func(want []string) ([]graph.Ref, error) {
		refs, _, err := r.Refs(ctx, graph.RefQuery{Targets: want, IncludeTests: true})
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading references")
		}
		return refs, nil
	}, func(x graph.Ref) string { return x.Target })
	if err != nil || len(kinds) == 0 {
		return all, err
	}
	out := all[:0:0]
	for _, x := range all {
		if slices.Contains(kinds, x.Kind) {
			out = append(out, x)
		}
	}
	return out, nil
}

// symbols returns the declarations of keys the index has, by key (read
// only: they are the cache's).
func (g *cache) symbols(ctx context.Context, r graph.Reader, keys []string) (map[string]*graph.Symbol, error) {
	g.mu.Lock()
	want := missing(keys, func(k string) bool { _, ok := g.syms[k]; return ok })
	g.mu.Unlock()
	if len(want) > 0 {
		syms, err := r.SymbolsByKeys(ctx, want)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading declarations")
		}
		g.mu.Lock()
		for _, k := range want {
			g.syms[k] = nil
		}
		for i := range syms {
			s := syms[i]
			g.syms[s.Key] = &s
		}
		g.mu.Unlock()
	}
	out := make(map[string]*graph.Symbol, len(keys))
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range keys {
		if s := g.syms[k]; s != nil {
			out[k] = s
		}
	}
	return out, nil
}

// loadPackages reads the repository's packages and who imports each.
func (g *cache) loadPackages(ctx context.Context, r graph.Reader) error {
	return g.pkgsOnce.do(func() error {
		pkgs, err := r.Packages(ctx, g.repo)
		if err != nil {
			return graph.Wrap(graph.CodeInternal, err, "reading packages")
		}
		g.pkgs, g.pkgDirs, g.dirOf, g.pkgOfKey = pkgs, map[string][]graph.Package{}, map[string]string{}, map[string]string{}
		paths := make([]string, 0, len(pkgs))
		for _, p := range pkgs {
			g.pkgDirs[p.Dir] = append(g.pkgDirs[p.Dir], p)
			g.dirOf[p.Path] = p.Dir
			paths = append(paths, p.Path)
			for _, k := range graph.PackageKeys(g.repo, []string{p.Path}) {
				g.pkgOfKey[k] = p.Path
			}
		}
		refs, _, err := r.Refs(ctx, graph.RefQuery{Targets: graph.PackageKeys(g.repo, paths), Kinds: []graph.RefKind{graph.RefImport}, IncludeTests: true})
		if err != nil {
			return graph.Wrap(graph.CodeInternal, err, "reading imports")
		}
		g.imports = map[string][]graph.Ref{}
		for _, x := range refs {
			p := g.pkgOfKey[x.Target]
			g.imports[p] = append(g.imports[p], x)
		}
		return nil
	})
}

// testIndex is the tests of one repository, read from the index once:
// by package directory, and by package directory and name.
type testIndex struct {
	once  lazy
	byDir map[string][]Test // by package directory, TestMain excluded
	named map[string]Test   // by package directory and name: the first so named in byDir
}

// in returns every test function of the package directory dir (a copy
// the caller may change).
func (x *testIndex) in(ctx context.Context, r graph.Reader, repo, dir string) ([]Test, error) {
	if err := x.load(ctx, r, repo); err != nil {
		return nil, err
	}
	return append([]Test(nil), x.byDir[dir]...), nil
}

// namedIn returns the test named name of the package directory dir, the
// first in source order when several are (in files of other build
// constraints), and whether there is one.
func (x *testIndex) namedIn(ctx context.Context, r graph.Reader, repo, dir, name string) (Test, bool, error) {
	if err := x.load(ctx, r, repo); err != nil {
		return Test{}, false, err
	}
	t, ok := x.named[dir+"\x00"+name]
	return t, ok, nil
}

// load reads the tests of repo once.
func (x *testIndex) load(ctx context.Context, r graph.Reader, repo string) error {
	return x.once.do(func() error {
		tests := map[string][]Test{}
		for _, name := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
			syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: name, Mode: graph.MatchPrefix, Kinds: []graph.Kind{graph.KindFunc},
				Repositories: []string{repo}, Brief: true})
			if err != nil {
				return graph.Wrap(graph.CodeInternal, err, "listing tests")
			}
			for _, s := range syms {
				kind := testEntryKind(&s)
				if kind == "" || kind == testKindMain {
					continue
				}
				d := path.Dir(s.Path)
				tests[d] = append(tests[d], Test{Name: s.Name, Kind: kind, Package: s.PackagePath, Dir: d, Path: s.Path, Line: s.StartLine})
			}
		}
		named := map[string]Test{}
		for d, ts := range tests {
			sort.SliceStable(ts, func(i, j int) bool {
				return ts[i].Path < ts[j].Path || ts[i].Path == ts[j].Path && ts[i].Line < ts[j].Line
			})
			for _, t := range ts {
				if _, ok := named[d+"\x00"+t.Name]; !ok {
					named[d+"\x00"+t.Name] = t
				}
			}
		}
		x.byDir, x.named = tests, named
		return nil
	})
}

// testImports returns the import paths of the _test.go files of the
// repository, by package directory, read from the disk under root.
func (g *cache) testImports(ctx context.Context, v *session.View, root string) (map[string][]string, error) {
	err := g.testImpsOnce.do(func() error {
		files, err := v.Reader().Files(ctx, g.repo)
		if err != nil {
			return graph.Wrap(graph.CodeInternal, err, "reading files")
		}
		imps := map[string][]string{}
		for _, f := range files {
			if f.Test && !f.Ignored && strings.HasSuffix(f.Path, ".go") {
				d := path.Dir(f.Path)
				imps[d] = append(imps[d], v.FileImports(root, f.Path)...)
			}
		}
		g.testImps = imps
		return nil
	})
	return g.testImps, err
}

// linkersOf is linkers of the one package p, kept for the calls that
// follow (read only).
func (g *cache) linkersOf(ctx context.Context, v *session.View, root, p string) (map[string]string, error) {
	g.mu.Lock()
	l, ok := g.linked[p]
	g.mu.Unlock()
	if ok {
		return l, nil
	}
	l, err := g.linkers(ctx, v, root, []string{p})
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.linked == nil {
		g.linked = map[string]map[string]string{}
	}
	g.linked[p] = l
	return l, nil
}

// lazy runs a function until it succeeds once: what a failed or
// cancelled call left unread is read again by the next.
type lazy struct {
	mu   sync.Mutex
	done bool
}

func (l *lazy) do(f func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return nil
	}
	if err := f(); err != nil {
		return err
	}
	l.done = true
	return nil
}

// nodeSteps is what the walk needs of one declaration: the ways to those
// that call or use it, and the files that use it at file level.
type nodeSteps struct {
	steps     []step
	fileLevel []string  // Go files
	fileUses  []fileUse // uses in files of the languages read through SCIP
}

// fileUse is a use at file level in a file of TypeScript, JavaScript or
// Python: in a test file, the test blocks around its line run it.
type fileUse struct {
	path string
	line int
	via  string // call or reference
}

// stepsOf returns the nodeSteps of each of syms, in order, working out
// those not known yet from the index at once.
func (g *cache) stepsOf(ctx context.Context, v *session.View, syms []*graph.Symbol) ([]*nodeSteps, error) {
	out := make([]*nodeSteps, len(syms))
	var todo []*graph.Symbol
	g.mu.Lock()
	if g.nodeSteps == nil {
		g.nodeSteps = map[string]*nodeSteps{}
	}
	for i, s := range syms {
		if ns, ok := g.nodeSteps[s.Key]; ok {
			out[i] = ns
		} else {
			todo = append(todo, s)
		}
	}
	g.mu.Unlock()
	if len(todo) == 0 {
		return out, nil
	}
	made, err := g.makeSteps(ctx, v, todo)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, ns := range made {
		g.nodeSteps[k] = ns
	}
	for i, s := range syms {
		if out[i] == nil {
			out[i] = g.nodeSteps[s.Key]
		}
	}
	return out, nil
}

// makeSteps works out the nodeSteps of syms: callers through call edges
// (static, and candidate edges through interfaces and function values),
// the declarations that use them otherwise (a function value taken, a
// type, constant or variable used), and for methods that code outside
// the index or reflection may call, what stands for their callers.
func (g *cache) makeSteps(ctx context.Context, v *session.View, syms []*graph.Symbol) (map[string]*nodeSteps, error) {
	r := v.Reader()
	keys := make([]string, 0, len(syms))
	made := make(map[string]*nodeSteps, len(syms))
	for _, s := range syms {
		if _, ok := made[s.Key]; !ok {
			keys = append(keys, s.Key)
			made[s.Key] = &nodeSteps{}
		}
	}
	edges, err := g.callEdges(ctx, r, keys)
	if err != nil {
		return nil, err
	}
	valueTaken, err := g.valuesTaken(ctx, r, edges)
	if err != nil {
		return nil, err
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
		ns := made[e.Callee]
		ns.steps = append(ns.steps, step{from: e.Callee, to: e.Caller, cov: e.Coverage, via: viaCall, path: e.Path, line: e.Line, col: e.Col})
	}
	refs, err := g.refs(ctx, r, keys)
	if err != nil {
		return nil, err
	}
	referenced := map[string]bool{}
	for _, x := range refs {
		if x.Kind == graph.RefImport {
			continue
		}
		referenced[x.Target] = true
		ns := made[x.Target]
		if x.Enclosing == "" && graph.LanguageOf(x.Path) != graph.LanguageGo {
			via := viaReference
			if x.Kind == graph.RefCall {
				via = viaCall
			}
			ns.fileUses = append(ns.fileUses, fileUse{path: x.Path, line: x.Line, via: via})
			continue
		}
		if x.Enclosing == "" {
			if !slices.Contains(ns.fileLevel, x.Path) {
				ns.fileLevel = append(ns.fileLevel, x.Path)
			}
			continue
		}
		via := viaReference
		if x.Kind == graph.RefCall {
			via = viaCall
		}
		ns.steps = append(ns.steps, step{from: x.Target, to: x.Enclosing, cov: graph.CoverageExact, via: via, path: x.Path, line: x.Line, col: x.Col})
	}
	// A method code outside the index may call through an interface
	// (sort calls Less, fmt calls String, ast.Walk calls Visit) runs where
	// values of its type are made or converted: those uses of the type
	// stand for its callers. An exported method nothing in the index
	// calls or uses may still be called through reflection (text/template
	// calls methods by name): the functions that call through reflection
	// stand for its callers. An unexported one nothing calls or uses is
	// called by nothing: reflection cannot call it, and an interface that
	// has it is one of its package's, whose calls are edges.
	typeOf := map[string][]string{}
	var byReflection []string
	for _, s := range syms {
		if s.Kind != graph.KindMethod || s.Parent == "" || !s.IsGo() {
			continue // Go's interfaces and reflection call Go's methods alone
		}
		switch {
		case outsideCalled[s.Name]:
			if !slices.Contains(typeOf[s.Parent], s.Key) {
				typeOf[s.Parent] = append(typeOf[s.Parent], s.Key)
			}
		case !called[s.Key] && !referenced[s.Key] && isExportedName(s.Name):
			byReflection = append(byReflection, s.Key)
		}
	}
	if len(typeOf) > 0 {
		trefs, err := g.refs(ctx, r, sortedKeys(typeOf), graph.RefType, graph.RefRead, graph.RefCall)
		if err != nil {
			return nil, err
		}
		for _, x := range trefs {
			if x.Enclosing == "" {
				continue
			}
			for _, m := range typeOf[x.Target] {
				made[m].steps = append(made[m].steps, step{from: m, to: x.Enclosing, cov: graph.CoverageCandidate, via: viaReference})
			}
		}
	}
	if len(byReflection) > 0 {
		facts, err := v.Facts(ctx, g.repo)
		if err != nil {
			return nil, err
		}
		refl, err := facts.Reflectors(ctx, func(ctx context.Context) (map[string]bool, error) { return blind.FindReflectors(ctx, v, g.repo) })
		if err != nil {
			return nil, err
		}
		fs := sortedKeys(refl)
		for _, m := range byReflection {
			for _, f := range fs {
				made[m].steps = append(made[m].steps, step{from: m, to: f, cov: graph.CoverageCandidate, via: viaReflection})
			}
		}
	}
	return made, nil
}

// valuesTaken reports which callees of func-value edges have their value
// taken somewhere (a read reference), so that a call through a function
// value may reach them as themselves and not only through a literal they
// contain.
func (g *cache) valuesTaken(ctx context.Context, r graph.Reader, edges []graph.CallEdge) (map[string]bool, error) {
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
	refs, err := g.refs(ctx, r, graph.Dedupe(keys), graph.RefRead)
	if err != nil {
		return nil, err
	}
	for _, x := range refs {
		out[x.Target] = true
	}
	return out, nil
}

// maxVersionBytes bounds the content of the parsed file versions a
// cache keeps; past it the least recently used are dropped.
const maxVersionBytes = 8 << 20

// versionKey is a file version's name and content.
type versionKey struct{ name, content string }

// keptVersion is a kept parsed version and when it was last used.
type keptVersion struct {
	fv   fileVersion
	used uint64
}

// parseVersion is parseVersion, kept by name and content: the old side
// of a diff (the commit's files, or the disk for a diff not applied) is
// the same from call to call, and the new side is read as an edit of it.
func (g *cache) parseVersion(name string, content []byte) fileVersion {
	key := versionKey{name, string(content)}
	g.mu.Lock()
	kv, ok := g.versions[key]
	if ok {
		g.versionUses++
		kv.used = g.versionUses
	}
	g.mu.Unlock()
	if ok {
		return kv.fv
	}
	fv := parseVersion(name, content)
	if len(content) > g.versionMax {
		return fv
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.versions[key]; ok {
		return fv
	}
	if g.versions == nil {
		g.versions = map[versionKey]*keptVersion{}
	}
	for g.versionBytes+len(content) > g.versionMax {
		var oldest versionKey
		var at uint64 = math.MaxUint64
		for k, v := range g.versions {
			if v.used < at {
				oldest, at = k, v.used
			}
		}
		g.versionBytes -= len(oldest.content)
		delete(g.versions, oldest)
	}
	g.versionUses++
	g.versions[key] = &keptVersion{fv: fv, used: g.versionUses}
	g.versionBytes += len(content)
	return fv
}

// storedLiterals are the outermost function literals of a file's
// package-level variable initialisers that are elements or field values
// of composite literals, as byte offset ranges, with the offsets the
// file's lines start at.
type storedLiterals struct {
	lines  []int
	ranges [][2]int
}

// inStoredLiteral reports whether the position (1-based line and column)
// of the file rel under root lies in a function literal a package-level
// variable's initialiser stores in a composite literal, unused by the
// initialiser itself: code there runs when the stored function is
// called, not when the package is initialised. The file is read from the
// disk and parsed once; false when it cannot be.
func (g *cache) inStoredLiteral(root, rel string, line, col int) bool {
	g.mu.Lock()
	sl, ok := g.stored[rel]
	g.mu.Unlock()
	if !ok {
		sl = findStoredLiterals(root, rel)
		g.mu.Lock()
		if g.stored == nil {
			g.stored = map[string]*storedLiterals{}
		}
		g.stored[rel] = sl
		g.mu.Unlock()
	}
	if sl == nil || line < 1 || line > len(sl.lines) {
		return false
	}
	off := sl.lines[line-1] + col - 1
	for _, r := range sl.ranges {
		if r[0] <= off && off < r[1] {
			return true
		}
	}
	return false
}

func findStoredLiterals(root, rel string) *storedLiterals {
	content, err := session.ReadFile(root, rel)
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, content, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	tf := fset.File(f.Pos())
	sl := &storedLiterals{lines: tf.Lines()}
	stored := func(e ast.Expr) {
		if lit, ok := ast.Unparen(e).(*ast.FuncLit); ok {
			sl.ranges = append(sl.ranges, [2]int{tf.Offset(lit.Pos()), tf.Offset(lit.End())})
		}
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				ast.Inspect(v, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncLit:
						return false // a literal's own literals run when it runs
					case *ast.CompositeLit:
						for _, el := range n.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok {
								stored(kv.Value)
							} else {
								stored(el)
							}
						}
					}
					return true
				})
			}
		}
	}
	return sl
}
