package callgraph

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"math/bits"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/load"
)

// unit is one Build: the SSA program of a load unit and what was read
// from its syntax while the packages still had it.
type unit struct {
	fset       *token.FileSet
	inRepo     func(string) bool
	maxCalls   int
	maxOutside int
	visit      func(*ssa.Function, Func)
	keepBody   func(*ssa.Function) bool
	emit       func([]Edge)

	algorithm Algorithm // decided by the size of the unit's source

	prog *ssa.Program
	// variants are the SSA packages created from syntax, one per variant
	// of a package of the unit that type-checked, in a stable order;
	// pathOf gives the import path each stands for, and chosen marks one
	// variant per path (see prepare).
	variants []*ssa.Package
	pathOf   map[*ssa.Package]string
	chosen   map[*ssa.Package]bool
	built    map[*ssa.Package]bool
	flags    map[string]*PackageFlags

	calls map[token.Pos]callSyntax // by the Lparen of each call expression
	vars  []varSpec                // package-level var specs with values, by position
	// linknames are the functions declared without a body under a
	// //go:linkname directive, by the position of their name: the
	// import path and name of the function the linker binds them to.
	linknames map[token.Pos]linkTarget

	// retained are the type information of the packages created from
	// syntax that declare generic functions, which go/ssa keeps for as
	// long as the program lives (see pruneRetained).
	retained []*retainedInfo
	// pruneMu guards the counts of retainedInfo.waiting while the
	// packages are built; reaches lists, for each package to build, the
	// retained information its build may read (see pruneWhenBuilt).
	pruneMu sync.Mutex
	reaches map[*ssa.Package][]*retainedInfo

	gate    *gate  // nil: build in any order, at once
	onBuilt func() // called once the SSA bodies are built, or failed to be

	sets methodSets // the method-set budget (runtime.go)

	stats Stats
}

// callSyntax is what the syntax says of one call expression.
type callSyntax struct {
	name  token.Pos // the called name (see Edge.Site)
	value bool      // the callee is a function value, not a declared function or method
}

// linkTarget is the function a //go:linkname directive names.
type linkTarget struct{ path, name string }

// varSpec is a package-level "var a, b = x, y" with its values.
type varSpec struct {
	from, to token.Pos
	path     string // import path of its package
	spec     *ast.ValueSpec
}

// prepare creates the SSA program of pkgs and reads what the edges need
// from their syntax, so that nothing of pkgs is read afterwards.
//
// Every variant of every package of the unit that type-checked is
// created from its syntax: "p", "p [p.test]" and "p_test [p.test]" have
// distinct types, and code in other packages calls into "p", not into
// "p [p.test]". Which of them get function bodies depends on the
// algorithm (see unit.run); edges are merged by position afterwards, so
// a call seen in two variants is one edge.
func prepare(pkgs []*packages.Package, opts Options) *unit {
	u := &unit{
		inRepo:     opts.InRepo,
		maxCalls:   opts.MaxVTACalls,
		maxOutside: opts.MaxOutsideCandidates,
		visit:      opts.Visit,
		keepBody:   opts.KeepBody,
		emit:       opts.Emit,
		pathOf:     map[*ssa.Package]string{},
		chosen:     map[*ssa.Package]bool{},
		built:      map[*ssa.Package]bool{},
		flags:      map[string]*PackageFlags{},
		calls:      map[token.Pos]callSyntax{},
		linknames:  map[token.Pos]linkTarget{},
	}
	if u.maxCalls == 0 {
		u.maxCalls = DefaultMaxVTACalls
	}
	switch {
	case u.maxOutside == 0:
		u.maxOutside = DefaultMaxOutsideCandidates
	case u.maxOutside < 0:
		u.maxOutside = math.MaxInt
	}
	for _, p := range pkgs {
		if p != nil && p.Fset != nil {
			u.fset = p.Fset
			break
		}
	}
	if u.fset == nil {
		u.fset = token.NewFileSet()
	}
	if u.inRepo == nil {
		files := map[string]bool{}
		for _, p := range pkgs {
			if p == nil {
				continue
			}
			for _, f := range p.GoFiles {
				files[f] = true
			}
			for _, f := range p.CompiledGoFiles {
				files[f] = true
			}
		}
		u.inRepo = func(name string) bool { return files[name] }
	}

	mains := load.TestMains(pkgs)
	roots := make([]*packages.Package, 0, len(pkgs))
	fromSyntax := map[*packages.Package]bool{}
	for _, p := range pkgs {
		if p == nil || mains[p] {
			continue
		}
		roots = append(roots, p)
		path := pathOf(p)
		fl := u.flags[path]
		if fl == nil {
			fl = &PackageFlags{}
			u.flags[path] = fl
		}
		if p.IllTyped || p.Types == nil || p.TypesInfo == nil || len(p.Syntax) == 0 || len(p.Errors) > 0 {
			fl.TypeErrors = fl.TypeErrors || p.IllTyped || len(p.Errors) > 0 || p.Types == nil
			continue
		}
		fromSyntax[p] = true
	}

	best := map[string]*packages.Package{}
	for _, p := range roots {
		if !fromSyntax[p] {
			continue
		}
		path := pathOf(p)
		if b := best[path]; b == nil || betterVariant(path, p, b) {
			best[path] = p
		}
	}

	// The syntax decides the algorithm (by the number of calls), and the
	// algorithm which variants need their syntax.
	files := map[*ast.File]bool{}
	for _, p := range roots {
		if !fromSyntax[p] {
			continue
		}
		path := pathOf(p)
		for _, f := range p.Syntax {
			if files[f] {
				continue // the same file in another variant
			}
			files[f] = true
			u.readSyntax(path, p.TypesInfo, f)
		}
	}
	u.algorithm = CHA
	if u.maxCalls > 0 && len(u.calls) <= u.maxCalls && !u.sets.capped() {
		u.algorithm = VTA
	}

	// The unit's packages that type-checked are created from their
	// syntax; the packages they import directly, from their types (export
	// data, without bodies). Building needs no more: code can only name
	// what its package imports, and methods of other types are made on
	// demand. With CHA only the chosen variant of each path is built, so
	// the others are created from their types too: their functions are
	// still there to be called (edges name them by position), and their
	// syntax and type information, which SSA would otherwise keep until
	// the end of the build, can be released as soon as the indexer is done
	// with them.
	u.prog = ssa.NewProgram(u.fset, ssa.InstantiateGenerics)
	for _, p := range roots {
		if !fromSyntax[p] || u.prog.Package(p.Types) != nil {
			continue
		}
		path := pathOf(p)
		chosen := best[path] == p
		var sp *ssa.Package
		if chosen || u.algorithm == VTA {
			// SSA is given a copy of the package's Info, whose maps it
			// may replace once the bodies are built (see pruneRetained)
			// while the indexer still reads the package's own.
			info := new(types.Info)
			*info = *p.TypesInfo
			sp = u.prog.CreatePackage(p.Types, p.Syntax, info, true)
			if generic := genericRanges(p.Syntax); len(generic) > 0 {
				u.retained = append(u.retained, &retainedInfo{pkg: p.Types, info: info, generic: generic})
			}
		} else {
			sp = u.prog.CreatePackage(p.Types, nil, nil, true)
		}
		u.pathOf[sp] = path
		u.variants = append(u.variants, sp)
		if chosen {
			u.chosen[sp] = true
		}
	}
	for _, sp := range u.variants {
		for _, imp := range sp.Pkg.Imports() {
			if u.prog.Package(imp) == nil {
				u.prog.CreatePackage(imp, nil, nil, true)
			}
		}
	}
	// A stable build order, so that runs are alike.
	sort.SliceStable(u.variants, func(i, j int) bool {
		return u.variants[i].Pkg.Path() < u.variants[j].Pkg.Path()
	})

	sort.Slice(u.vars, func(i, j int) bool { return u.vars[i].from < u.vars[j].from })
	return u
}

// pathOf is the import path p is indexed under.
func pathOf(p *packages.Package) string {
	if p.PkgPath != "" {
		return p.PkgPath
	}
	return p.ID
}

// betterVariant reports whether p is a better variant of path than q to
// stand for it alone: "path [path.test]" (all of path's files, tests
// included) over "path" (or the external test package's own variant)
// over variants compiled for another package's test; then more files,
// then the smaller ID.
func betterVariant(path string, p, q *packages.Package) bool {
	if rp, rq := load.VariantRank(path, p), load.VariantRank(path, q); rp != rq {
		return rp > rq
	}
	if len(p.Syntax) != len(q.Syntax) {
		return len(p.Syntax) > len(q.Syntax)
	}
	return p.ID < q.ID
}

// readSyntax records the call expressions, package-level variable
// initialisers and //go:linkname stand-ins of one file.
func (u *unit) readSyntax(path string, info *types.Info, f *ast.File) {
	u.readLinknames(f)
	if tf := u.fset.File(f.FileStart); tf != nil {
		u.sets.source += int64(tf.Size())
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			if vs, ok := s.(*ast.ValueSpec); ok && len(vs.Values) > 0 {
				u.vars = append(u.vars, varSpec{from: vs.Pos(), to: vs.End(), path: path, spec: vs})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSpec:
			if obj, ok := info.Defs[n.Name].(*types.TypeName); ok {
				u.sets.weigh(obj.Type(), obj.Name())
			}
		case *ast.StructType:
			if tv, ok := info.Types[n]; ok {
				u.sets.weigh(tv.Type, "")
			}
		case *ast.CallExpr:
			u.calls[n.Lparen] = classifyCall(info, n)
		case *ast.RangeStmt:
			// A range over a function calls it, with the loop body as
			// the yield function; SSA gives that call no position, only
			// the yield function the position of "range".
			if t, ok := info.Types[n.X]; ok {
				if _, ok := t.Type.Underlying().(*types.Signature); ok {
					u.calls[n.Range] = classifyCallee(info, n.X)
				}
			}
		}
		return true
	})
}

// readLinknames records the functions of f declared without a body that
// a "//go:linkname local path.name" directive of f binds to a function
// of another package: a call of local runs path.name. Directives that
// bind a function with a body to another name (which code elsewhere
// pulls in) are not recorded; a target that is a method ("p.T.m") names
// no package and is not found.
func (u *unit) readLinknames(f *ast.File) {
	var targets map[string]linkTarget
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			rest, ok := strings.CutPrefix(c.Text, "//go:linkname ")
			if !ok {
				continue
			}
			fields := strings.Fields(rest)
			if len(fields) != 2 {
				continue
			}
			i := strings.LastIndexByte(fields[1], '.')
			if i <= 0 || i == len(fields[1])-1 {
				continue
			}
			if targets == nil {
				targets = map[string]linkTarget{}
			}
			targets[fields[0]] = linkTarget{path: fields[1][:i], name: fields[1][i+1:]}
		}
	}
	if targets == nil {
		return
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body != nil || fd.Recv != nil {
			continue
		}
		if t, ok := targets[fd.Name.Name]; ok {
			u.linknames[fd.Name.Pos()] = t
		}
	}
}

// classifyCall finds the called name of call and whether the callee is
// a function value rather than a declared function or method.
func classifyCall(info *types.Info, call *ast.CallExpr) callSyntax {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr: // F[T](x), or m[k](x) on a map or slice of functions
		if _, ok := info.Uses[identOf(f.X)].(*types.Func); ok {
			fun = ast.Unparen(f.X)
		}
	case *ast.IndexListExpr: // F[T, U](x)
		fun = ast.Unparen(f.X)
	}
	switch f := fun.(type) {
	case *ast.FuncLit:
		return callSyntax{name: f.Type.Func, value: false}
	case *ast.CallExpr:
		// f(x)(y): the inner call has the name; this one its parenthesis.
		return callSyntax{name: call.Lparen, value: true}
	}
	return classifyCallee(info, fun)
}

// classifyCallee finds the called name of x, the function a call or a
// range-over-func loop calls, and whether it is a function value: a
// name or a selector is resolved by the type checker, anything else is a
// value.
func classifyCallee(info *types.Info, x ast.Expr) callSyntax {
	x = ast.Unparen(x)
	switch x := x.(type) {
	case *ast.Ident:
		_, isFunc := info.Uses[x].(*types.Func)
		return callSyntax{name: x.Pos(), value: !isFunc}
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok {
			// x.M(...) and T.M(x, ...) name a method; x.f(...) calls the
			// function value in field f.
			return callSyntax{name: x.Sel.Pos(), value: sel.Kind() == types.FieldVal}
		}
		_, isFunc := info.Uses[x.Sel].(*types.Func) // pkg.F(...)
		return callSyntax{name: x.Sel.Pos(), value: !isFunc}
	}
	return callSyntax{name: x.Pos(), value: true}
}

// identOf returns the identifier e names (x or pkg.x), or nil.
func identOf(e ast.Expr) *ast.Ident {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// varAt returns the package-level variable whose initialiser contains
// pos: the one whose value expression contains it when there is one
// value per name, else the first name of the spec.
func (u *unit) varAt(pos token.Pos) (*ast.Ident, string, bool) {
	i := sort.Search(len(u.vars), func(i int) bool { return u.vars[i].to > pos })
	if i == len(u.vars) || u.vars[i].from > pos {
		return nil, "", false
	}
	v := u.vars[i]
	if len(v.spec.Values) == len(v.spec.Names) {
		for j, e := range v.spec.Values {
			if e.Pos() <= pos && pos < e.End() {
				return v.spec.Names[j], v.path, true
			}
		}
	}
	return v.spec.Names[0], v.path, true
}

// errPanic wraps a panic of SSA construction.
var errPanic = errors.New("SSA construction failed")

// buildSSA builds the function bodies of the packages to build, in
// parallel.
//
// When building a package panics (the builder cannot handle some code),
// buildSSA returns an error at once. Other builders may then be blocked
// waiting for a function the failed one was building; they are left
// behind rather than waited for.
func (u *unit) buildSSA(ctx context.Context, pkgs []*ssa.Package) error {
	for _, p := range pkgs {
		u.built[p] = true
		if fl := u.flags[u.pathOf[p]]; fl != nil {
			fl.Built = true
		}
	}
	u.pruneWhenBuilt(pkgs)
	work := make(chan *ssa.Package)
	failed := make(chan error, 1)
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(pkgs))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if err := buildOne(p, u.algorithm == CHA, u.keepBody, u.sets.noteConversions); err != nil {
					select {
					case failed <- err:
					default:
					}
					return
				}
				u.builtForPruning(p)
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	var err error
feed:
	for _, p := range pkgs {
		if err = u.gate.wait(ctx, u.pathOf[p]); err != nil {
			break feed
		}
		select {
		case work <- p:
		case err = <-failed:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(work)
	if err != nil {
		return err
	}
	select {
	case <-done:
	case err = <-failed:
		return err
	}
	select {
	case err = <-failed:
		return err
	default:
	}
	return ctx.Err()
}

func buildOne(p *ssa.Package, cha bool, keep func(*ssa.Function) bool, built func(*ssa.Package)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w for %s: %v\n%s", errPanic, p.Pkg.Path(), r, debug.Stack())
		}
	}()
	p.Build()
	built(p)
	releaseSyntax(p)
	if cha {
		releaseBodies(p, keep)
	}
	return nil
}

// gate holds the build of each package back until the indexer has
// reached it. The indexer extracts records package by package in import
// path order and releases each one's syntax and types when done; SSA keeps
// a package's syntax until it is built. Built in the same order and no
// further ahead, the two release a package's syntax at about the same
// time, so the heap holds a few packages' syntax and the bodies built so
// far, not every package's syntax and every body at once.
type gate struct {
	mu      sync.Mutex
	at      string        // the path the indexer is at
	open    bool          // the indexer is done: no more waiting
	changed chan struct{} // closed and replaced on every change
}

func newGate() *gate { return &gate{changed: make(chan struct{})} }

// wait returns when the indexer has reached path (paths compare as
// strings, the order both sides go in), the gate is open, or ctx ends.
func (g *gate) wait(ctx context.Context, path string) error {
	if g == nil {
		return nil
	}
	for {
		g.mu.Lock()
		ok, changed := g.open || path <= g.at, g.changed
		g.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (g *gate) set(at string, open bool) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if open {
		g.open = true
	} else if at > g.at {
		g.at = at
	} else {
		return
	}
	close(g.changed)
	g.changed = make(chan struct{})
}

// go/ssa keeps the type information of a package with a generic function
// for as long as the program lives (the function's instances are built
// from its syntax and that information, some of them on demand, while the
// edges are read), and the Info's maps hold every expression, identifier
// and scope of the package, with the syntax trees of all its files as
// their keys. On golang.org/x/tools, whose packages use generics here and
// there, that was a fifth of the heap once the bodies were built.
//
// pruneRetained replaces the maps of each such Info, once every body is
// built, with the entries inside the declarations of generic functions
// and methods, which is all an instance's build reads (FileVersions,
// which go/ssa reads only when it creates a package, goes). The rest of
// the package's syntax and type information is then released. It must
// run when no package is being built.
//
// Most are pruned earlier, while other packages are still being built
// (see pruneWhenBuilt); this prunes the rest.
func (u *unit) pruneRetained() {
	for _, r := range u.retained {
		if !r.pruned {
			r.prune()
		}
	}
	u.retained, u.reaches = nil, nil
}

// pruneWhenBuilt prepares the building of pkgs to prune each retained
// Info as soon as no build can read more of it than its generic
// declarations: the instances of a package's generic functions are
// built by the builds of the packages that import it, directly or
// through others (a call, or a method promoted through a type of a
// package in between), so once the package itself and every package to
// build that reaches it are built, only the instances made on demand
// after the build remain, from the generic declarations alone. Pruned
// then rather than once everything is built, a package's syntax does not
// wait for the slowest part of the build: the peak of a large unit is
// while its packages are built, with the bodies built so far beside the
// syntax and types of the rest.
func (u *unit) pruneWhenBuilt(pkgs []*ssa.Package) {
	if len(u.retained) == 0 {
		return
	}
	index := map[*types.Package]int{}
	for i, r := range u.retained {
		index[r.pkg] = i
	}
	words := (len(u.retained) + 63) / 64
	memo := map[*types.Package][]uint64{}
	var reach func(p *types.Package) []uint64
	reach = func(p *types.Package) []uint64 {
		if set, ok := memo[p]; ok {
			return set
		}
		set := make([]uint64, words)
		memo[p] = set // an import cycle (not in code that checks) ends here
		if i, ok := index[p]; ok {
			set[i/64] |= 1 << (i % 64)
		}
		for _, imp := range p.Imports() {
			for w, word := range reach(imp) {
				set[w] |= word
			}
		}
		return set
	}
	u.reaches = map[*ssa.Package][]*retainedInfo{}
	for _, p := range pkgs {
		for w, word := range reach(p.Pkg) {
			for ; word != 0; word &= word - 1 {
				r := u.retained[w*64+bits.TrailingZeros64(word)]
				r.waiting++
				u.reaches[p] = append(u.reaches[p], r)
			}
		}
	}
}

// builtForPruning counts p as built for the retained information its build could
// read, and prunes what no build still to come can read more of.
func (u *unit) builtForPruning(p *ssa.Package) {
	var ready []*retainedInfo
	u.pruneMu.Lock()
	for _, r := range u.reaches[p] {
		if r.waiting--; r.waiting == 0 {
			r.pruned = true
			ready = append(ready, r)
		}
	}
	u.pruneMu.Unlock()
	for _, r := range ready {
		r.prune()
	}
}

// retainedInfo is the Info go/ssa keeps for a package that declares
// generic functions, and where their declarations are.
type retainedInfo struct {
	pkg     *types.Package
	info    *types.Info
	generic []posRange // sorted, disjoint
	waiting int        // packages to build that may read info (see pruneWhenBuilt)
	pruned  bool
}

// posRange is the extent of a declaration, from its first character to
// just after its last.
type posRange struct{ from, to token.Pos }

// genericRanges returns the extents of the generic function and method
// declarations of files, sorted.
func genericRanges(files []*ast.File) []posRange {
	var out []posRange
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && isGenericDecl(fd) {
				out = append(out, posRange{fd.Pos(), fd.End()})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].from < out[j].from })
	return out
}

// isGenericDecl reports whether fd declares a generic function or a
// method of a generic type.
func isGenericDecl(fd *ast.FuncDecl) bool {
	if fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0 {
		return true
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return false
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.IndexExpr, *ast.IndexListExpr:
			return true
		}
		return false
	}
}

// inside reports whether pos is inside one of r's generic declarations.
func (r *retainedInfo) inside(pos token.Pos) bool {
	i := sort.Search(len(r.generic), func(i int) bool { return r.generic[i].to > pos })
	return i < len(r.generic) && r.generic[i].from <= pos
}

// prune replaces r.info's maps with their entries inside the generic
// declarations.
func (r *retainedInfo) prune() {
	info := r.info
	info.Types = keepInside(r, info.Types)
	info.Instances = keepInside(r, info.Instances)
	info.Defs = keepInside(r, info.Defs)
	info.Uses = keepInside(r, info.Uses)
	info.Implicits = keepInside(r, info.Implicits)
	info.Selections = keepInside(r, info.Selections)
	info.Scopes = keepInside(r, info.Scopes)
	info.FileVersions = nil
}

// keepInside returns the entries of m whose key is inside r's generic
// declarations, in a new map (nil for a nil m).
func keepInside[K interface {
	comparable
	Pos() token.Pos
}, V any](r *retainedInfo, m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	out := map[K]V{}
	for k, v := range m {
		if r.inside(k.Pos()) {
			out[k] = v
		}
	}
	return out
}
