package callgraph

import (
	"go/types"
	"slices"
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
		declaredFuncs(p, true, add)
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

// declaredFuncs calls f with each function package p declares at package
// level and each method of its named types other than interfaces, as
// Program.FuncValue gives it (nil where it gives none); with generic
// false, not the methods of generic types.
func declaredFuncs(p *ssa.Package, generic bool, f func(*ssa.Function)) {
	for _, m := range p.Members {
		switch m := m.(type) {
		case *ssa.Function:
			f(m)
		case *ssa.Type:
			named, ok := types.Unalias(m.Type()).(*types.Named)
			if !ok || types.IsInterface(named) || !generic && named.TypeParams().Len() > 0 {
				continue
			}
			for i := 0; i < named.NumMethods(); i++ {
				f(p.Prog.FuncValue(named.Method(i)))
			}
		}
	}
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
// methods when that method is abstract (a method value of an interface,
// a method promoted from an embedded interface).
//
// Such abstract wrappers dispatch again, and may reach other abstract
// wrappers, in chains and cycles (a struct embedding an interface that
// it implements itself is among that interface's implementations). The
// answer for fn is what every wrapper reachable from fn stands for, all
// of it: it must not depend on which wrapper was asked about first, so
// only answers computed from fn itself, over the whole chain, are
// memoised.
func (b *edgeBuilder) targets(fn *ssa.Function) []target {
	if ts, ok := b.targetMemo[fn]; ok {
		return ts
	}
	ts, through := b.ownTargets(fn)
	if through {
		ts = b.throughWrappers(fn)
	}
	b.targetMemo[fn] = ts
	return ts
}

// ownTargets returns the declarations fn stands for by itself, or
// through when fn is an abstract wrapper whose calls say what it
// stands for.
func (b *edgeBuilder) ownTargets(fn *ssa.Function) (ts []target, through bool) {
	switch {
	case fn.Parent() != nil:
		top := outermost(fn)
		if id, ok := b.declOf(top, fn.Pos()); ok {
			return []target{{fn: id, literal: true}}, false
		}
		return nil, false
	case fn.Synthetic == packageInitializer:
		return nil, false
	case isInstance(fn):
		return b.targets(fn.Origin()), false
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok {
		return nil, false
	}
	if fn.Synthetic == "" || strings.HasPrefix(fn.Synthetic, "from type information") || !isAbstract(obj) {
		return []target{{fn: b.funcID(obj)}}, false
	}
	return nil, true // wrapper, bound method or thunk of an abstract method
}

// throughWrappers returns the targets of every callee of the abstract
// wrapper fn, following the abstract wrappers among them to the end.
func (b *edgeBuilder) throughWrappers(fn *ssa.Function) []target {
	var ts []target
	add := func(more []target) {
		for _, t := range more {
			if !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
	}
	seen := map[*ssa.Function]bool{fn: true}
	work := []*ssa.Function{fn}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		for _, blk := range w.Blocks {
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
					if memo, ok := b.targetMemo[g]; ok {
						add(memo) // complete: computed from g itself
						continue
					}
					own, through := b.ownTargets(g)
					if !through {
						add(own)
					} else if !seen[g] {
						seen[g] = true
						work = append(work, g)
					}
				}
			}
		}
	}
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
