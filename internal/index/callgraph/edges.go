package callgraph

import (
	"cmp"
	"context"
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/graph"
)

// run builds the SSA bodies, resolves the dynamic calls and reads every
// call into edges.
//
// With VTA every variant gets bodies, so that values flow from the code
// that calls into "p" to the bodies of "p"'s functions. With CHA, which
// follows no flow between packages, one variant per package suffices:
// "p [p.test]" has all of "p"'s code and its tests.
func (u *unit) run(ctx context.Context) (res *Result, err error) {
	defer func() {
		// VTA and the reading of calls run on this goroutine; a panic in
		// either (code they cannot handle) fails this unit only.
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	u.stats.Calls = len(u.calls)
	algorithm := u.algorithm
	var build []*ssa.Package
	for _, p := range u.variants {
		if algorithm == VTA || u.chosen[p] {
			build = append(build, p)
		}
	}
	t := time.Now()
	err = u.buildSSA(ctx, build)
	if u.onBuilt != nil {
		u.onBuilt()
	}
	if err != nil {
		return nil, fmt.Errorf("building SSA: %w", err)
	}
	u.pruneRetained()
	u.stats.SSA = time.Since(t)
	u.stats.Packages = len(build)

	t = time.Now()
	source, all := u.functions(algorithm == VTA)
	if algorithm == CHA {
		source = append(source, u.instanceMethods(all)...)
	}
	u.stats.Functions = len(source)
	for _, fn := range source {
		for _, b := range fn.Blocks {
			u.stats.Instructions += len(b.Instrs)
		}
	}
	b := &edgeBuilder{
		u:            u,
		all:          all,
		algorithm:    algorithm,
		ids:          map[Func]int32{},
		objIDs:       map[*types.Func]int32{},
		varIDs:       map[token.Pos]int32{},
		targetMemo:   map[*ssa.Function][]target{},
		sites:        map[siteKey]*siteAcc{},
		dynSites:     map[token.Pos]dynInfo{},
		instantiated: map[token.Pos]bool{},
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if algorithm == VTA {
		b.vta = newVTA(all)
	} else {
		b.chaResolver()
	}
	u.stats.Resolve = time.Since(t)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	t = time.Now()
	// Instances after everything else: a call in a generic function
	// whose callee depends on its type arguments is read from the
	// instances, which need to know the generic function's dynamic calls.
	for _, fn := range source {
		if top := outermost(fn); isBuiltInstance(top) {
			b.instantiated[top.Origin().Pos()] = true
		}
	}
	// Instances after everything else (see above), then an order that
	// depends on the code alone: source comes from a map, and what is
	// read first is remembered (traced function values, within a step
	// budget, are memoised), so the order of reading must not change from
	// run to run.
	u.sortFuncs(source, true)
	file := "" // of the functions read since the last emit
	for i, fn := range source {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if u.emit != nil {
			// The calls of a caller are read from the functions of the
			// file that declares it (its variants and literals sort there),
			// and, for a generic function, from its instances, which
			// sort last: once the order leaves a file, its callers are
			// done but for the generic ones (see siteAcc.hold).
			if f := u.fset.PositionFor(fn.Pos(), false).Filename; f != file {
				b.emitDone(false)
				file = f
			}
		}
		b.function(fn)
	}
	res = &Result{
		Packages:   u.flags,
		Algorithm:  algorithm,
		MethodSets: u.sets.note(),
	}
	if u.emit != nil {
		b.emitDone(true)
	} else {
		res.Edges = b.appendEdges(nil, b.accs)
	}
	u.stats.Edges = time.Since(t)
	res.Stats = u.stats
	return res, nil
}

// instanceMethods makes, for CHA, the methods of the runtime types that
// instantiate the unit's generic types, adds them to all with the
// functions their building made, and returns those of them to read: the
// instances built from the unit's syntax. CHA makes a runtime type's
// methods only when an interface call names them, after the functions to
// read were gathered; an instance made then would have its calls unread,
// and the generic method's calls that depend on its type arguments (a
// call through a field of type Graph[N]) would be resolved from the
// generic body alone, to nothing.
func (u *unit) instanceMethods(all map[*ssa.Function]bool) []*ssa.Function {
	var read []*ssa.Function
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if fn == nil || all[fn] {
			return
		}
		all[fn] = true
		if len(fn.Blocks) == 0 {
			return
		}
		if top := outermost(fn); isBuiltInstance(top) {
			if _, ok := u.pathOf[top.Origin().Pkg]; ok {
				read = append(read, fn)
			}
		}
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if c, ok := instr.(ssa.CallInstruction); ok {
					add(c.Common().StaticCallee())
				}
			}
		}
	}
	free := map[types.Type]bool{}
	done := map[types.Type]bool{}
	for more := true; more; {
		more = false
		for _, t := range u.sets.runtimeTypes(u.prog) { // grows as instances are built
			if done[t] || types.IsInterface(t) {
				continue
			}
			done[t] = true
			named, ok := types.Unalias(derefType(t)).(*types.Named)
			if !ok || named.TypeArgs().Len() == 0 {
				continue
			}
			if _, ok := u.pathOf[u.prog.Package(named.Origin().Obj().Pkg())]; !ok {
				continue // a dependency's type, whose instances have no body to read
			}
			mset := u.prog.MethodSets.MethodSet(t)
			for i := 0; i < mset.Len(); i++ {
				if sel := mset.At(i); hasMethodValue(sel, free) {
					n := len(all)
					add(u.prog.MethodValue(sel))
					more = more || len(all) > n
				}
			}
		}
	}
	return read
}

// sortFuncs sorts fns by the position of their declaration, then the
// variant of their package, then their name and kind (for instances and
// synthetic functions, which share a position), with instances last
// when instancesLast is set: an order given by the code, not by the
// memory addresses and map iterations of one run.
func (u *unit) sortFuncs(fns []*ssa.Function, instancesLast bool) {
	variant := make(map[*ssa.Package]int, len(u.variants))
	for i, p := range u.variants {
		variant[p] = i
	}
	type key struct {
		instance bool
		file     string
		offset   int
		variant  int
		name     string // computed only when the rest ties
	}
	keys := make(map[*ssa.Function]*key, len(fns))
	for _, fn := range fns {
		top := outermost(fn)
		k := &key{instance: instancesLast && isBuiltInstance(top), variant: -1}
		origin := top
		if top.Origin() != nil {
			origin = top.Origin()
		}
		if i, ok := variant[origin.Pkg]; ok {
			k.variant = i
		}
		if fn.Pos().IsValid() {
			p := u.fset.PositionFor(fn.Pos(), false)
			k.file, k.offset = p.Filename, p.Offset
		}
		keys[fn] = k
	}
	name := func(fn *ssa.Function, k *key) string {
		if k.name == "" {
			k.name = fn.String() + " " + fn.Synthetic
		}
		return k.name
	}
	slices.SortFunc(fns, func(x, y *ssa.Function) int {
		kx, ky := keys[x], keys[y]
		if c := cmp.Or(
			cmpBool(kx.instance, ky.instance),
			strings.Compare(kx.file, ky.file),
			cmp.Compare(kx.offset, ky.offset),
			cmp.Compare(kx.variant, ky.variant),
		); c != 0 {
			return c
		}
		return strings.Compare(name(x, kx), name(y, ky))
	})
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// edgeBuilder reads the calls of the source functions into edges.
type edgeBuilder struct {
	u         *unit
	all       map[*ssa.Function]bool
	algorithm Algorithm
	vta       *vtaResolver
	cha       *chaResolver // with VTA, built on first use

	// funcs are the ends of edges, interned: declared functions by
	// object, variables by the position of their identifier.
	funcs  []Func
	ids    map[Func]int32 // the variants of a package declare distinct objects for one Func
	objIDs map[*types.Func]int32
	varIDs map[token.Pos]int32

	targetMemo map[*ssa.Function][]target // complete answers of targets
	sites      map[siteKey]*siteAcc
	accs       []*siteAcc // in the order first seen; with emit, those not yet emitted
	batch      []Edge     // emitted edges not yet handed to emit

	// dynSites are the calls of generic functions whose callee is
	// dynamic there (a method of a type parameter, a function value), by
	// the position of their parenthesis: they are read from the instances.
	// instantiated holds the generic functions that have instances, by
	// position.
	dynSites     map[token.Pos]dynInfo
	instantiated map[token.Pos]bool

	linkMemo map[token.Pos]*ssa.Function // see linked
}

type dynInfo struct {
	via      graph.Via
	dispatch Func
}

// siteKey identifies one call made by one caller: the position of its
// parenthesis, shared by the variants and instances of the caller.
type siteKey struct {
	caller int32
	lparen token.Pos
	goStmt bool
	defer_ bool
}

// siteAcc collects the callees of one call across variants and
// instances.
type siteAcc struct {
	key      siteKey
	site     token.Pos // the called name
	pkg      string
	via      graph.Via
	dispatch Func
	coverage graph.Coverage // of a resolved callee
	by       Algorithm
	dynamic  bool
	resolved bool // some callee was found, even if none became an edge
	callees  []target
	// hold keeps the calls of a generic function until the end, since
	// its instances, read last, add to them; emitted marks an acc whose
	// edges went out (see edgeBuilder.emitDone).
	hold, emitted bool
}

// resolve returns the possible callees of a dynamic call, and the
// algorithm that found them. When VTA finds none (the value comes from
// a dependency, or from nowhere), CHA is asked.
func (b *edgeBuilder) resolve(c ssa.CallInstruction) ([]*ssa.Function, Algorithm) {
	if b.vta != nil {
		if fns := b.vta.callees(c); len(fns) > 0 {
			return fns, VTA
		}
		if fns := b.chaResolver().callees(c); len(fns) > 0 {
			return fns, CHA
		}
		return nil, VTA
	}
	return b.chaResolver().callees(c), CHA
}

func (b *edgeBuilder) chaResolver() *chaResolver {
	if b.cha == nil {
		// CHA's tables list values in the order of the functions read,
		// and its trace of a value is cut after a number of steps: a
		// stable order keeps its answers stable.
		var bodies []*ssa.Function
		for fn := range b.all {
			if len(fn.Blocks) > 0 {
				bodies = append(bodies, fn)
			}
		}
		b.u.sortFuncs(bodies, false)
		b.cha = newCHA(b.u.prog, b.all, bodies, func(p *ssa.Package) bool {
			_, ok := b.u.pathOf[p]
			return ok
		}, func() []types.Type { return b.u.sets.runtimeTypes(b.u.prog) })
	}
	return b.cha
}

// function reads the calls of fn.
func (b *edgeBuilder) function(fn *ssa.Function) {
	top := outermost(fn)
	instance := isBuiltInstance(top)
	origin := top
	if instance {
		origin = top.Origin()
	}
	path := b.u.pathOf[origin.Pkg]

	// Who makes the calls: the function, or for code in the package
	// initialiser, the variable each call initialises.
	caller := int32(-1)
	perVar := false
	pkgLevel := false
	if origin.Synthetic == packageInitializer {
		// Calls in a variable's initialiser, function literals there
		// included, belong to the variable.
		pkgLevel = true
		if fn == top {
			perVar = true
		} else {
			id, ok := b.declOf(top, fn.Pos())
			if !ok {
				return
			}
			caller = id
		}
	} else {
		obj, ok := origin.Object().(*types.Func)
		if !ok {
			return
		}
		caller = b.funcID(obj)
		pkgLevel = obj.Name() == "init" && obj.Signature().Recv() == nil
	}
	if !perVar && !b.funcs[caller].Pos.IsValid() {
		return // declared outside the repository (a cgo-generated file, say)
	}
	if b.u.visit != nil && origin.Synthetic != packageInitializer {
		b.u.visit(fn, b.funcs[caller])
	}
	generic := !instance && isGenericOrigin(origin)
	fromInstances := generic && b.instantiated[origin.Pos()]

	for _, blk := range fn.Blocks {
		for _, instr := range blk.Instrs {
			c, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			cc := c.Common()
			if _, ok := cc.Value.(*ssa.Builtin); ok {
				continue
			}
			lparen := cc.Pos()
			if !lparen.IsValid() {
				lparen = rangeFuncPos(cc)
			}
			if !lparen.IsValid() {
				continue // not written in the source: calls of init functions
			}
			syn, hasSyn := b.u.calls[lparen]
			site := lparen
			if hasSyn {
				site = syn.name
			}

			from := caller
			if perVar {
				id, vpath, ok := b.u.varAt(lparen)
				if !ok {
					continue
				}
				from = b.varID(id.Pos(), vpath, id.Name)
				if !b.funcs[from].Pos.IsValid() {
					continue
				}
			}
			_, goStmt := instr.(*ssa.Go)
			_, deferStmt := instr.(*ssa.Defer)

			static := cc.StaticCallee()
			var via graph.Via
			var dispatch Func
			dynamic := true
			switch {
			case cc.IsInvoke():
				via = graph.ViaInterface
				dispatch = b.funcs[b.funcID(cc.Method)]
			case static != nil && !(hasSyn && syn.value) && abstractWrapper(static) != nil:
				// I.M(x, ...): a method expression of an interface calls
				// a thunk that dispatches.
				via = graph.ViaInterface
				dispatch = b.funcs[b.funcID(abstractWrapper(static))]
			case static != nil && !(hasSyn && syn.value):
				via, dynamic = graph.ViaStatic, false
			default:
				via = graph.ViaFuncValue
				dispatch = Func{Name: sigString(cc.Signature())}
			}
			if isReflectCall(cc) {
				if fl := b.u.flags[path]; fl != nil {
					fl.Reflection = true
				}
			}

			if dynamic {
				b.u.stats.DynamicSites++
			} else {
				b.u.stats.StaticSites++
			}
			var callees []*ssa.Function
			var by Algorithm
			switch {
			case instance:
				d, ok := b.dynSites[lparen]
				if !ok {
					continue // static in the generic function: read there
				}
				via, dispatch, dynamic = d.via, d.dispatch, true
				if static != nil {
					callees, by = []*ssa.Function{static}, b.algorithm
				} else {
					callees, by = b.resolve(c)
				}
			case generic && dynamic:
				b.dynSites[lparen] = dynInfo{via: via, dispatch: dispatch}
				if fromInstances {
					continue
				}
				// Nothing instantiates it: only the hierarchy can tell.
				by = CHA
				if static != nil {
					callees = []*ssa.Function{static}
				} else {
					callees = b.chaResolver().callees(c)
				}
			case static != nil:
				callees = []*ssa.Function{static}
				if dynamic {
					by = b.algorithm
				} else if g := b.linked(static); g != nil {
					callees = append(callees, g) // what the call runs
				}
			default:
				callees, by = b.resolve(c)
			}

			key := siteKey{caller: from, lparen: lparen, goStmt: goStmt, defer_: deferStmt}
			acc := b.sites[key]
			if acc != nil && acc.emitted {
				// Read again after its edges went out, which the order of
				// reading rules out: start over rather than lose the call.
				acc = nil
			}
			if acc == nil {
				coverage := graph.CoverageExact
				if dynamic {
					coverage = graph.CoverageCandidate
				}
				if pkgLevel {
					coverage = graph.CoveragePackageLevel
				}
				acc = &siteAcc{key: key, site: site, pkg: path, via: via, dispatch: dispatch, coverage: coverage, dynamic: dynamic, by: by,
					hold: generic || instance}
				b.sites[key] = acc
				b.accs = append(b.accs, acc)
			} else if acc.by != by && by != "" {
				acc.by = VTA // VTA in one variant, CHA in another: say the better
			}
			for _, g := range callees {
				for _, t := range b.targets(g) {
					acc.resolved = true
					if t.literal && t.fn == from && !goStmt && !deferStmt {
						continue // a literal called where it is written: its calls are the caller's own
					}
					if !slices.Contains(acc.callees, t) {
						acc.callees = append(acc.callees, t)
					}
				}
			}
		}
	}
}

// linked returns the function a //go:linkname stand-in fn is bound to
// (see unit.readLinknames), when the program has it, else nil.
func (b *edgeBuilder) linked(fn *ssa.Function) *ssa.Function {
	t, ok := b.u.linknames[fn.Pos()]
	if !ok || fn.Parent() != nil || fn.Synthetic != "" {
		return nil
	}
	if g, ok := b.linkMemo[fn.Pos()]; ok {
		return g
	}
	var g *ssa.Function
	for _, p := range b.u.prog.AllPackages() {
		if p.Pkg.Path() == t.path {
			if g = p.Func(t.name); g != nil {
				break
			}
		}
	}
	if b.linkMemo == nil {
		b.linkMemo = map[token.Pos]*ssa.Function{}
	}
	b.linkMemo[fn.Pos()] = g
	return g
}

// emitDone hands the edges of the calls read so far to u.emit, but for
// those held, or all of them when last is set. Edges go out in batches of
// at least emitBatch, and at the end.
func (b *edgeBuilder) emitDone(last bool) {
	ready := b.accs
	if !last {
		ready = nil
		kept := b.accs[:0]
		for _, acc := range b.accs {
			if acc.hold {
				kept = append(kept, acc)
			} else {
				ready = append(ready, acc)
			}
		}
		b.accs = kept
	} else {
		b.accs = nil
	}
	for _, acc := range ready {
		acc.emitted = true
	}
	b.batch = b.appendEdges(b.batch, ready)
	if len(b.batch) >= emitBatch || (last && len(b.batch) > 0) {
		b.u.emit(b.batch)
		b.batch = nil
	}
}

// emitBatch is the least number of edges Options.Emit is given at once,
// but for the last batch.
var emitBatch = 8192

// appendEdges appends the edges of the collected calls accs to out,
// sorted, and counts the dynamic and unresolved calls of each package. It
// sorts accs.
func (b *edgeBuilder) appendEdges(out []Edge, accs []*siteAcc) []Edge {
	slices.SortFunc(accs, func(x, y *siteAcc) int {
		fx, fy := &b.funcs[x.key.caller], &b.funcs[y.key.caller]
		return cmp.Or(
			comparePos(fx.Pos, fy.Pos),
			strings.Compare(fx.Name, fy.Name),
			cmp.Compare(x.site, y.site),
			cmp.Compare(x.key.lparen, y.key.lparen),
			cmpBool(x.key.goStmt, y.key.goStmt),
			cmpBool(x.key.defer_, y.key.defer_),
		)
	})
	n := 0
	for _, acc := range accs {
		n += max(1, len(acc.callees))
	}
	out = slices.Grow(out, n)
	for _, acc := range accs {
		if acc.dynamic {
			if fl := b.u.flags[acc.pkg]; fl != nil {
				fl.DynamicCalls++
				if !acc.resolved {
					fl.UnresolvedCalls++
				}
			}
		}
		e := Edge{
			Caller:   b.funcs[acc.key.caller],
			Site:     b.position(acc.site),
			Via:      acc.via,
			Dispatch: acc.dispatch,
			Go:       acc.key.goStmt,
			Defer:    acc.key.defer_,
		}
		if acc.dynamic {
			e.By = acc.by
		}
		if !acc.resolved {
			if acc.dynamic {
				e.Coverage = graph.CoverageUnresolved
				out = append(out, e)
			}
			continue
		}
		e.Coverage = acc.coverage
		slices.SortFunc(acc.callees, func(x, y target) int {
			fx, fy := &b.funcs[x.fn], &b.funcs[y.fn]
			return cmp.Or(strings.Compare(fx.Name, fy.Name), comparePos(fx.Pos, fy.Pos), cmpBool(x.literal, y.literal))
		})
		outside := 0
		for _, t := range acc.callees {
			if !b.funcs[t.fn].Pos.IsValid() {
				outside++
			}
		}
		elide := acc.dynamic && outside > b.u.maxOutside
		for _, t := range acc.callees {
			if elide && !b.funcs[t.fn].Pos.IsValid() {
				continue
			}
			e.Callee, e.Literal = b.funcs[t.fn], t.literal
			out = append(out, e)
		}
		if elide {
			e.Callee, e.Literal, e.Elided = acc.dispatch, false, outside
			if acc.via == graph.ViaFuncValue {
				e.Callee = Func{}
			}
			out = append(out, e)
		}
	}
	return out
}

func comparePos(a, b Pos) int {
	return cmp.Or(strings.Compare(a.Filename, b.Filename), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

// position converts pos.
func (b *edgeBuilder) position(pos token.Pos) Pos {
	p := b.u.fset.Position(pos)
	return Pos{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}

// funcID interns a declared function or method; its Pos is set when it
// is declared in the repository.
func (b *edgeBuilder) funcID(obj *types.Func) int32 {
	obj = obj.Origin()
	if id, ok := b.objIDs[obj]; ok {
		return id
	}
	f := Func{Name: funcName(obj)}
	if obj.Pos().IsValid() {
		if p := b.position(obj.Pos()); b.u.inRepo(p.Filename) {
			f.Pos = p
		}
	}
	id := b.intern(f)
	b.objIDs[obj] = id
	return id
}

func (b *edgeBuilder) intern(f Func) int32 {
	id, ok := b.ids[f]
	if !ok {
		id = int32(len(b.funcs))
		b.funcs = append(b.funcs, f)
		b.ids[f] = id
	}
	return id
}

// varID interns a package-level variable.
func (b *edgeBuilder) varID(pos token.Pos, path, name string) int32 {
	if id, ok := b.varIDs[pos]; ok {
		return id
	}
	f := Func{Name: path + "." + name}
	if p := b.position(pos); b.u.inRepo(p.Filename) {
		f.Pos = p
	}
	id := b.intern(f)
	b.varIDs[pos] = id
	return id
}

// declOf returns the declaration top stands for as the home of a
// function literal at pos: the declared function (the generic one for
// an instance), or for the package initialiser the variable whose
// initialiser holds the literal.
func (b *edgeBuilder) declOf(top *ssa.Function, pos token.Pos) (int32, bool) {
	if top.Synthetic == packageInitializer {
		id, path, ok := b.u.varAt(pos)
		if !ok {
			return 0, false
		}
		return b.varID(id.Pos(), path, id.Name), true
	}
	if isInstance(top) {
		top = top.Origin()
	}
	obj, ok := top.Object().(*types.Func)
	if !ok {
		return 0, false
	}
	return b.funcID(obj), true
}

// funcName spells obj as Func.Name documents.
func funcName(obj *types.Func) string {
	var sb strings.Builder
	if obj.Pkg() != nil {
		sb.WriteString(obj.Pkg().Path())
		sb.WriteByte('.')
	}
	if recv := obj.Signature().Recv(); recv != nil {
		sb.WriteString(recvName(recv.Type()))
		sb.WriteByte('.')
	}
	sb.WriteString(obj.Name())
	return sb.String()
}

func recvName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		return t.Obj().Name()
	case *types.TypeParam:
		return t.Obj().Name()
	case *types.Interface:
		return "interface{...}"
	}
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// sigString spells the type of a called function value without
// parameter names, e.g. "func(context.Context, string) error".
func sigString(sig *types.Signature) string {
	q := func(p *types.Package) string { return p.Name() }
	var sb strings.Builder
	sb.WriteString("func(")
	for i := 0; i < sig.Params().Len(); i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			if s, ok := t.(*types.Slice); ok {
				sb.WriteString("...")
				t = s.Elem()
			}
		}
		sb.WriteString(types.TypeString(t, q))
	}
	sb.WriteByte(')')
	switch n := sig.Results().Len(); n {
	case 0:
	case 1:
		sb.WriteByte(' ')
		sb.WriteString(types.TypeString(sig.Results().At(0).Type(), q))
	default:
		sb.WriteString(" (")
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(types.TypeString(sig.Results().At(i).Type(), q))
		}
		sb.WriteByte(')')
	}
	return sb.String()
}

// rangeFuncPos returns the position of "range" when cc is the call of
// the iterator function of a range-over-func loop, else NoPos.
func rangeFuncPos(cc *ssa.CallCommon) token.Pos {
	if len(cc.Args) != 1 {
		return token.NoPos
	}
	if mc, ok := cc.Args[0].(*ssa.MakeClosure); ok {
		if y, ok := mc.Fn.(*ssa.Function); ok && y.Synthetic == "range-over-func yield" {
			return y.Pos()
		}
	}
	if y, ok := cc.Args[0].(*ssa.Function); ok && y.Synthetic == "range-over-func yield" {
		return y.Pos()
	}
	return token.NoPos
}

// isReflectCall reports whether cc calls a function or method through
// reflection, or looks one up to call it.
func isReflectCall(cc *ssa.CallCommon) bool {
	var obj *types.Func
	if cc.IsInvoke() {
		obj = cc.Method
	} else if g := cc.StaticCallee(); g != nil {
		obj, _ = g.Object().(*types.Func)
	}
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != "reflect" {
		return false
	}
	recv := obj.Signature().Recv()
	if recv == nil {
		return false
	}
	switch recvName(recv.Type()) {
	case "Value":
		switch obj.Name() {
		case "Call", "CallSlice", "Method", "MethodByName":
			return true
		}
	case "Type":
		switch obj.Name() {
		case "Method", "MethodByName":
			return true
		}
	}
	return false
}
