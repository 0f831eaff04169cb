package callgraph

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// functions returns the functions whose calls become edges (every
// function and method declared in a built package, the function literals
// in them, and the instances of the generic functions of the unit's
// packages) and, in all, those plus every function they refer to. With
// withAll, all also holds every function the program can reach (methods
// of dependencies included), as VTA needs.
func (u *unit) functions(withAll bool) (source []*ssa.Function, all map[*ssa.Function]bool) {
	if withAll {
		all = ssautil.AllFunctions(u.prog)
	} else {
		all = map[*ssa.Function]bool{}
	}
	// AllFunctions skips methods of generic types and methods nothing
	// refers to; add every declared function and what it refers to.
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if fn == nil || all[fn] {
			return
		}
		all[fn] = true
		var buf [10]*ssa.Value
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				for _, op := range instr.Operands(buf[:0]) {
					if g, ok := (*op).(*ssa.Function); ok {
						add(g)
					}
				}
			}
		}
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, p := range u.variants {
		if !u.built[p] {
			continue
		}
		for _, m := range p.Members {
			switch m := m.(type) {
			case *ssa.Function:
				add(m)
			case *ssa.Type:
				named, ok := types.Unalias(m.Type()).(*types.Named)
				if !ok || types.IsInterface(named) {
					continue
				}
				for i := 0; i < named.NumMethods(); i++ {
					add(u.prog.FuncValue(named.Method(i)))
				}
			}
		}
	}

	for fn := range all {
		if len(fn.Blocks) == 0 {
			continue
		}
		top := outermost(fn)
		origin := top
		if isBuiltInstance(top) {
			origin = top.Origin()
		} else if top.Synthetic != "" && top.Synthetic != packageInitializer {
			continue // wrappers, thunks, bound methods: not source code
		}
		if _, ok := u.pathOf[origin.Pkg]; !ok || origin.Pkg == nil {
			continue
		}
		source = append(source, fn)
	}
	return source, all
}

const packageInitializer = "package initializer"

// outermost returns the named function fn is a literal of, or fn.
func outermost(fn *ssa.Function) *ssa.Function {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn
}

// isInstance reports whether fn is an instance of a generic function or
// method (built from its syntax or a wrapper calling it).
func isInstance(fn *ssa.Function) bool {
	return fn.Origin() != nil
}

// isBuiltInstance reports whether fn is an instance of a generic
// function or method built from its syntax with the type arguments
// substituted, as opposed to a wrapper that calls the generic function.
func isBuiltInstance(fn *ssa.Function) bool {
	return fn.Origin() != nil && strings.HasPrefix(fn.Synthetic, "instance of")
}

// isGenericOrigin reports whether fn is a generic function or a method of
// a generic type, with its type parameters.
func isGenericOrigin(fn *ssa.Function) bool {
	return fn.Origin() == nil && (fn.TypeParams().Len() > 0 || recvTypeParams(fn) > 0)
}

func recvTypeParams(fn *ssa.Function) int {
	if obj, ok := fn.Object().(*types.Func); ok {
		if recv := obj.Signature().Recv(); recv != nil {
			t := recv.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if n, ok := types.Unalias(t).(*types.Named); ok {
				return n.TypeParams().Len()
			}
		}
	}
	return 0
}

// vtaResolver answers from a VTA call graph.
type vtaResolver struct {
	g    *callgraph.Graph
	memo map[*ssa.Function]map[ssa.CallInstruction][]*ssa.Function
}

func newVTA(all map[*ssa.Function]bool) *vtaResolver {
	// With a nil initial graph VTA resolves its own dynamic calls with
	// a lazy CHA, much cheaper than building cha.CallGraph.
	return &vtaResolver{
		g:    vta.CallGraph(all, nil),
		memo: map[*ssa.Function]map[ssa.CallInstruction][]*ssa.Function{},
	}
}

func (r *vtaResolver) callees(site ssa.CallInstruction) []*ssa.Function {
	fn := site.Parent()
	m, ok := r.memo[fn]
	if !ok {
		if n := r.g.Nodes[fn]; n != nil {
			for _, e := range n.Out {
				if e.Site.Common().StaticCallee() != nil {
					continue
				}
				if m == nil {
					m = map[ssa.CallInstruction][]*ssa.Function{}
				}
				m[e.Site] = append(m[e.Site], e.Callee.Func)
			}
		}
		r.memo[fn] = m
	}
	return m[site]
}

// A target is where a callee stands in the graph.
type target struct {
	fn      int32 // in edgeBuilder.funcs
	literal bool
}

// targets maps a callee to the declarations it stands for: itself when
// it is declared; the declaration enclosing it when it is a function
// literal; the generic function of an instance; the method a wrapper,
// bound method value or thunk calls, looked through to the concrete
// methods when that method is abstract (a method value of an interface).
func (b *edgeBuilder) targets(fn *ssa.Function, depth int) []target {
	if ts, ok := b.targetMemo[fn]; ok {
		return ts
	}
	b.targetMemo[fn] = nil // cycles through wrappers end here
	var ts []target
	switch {
	case fn.Parent() != nil:
		top := outermost(fn)
		if id, ok := b.declOf(top, fn.Pos()); ok {
			ts = []target{{fn: id, literal: true}}
		}
	case fn.Synthetic == packageInitializer:
	case isInstance(fn):
		ts = b.targets(fn.Origin(), depth)
	case fn.Synthetic == "" || strings.HasPrefix(fn.Synthetic, "from type information"):
		if obj, ok := fn.Object().(*types.Func); ok {
			ts = []target{{fn: b.funcID(obj)}}
		}
	default: // wrapper, bound method, thunk
		obj, ok := fn.Object().(*types.Func)
		if !ok {
			break
		}
		if !isAbstract(obj) {
			ts = []target{{fn: b.funcID(obj)}}
			break
		}
		if depth > 3 {
			break
		}
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				c, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				var cs []*ssa.Function
				if g := c.Common().StaticCallee(); g != nil {
					cs = []*ssa.Function{g}
				} else {
					cs, _ = b.resolve(c)
				}
				for _, g := range cs {
					ts = append(ts, b.targets(g, depth+1)...)
				}
			}
		}
	}
	b.targetMemo[fn] = ts
	return ts
}

// abstractWrapper returns the interface method a thunk or bound method
// of an interface method calls, or nil when fn is not one.
func abstractWrapper(fn *ssa.Function) *types.Func {
	if fn.Synthetic == "" || fn.Parent() != nil || isInstance(fn) {
		return nil
	}
	if obj, ok := fn.Object().(*types.Func); ok && isAbstract(obj) {
		return obj
	}
	return nil
}

// isAbstract reports whether obj is an interface method.
func isAbstract(obj *types.Func) bool {
	recv := obj.Signature().Recv()
	return recv != nil && types.IsInterface(recv.Type())
}
