package callgraph

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// chaResolver resolves dynamic calls without a whole-program analysis
// (see CHA).
//
// Interface calls: the methods of the runtime types of the program (the
// types converted to an interface in the code that was built) whose type
// implements the called interface. A call of a method of a type
// parameter (in a generic function nothing instantiates) dispatches on
// the type argument, which need not be converted to anything: it may
// reach those and every other method of a concrete type in the unit's
// functions. Only the methods of the Ids that interface calls name are
// made (see ensureMethods): making one may build a wrapper or an
// instance.
//
// Function values: the called value is traced back, on demand, through
// phis and conversions, closures, loads of package variables, struct
// fields and captured variables (to everything stored there), parameters
// of functions that are only called directly (to the arguments of those
// calls) and results of static calls (to what the callee returns). A
// value made by a dependency (the result of one of its functions, one of
// its variables) has no candidate, as with VTA, which sees no more. When
// the trail is lost, every function of an identical signature whose
// value is taken in the unit is a candidate.
//
// The variants of a package ("p" and "p [p.test]") have distinct
// functions, variables and fields for the same declarations, and only one
// of them may have bodies; so functions, package variables and fields are
// keyed by the position of their declaration, which the variants share.
type chaResolver struct {
	prog         *ssa.Program
	fromSource   func(*ssa.Package) bool
	runtimeTypes func() []types.Type // the program's runtime types (methodSets.runtimeTypes)

	all      map[*ssa.Function]bool
	sels     map[string][]*types.Selection // method selections of the runtime types, by types.Func.Id
	methods  map[string][]*ssa.Function    // their functions, made per Id on first use (methodsOf)
	viaIface map[token.Pos]bool            // methods that interface calls may reach
	memo     map[imethod][]*ssa.Function

	// Every method of Id, for calls on type parameters: the declared
	// ones, and once declaredDone[Id] those of the runtime types too.
	declared     map[string][]*ssa.Function
	declaredDone map[string]bool

	taken    map[token.Pos]bool         // functions whose value is taken
	bySig    map[string][]*ssa.Function // functions whose value is taken, by pathString of their signature
	bodies   map[token.Pos]bool         // functions with a body
	stores   map[any][]ssa.Value        // package variable or field (by position) or *ssa.Alloc → values of a function type stored there
	calls    map[token.Pos][]*ssa.CallCommon
	closures map[*ssa.Function][]*ssa.MakeClosure
	returns  map[token.Pos][]*ssa.Return

	// The trail of the value being traced: finished values, those being
	// traced, those of these reached again through a cycle (what depends
	// on them is not final until they are), and the steps taken.
	values    map[ssa.Value]*valueSet
	busy      map[ssa.Value]bool
	reentered map[ssa.Value]bool
	steps     int
}

type imethod struct {
	iface     *types.Interface
	id        string
	typeParam bool // called on a type parameter: every method (declaredMethods)
}

// valueSet is what a value may hold: functions, and whether the list is
// complete (else the signature decides).
type valueSet struct {
	fns      []*ssa.Function
	complete bool
}

// newCHA indexes bodies, the functions of all with a body, in the order
// given.
func newCHA(prog *ssa.Program, all map[*ssa.Function]bool, bodies []*ssa.Function, fromSource func(*ssa.Package) bool, runtimeTypes func() []types.Type) *chaResolver {
	r := &chaResolver{
		prog:         prog,
		runtimeTypes: runtimeTypes,
		fromSource:   fromSource,
		all:          all,
		memo:         map[imethod][]*ssa.Function{},
		taken:        map[token.Pos]bool{},
		bodies:       map[token.Pos]bool{},
		stores:       map[any][]ssa.Value{},
		calls:        map[token.Pos][]*ssa.CallCommon{},
		closures:     map[*ssa.Function][]*ssa.MakeClosure{},
		returns:      map[token.Pos][]*ssa.Return{},
		values:       map[ssa.Value]*valueSet{},
		busy:         map[ssa.Value]bool{},
		reentered:    map[ssa.Value]bool{},
	}
	var buf [10]*ssa.Value
	var takenFns []*ssa.Function
	isTaken := map[*ssa.Function]bool{}
	for _, fn := range bodies {
		r.bodies[fn.Pos()] = true
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				var callee *ssa.Value
				switch instr := instr.(type) {
				case ssa.CallInstruction:
					c := instr.Common()
					if !c.IsInvoke() {
						callee = &c.Value
						if g := c.StaticCallee(); g != nil {
							if _, isFunc := c.Value.(*ssa.Function); isFunc {
								r.calls[g.Pos()] = append(r.calls[g.Pos()], c)
							}
						}
					}
				case *ssa.Store:
					if isFuncType(instr.Val.Type()) {
						if k := storeKey(instr.Addr); k != nil {
							r.stores[k] = append(r.stores[k], instr.Val)
						}
					}
				case *ssa.MakeClosure:
					r.closures[instr.Fn.(*ssa.Function)] = append(r.closures[instr.Fn.(*ssa.Function)], instr)
				case *ssa.Return:
					r.returns[fn.Pos()] = append(r.returns[fn.Pos()], instr)
				}
				for _, op := range instr.Operands(buf[:0]) {
					if op == callee {
						continue // a direct call does not take the function's value
					}
					if g, ok := (*op).(*ssa.Function); ok && !isTaken[g] {
						isTaken[g] = true
						takenFns = append(takenFns, g)
						r.taken[g.Pos()] = true
					}
				}
			}
		}
	}
	// By the signature spelled with package paths, as the variants share
	// it: a handler a test of package q hands to p has p's types, while
	// the call in "p [p.test]" has that variant's (see variants.go).
	r.bySig = map[string][]*ssa.Function{}
	for _, fn := range takenFns {
		k := pathString(fn.Signature)
		r.bySig[k] = append(r.bySig[k], fn)
	}
	return r
}

func isFuncType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

// storeKey is the abstract location an address stands for: a package
// variable, a struct field (of any value of the struct type), or a local
// variable.
func storeKey(addr ssa.Value) any {
	switch a := addr.(type) {
	case *ssa.Global:
		return declKey(a.Object())
	case *ssa.Alloc:
		return a
	case *ssa.FieldAddr:
		if f := fieldOf(a.X.Type(), a.Field); f != nil {
			return declKey(f)
		}
	}
	return nil
}

// declKey keys a package variable or a field by its position, the same
// in every variant; one without a position by itself.
func declKey(obj types.Object) any {
	if obj == nil {
		return nil
	}
	if obj.Pos().IsValid() {
		return obj.Pos()
	}
	return obj
}

// fieldOf returns field i of the struct t or *t points to.
func fieldOf(t types.Type, i int) *types.Var {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if s, ok := t.Underlying().(*types.Struct); ok && i < s.NumFields() {
		return s.Field(i).Origin()
	}
	return nil
}

func (r *chaResolver) callees(site ssa.CallInstruction) []*ssa.Function {
	c := site.Common()
	if c.IsInvoke() {
		return r.implementations(c)
	}
	if g := c.StaticCallee(); g != nil {
		return []*ssa.Function{g}
	}
	r.steps = 0
	vs := r.sources(c.Value, 0)
	if vs.complete {
		return vs.fns
	}
	return r.bySig[pathString(c.Signature())]
}

// implementations returns the methods an interface call may reach.
func (r *chaResolver) implementations(c *ssa.CallCommon) []*ssa.Function {
	r.ensureMethods()
	iface, ok := c.Value.Type().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	_, typeParam := types.Unalias(c.Value.Type()).(*types.TypeParam)
	// The two lists answer the same interface differently (a constraint
	// may be an ordinary interface too): the key tells them apart, or
	// the answer would be the list of whichever was asked first.
	key := imethod{iface, c.Method.Id(), typeParam}
	ms, ok := r.memo[key]
	if !ok {
		var fns []*ssa.Function
		if typeParam {
			// A method of a type parameter dispatches on the type
			// argument, which need not ever be converted to an
			// interface.
			fns = r.declaredMethods(key.id)
		} else {
			fns = r.methodsOf(key.id)
		}
		for _, fn := range fns {
			if recv := fn.Signature.Recv().Type(); types.Implements(recv, iface) || implementsAcrossVariants(recv, iface) {
				ms = append(ms, fn)
			}
		}
		r.memo[key] = ms
	}
	return ms
}

// ensureMethods indexes the method selections of the runtime types by
// method Id, without making their functions: prog.MethodValue creates
// (and builds the bodies of) wrappers for promoted and pointer methods
// and instances of generic methods, and most Ids are never called
// through an interface. methodsOf makes the functions of one Id when an
// interface call first asks for it.
//
// viaIface holds the methods of the selections kept: those that have a
// function (hasMethodValue), as when every function was made here.
func (r *chaResolver) ensureMethods() {
	if r.sels != nil {
		return
	}
	r.sels = map[string][]*types.Selection{}
	r.methods = map[string][]*ssa.Function{}
	r.viaIface = map[token.Pos]bool{}
	free := map[types.Type]bool{}
	for _, t := range r.runtimeTypes() {
		if types.IsInterface(t) {
			continue
		}
		mset := r.prog.MethodSets.MethodSet(t)
		for i := 0; i < mset.Len(); i++ {
			sel := mset.At(i)
			if hasMethodValue(sel, free) {
				id := sel.Obj().Id()
				r.sels[id] = append(r.sels[id], sel)
				r.viaIface[sel.Obj().Pos()] = true
			}
		}
	}
}

// hasMethodValue reports whether prog.MethodValue(sel) returns a
// function rather than nil, without making it: the method is not
// generic and its receiver is neither an interface nor a type with a free
// type parameter (x/tools v0.52.0, go/ssa/methods.go). free memoises
// hasTypeParam.
func hasMethodValue(sel *types.Selection, free map[types.Type]bool) bool {
	m := sel.Obj().(*types.Func)
	return m.Signature().TypeParams().Len() == 0 &&
		!types.IsInterface(sel.Recv()) &&
		!hasTypeParam(sel.Recv(), free)
}

// methodsOf returns the methods of the runtime types whose Id is id, in
// the order of their selections, making them on first use.
func (r *chaResolver) methodsOf(id string) []*ssa.Function {
	r.ensureMethods()
	fns, ok := r.methods[id]
	if !ok {
		for _, sel := range r.sels[id] {
			if fn := r.prog.MethodValue(sel); fn != nil {
				fns = append(fns, fn)
			}
		}
		r.methods[id] = fns
	}
	return fns
}

// declaredMethods returns the methods of Id id of every concrete type in
// the program's functions, then those of the runtime types not among
// them: a type argument need not be converted to an interface, and a
// method of an instance converted to one (made on demand, after the
// functions were gathered) is in no list of functions. Only the runtime
// types' methods of id are made.
func (r *chaResolver) declaredMethods(id string) []*ssa.Function {
	if r.declared == nil {
		r.declared = map[string][]*ssa.Function{}
		for fn := range r.all {
			if recv := fn.Signature.Recv(); recv != nil && !types.IsInterface(recv.Type()) {
				if obj, ok := fn.Object().(*types.Func); ok {
					r.declared[obj.Id()] = append(r.declared[obj.Id()], fn)
				}
			}
		}
		r.declaredDone = map[string]bool{}
	}
	fns := r.declared[id]
	if !r.declaredDone[id] {
		r.declaredDone[id] = true
		seen := make(map[*ssa.Function]bool, len(fns))
		for _, fn := range fns {
			seen[fn] = true
		}
		for _, fn := range r.methodsOf(id) {
			if !seen[fn] {
				seen[fn] = true
				fns = append(fns, fn)
			}
		}
		r.declared[id] = fns
	}
	return fns
}

// hasTypeParam reports whether t contains a free type parameter, as
// go/ssa decides before it makes a method (typeparams.Free, internal to
// x/tools, of which this is a copy); memo holds the answers so far. An
// interface's type terms are walked as written, not normalised as
// there: no value's type contains an interface with terms. (The
// runtime types are those go/ssa found free of type parameters and their
// element types, so this should be false for all of them; it is asked
// so as to follow MethodValue whatever go/ssa records.)
func hasTypeParam(t types.Type, memo map[types.Type]bool) (res bool) {
	if x, ok := memo[t]; ok {
		return x
	}
	memo[t] = false // a cycle adds nothing
	defer func() { memo[t] = res }()
	switch t := t.(type) {
	case *types.Alias:
		if t.TypeParams().Len() > t.TypeArgs().Len() {
			return true
		}
		return hasTypeParam(types.Unalias(t), memo)
	case *types.Array:
		return hasTypeParam(t.Elem(), memo)
	case *types.Slice:
		return hasTypeParam(t.Elem(), memo)
	case *types.Pointer:
		return hasTypeParam(t.Elem(), memo)
	case *types.Chan:
		return hasTypeParam(t.Elem(), memo)
	case *types.Map:
		return hasTypeParam(t.Key(), memo) || hasTypeParam(t.Elem(), memo)
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if hasTypeParam(t.Field(i).Type(), memo) {
				return true
			}
		}
	case *types.Tuple:
		for i := 0; i < t.Len(); i++ {
			if hasTypeParam(t.At(i).Type(), memo) {
				return true
			}
		}
	case *types.Signature:
		// Type parameters the signature declares (a generic function
		// type, a method's receiver) are not free.
		return hasTypeParam(t.Params(), memo) || hasTypeParam(t.Results(), memo)
	case *types.Interface:
		for i := 0; i < t.NumMethods(); i++ {
			if hasTypeParam(t.Method(i).Type(), memo) {
				return true
			}
		}
		for i := 0; i < t.NumEmbeddeds(); i++ {
			if hasTypeParam(t.EmbeddedType(i), memo) {
				return true
			}
		}
	case *types.Union:
		for i := 0; i < t.Len(); i++ {
			if hasTypeParam(t.Term(i).Type(), memo) {
				return true
			}
		}
	case *types.Named:
		if t.TypeParams().Len() > t.TypeArgs().Len() {
			return true // uninstantiated
		}
		for i := 0; i < t.TypeArgs().Len(); i++ {
			if hasTypeParam(t.TypeArgs().At(i), memo) {
				return true
			}
		}
		// A type declared in a generic function may use its type
		// parameters.
		return hasTypeParam(t.Underlying(), memo)
	case *types.TypeParam:
		return true
	}
	return false
}

// maxDepth and maxSteps bound the trail of one called value.
const (
	maxDepth = 24
	maxSteps = 4096
)

var (
	lost    = &valueSet{}               // the trail is lost: the signature decides
	nothing = &valueSet{complete: true} // no function can be there
)

// sources returns the functions v may hold.
func (r *chaResolver) sources(v ssa.Value, depth int) *valueSet {
	if vs, ok := r.values[v]; ok {
		return vs
	}
	if r.busy[v] {
		// A cycle: what goes round adds nothing to what comes in
		// elsewhere, but what is found meanwhile is partial.
		r.reentered[v] = true
		return nothing
	}
	r.steps++
	if depth > maxDepth || r.steps > maxSteps {
		return lost
	}
	r.busy[v] = true
	vs := r.trace(v, depth)
	delete(r.busy, v)
	delete(r.reentered, v)
	if len(r.reentered) == 0 {
		r.values[v] = vs
	}
	return vs
}

func (r *chaResolver) trace(v ssa.Value, depth int) *valueSet {
	switch v := v.(type) {
	case *ssa.Function:
		return &valueSet{fns: []*ssa.Function{v}, complete: true}
	case *ssa.MakeClosure:
		return &valueSet{fns: []*ssa.Function{v.Fn.(*ssa.Function)}, complete: true}
	case *ssa.Const:
		return nothing
	case *ssa.Phi:
		return r.union(v.Edges, depth)
	case *ssa.ChangeType:
		return r.sources(v.X, depth+1)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return r.loaded(v.X, depth)
		}
	case *ssa.Field:
		if f := fieldOf(v.X.Type(), v.Field); f != nil {
			return r.union(r.stores[declKey(f)], depth)
		}
	case *ssa.Parameter:
		fn := v.Parent()
		if !fn.Pos().IsValid() {
			return lost
		}
		if fn.Signature.Recv() != nil {
			r.ensureMethods()
		}
		if r.taken[fn.Pos()] || r.viaIface[fn.Pos()] {
			return lost // called from where the trail does not go
		}
		i := paramIndex(fn, v)
		if i < 0 {
			return lost
		}
		var args []ssa.Value
		for _, c := range r.calls[fn.Pos()] {
			if i < len(c.Args) {
				args = append(args, c.Args[i])
			}
		}
		return r.union(args, depth)
	case *ssa.FreeVar:
		return r.captured(v, depth, r.sources)
	case *ssa.Call:
		return r.results(&v.Call, 0, depth)
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok {
			return r.results(&call.Call, v.Index, depth)
		}
	}
	return lost
}

// loaded returns what a load from addr may produce.
func (r *chaResolver) loaded(addr ssa.Value, depth int) *valueSet {
	switch a := addr.(type) {
	case *ssa.Global:
		if a.Pkg == nil || !r.fromSource(a.Pkg) {
			return nothing // a dependency's variable
		}
		return r.union(r.stores[declKey(a.Object())], depth)
	case *ssa.Alloc:
		return r.union(r.stores[a], depth)
	case *ssa.FieldAddr:
		if f := fieldOf(a.X.Type(), a.Field); f != nil {
			return r.union(r.stores[declKey(f)], depth)
		}
	case *ssa.FreeVar:
		// A captured variable: what is stored where the closure's
		// creator keeps it.
		return r.captured(a, depth, r.loaded)
	}
	return lost
}

// captured applies f to the values bound to free variable v where its
// closures are made.
func (r *chaResolver) captured(v *ssa.FreeVar, depth int, f func(ssa.Value, int) *valueSet) *valueSet {
	fn := v.Parent()
	i := -1
	for j, fv := range fn.FreeVars {
		if fv == v {
			i = j
		}
	}
	mcs := r.closures[fn]
	if i < 0 || len(mcs) == 0 {
		return lost
	}
	out := &valueSet{complete: true}
	for _, mc := range mcs {
		if i >= len(mc.Bindings) {
			return lost
		}
		out = merge(out, f(mc.Bindings[i], depth+1))
	}
	return out
}

// results returns what result i of call may be.
func (r *chaResolver) results(c *ssa.CallCommon, i, depth int) *valueSet {
	g := c.StaticCallee()
	if g == nil {
		return lost
	}
	if !r.bodies[g.Pos()] {
		if g.Pkg != nil && r.fromSource(g.Pkg) || isInstance(g) {
			return lost
		}
		return nothing // made by a dependency: nothing the unit can see
	}
	var vals []ssa.Value
	for _, ret := range r.returns[g.Pos()] {
		if i < len(ret.Results) {
			vals = append(vals, ret.Results[i])
		}
	}
	return r.union(vals, depth)
}

func (r *chaResolver) union(vals []ssa.Value, depth int) *valueSet {
	out := &valueSet{complete: true}
	for _, v := range vals {
		out = merge(out, r.sources(v, depth+1))
		if !out.complete {
			return lost
		}
	}
	return out
}

func merge(a, b *valueSet) *valueSet {
	if !a.complete || !b.complete {
		return lost
	}
	out := &valueSet{fns: a.fns, complete: true}
	for _, f := range b.fns {
		if !containsFunc(out.fns, f) {
			out.fns = append(out.fns[:len(out.fns):len(out.fns)], f)
		}
	}
	return out
}

func containsFunc(fns []*ssa.Function, f *ssa.Function) bool {
	for _, g := range fns {
		if g == f {
			return true
		}
	}
	return false
}

func paramIndex(fn *ssa.Function, p *ssa.Parameter) int {
	for i, q := range fn.Params {
		if q == p {
			return i
		}
	}
	return -1
}
