package callgraph

import (
	"go/ast"
	"go/types"
	"reflect"
	"unsafe"

	"golang.org/x/tools/go/ssa"
)

// go/ssa keeps each function's syntax tree (Function.Syntax) for as long
// as the function lives, after its body is built and its type
// information released. The edges need the bodies until the end of the
// build, but nothing reads their syntax again, except that instances of
// a generic function are built from its syntax. On golang.org/x/tools the
// retained trees are about a quarter of the heap at its peak.
//
// releaseSyntax drops the syntax of every function of a built package
// that no instance will be built from. There is no API for it, so it
// clears go/ssa's unexported field by its offset; syntaxOffset finds the
// field by name and type, and when the pinned x/tools changes its layout
// the release is skipped (TestReleaseSyntax fails rather than the build).
func releaseSyntax(p *ssa.Package) {
	if syntaxOffset == ^uintptr(0) {
		return
	}
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		if fn == nil || fn.Blocks == nil || keepsSyntax(fn) {
			return
		}
		*(*ast.Node)(unsafe.Add(unsafe.Pointer(fn), syntaxOffset)) = nil
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
	}
	for _, m := range p.Members {
		switch m := m.(type) {
		case *ssa.Function:
			visit(m)
		case *ssa.Type:
			named, ok := types.Unalias(m.Type()).(*types.Named)
			if !ok || types.IsInterface(named) || named.TypeParams().Len() > 0 {
				continue
			}
			for i := 0; i < named.NumMethods(); i++ {
				if fn := p.Prog.FuncValue(named.Method(i)); fn != nil && fn.Pkg == p {
					visit(fn)
				}
			}
		}
	}
}

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

// syntaxOffset is the offset of ssa.Function's syntax field, or -1.
var syntaxOffset = func() uintptr {
	f, ok := reflect.TypeFor[ssa.Function]().FieldByName("syntax")
	if !ok || f.Type != reflect.TypeFor[ast.Node]() {
		return ^uintptr(0)
	}
	return f.Offset
}()

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
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		if fn == nil || fn.Blocks == nil || keepsSyntax(fn) {
			return
		}
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
		if !inert(fn) || (keep != nil && keep(fn)) {
			return
		}
		fn.Blocks = nil
		fn.Recover = nil
		fn.Locals = nil
	}
	for _, m := range p.Members {
		if fn, ok := m.(*ssa.Function); ok {
			visit(fn)
		}
	}
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
