package callgraph

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// keepsSyntax reports whether instances may still be built from fn's
// syntax: a generic function, or a function literal inside one.
func keepsSyntax(fn *ssa.Function) bool {
	for f := fn; f != nil; f = f.Parent() {
		if f.TypeParams().Len() > 0 || f.TypeArgs() != nil {
			return true
		}
		if recv := f.Signature.Recv(); recv != nil {
			if n, ok := types.Unalias(derefType(recv.Type())).(*types.Named); ok && n.TypeParams().Len() > 0 {
				return true
			}
		}
	}
	return false
}

func derefType(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// releaseBodies drops the bodies of the functions of a built package
// that nothing in CHA's resolution, the edges or keep (Options.KeepBody)
// will read: no call, no
// function value taken or stored, no closure, no result of a function
// type. What is left of such a body (a giant composite literal of a
// generated table, typically: the standard-library symbol table of
// golang.org/x/tools holds 35 MiB of SSA in one init function) would stay
// in memory until the end of the build for nothing. VTA follows every
// value that flows into an interface, so it keeps every body.
func releaseBodies(p *ssa.Package, keep func(*ssa.Function) bool) {
	for _, m := range p.Members {
		if fn, ok := m.(*ssa.Function); ok {
			eachReleasable(fn, func(fn *ssa.Function) {
				if inert(fn) && (keep == nil || !keep(fn)) {
					fn.Blocks = nil
					fn.Recover = nil
					fn.Locals = nil
				}
			})
		}
	}
}

// eachReleasable calls release on fn and on every function literal inside
// it, the literals first, leaving out functions without a body and those
// instances may still be built from (keepsSyntax).
func eachReleasable(fn *ssa.Function, release func(*ssa.Function)) {
	if fn == nil || fn.Blocks == nil || keepsSyntax(fn) {
		return
	}
	for _, anon := range fn.AnonFuncs {
		eachReleasable(anon, release)
	}
	release(fn)
}

// inert reports whether fn's body has nothing the edges or CHA read.
func inert(fn *ssa.Function) bool {
	if len(fn.AnonFuncs) > 0 {
		return false
	}
	var buf [10]*ssa.Value
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch instr := instr.(type) {
			case ssa.CallInstruction, *ssa.MakeClosure:
				return false
			case *ssa.Store:
				if isFuncType(instr.Val.Type()) {
					return false
				}
			case *ssa.Return:
				for _, r := range instr.Results {
					if isFuncType(r.Type()) {
						return false
					}
				}
			}
			for _, op := range instr.Operands(buf[:0]) {
				if _, ok := (*op).(*ssa.Function); ok {
					return false
				}
			}
		}
	}
	return true
}
