package callgraph

import (
	"go/ast"
	"os"
	"reflect"
	"unsafe"

	"golang.org/x/tools/go/ssa"
)

// SyntaxEnv is the environment variable of the syntax release's switch:
// "keep" leaves go/ssa's syntax trees alone; anything else, or unset,
// releases them. It is read once, when the program starts.
const SyntaxEnv = "SEXTANT_SSA_SYNTAX"

// releasingSyntax is the switch: see releaseSyntax.
var releasingSyntax = os.Getenv(SyntaxEnv) != "keep"

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
//
// This is the module's one write through package unsafe into another
// module's memory. SyntaxEnv=keep turns it off (the trees then stay, and
// the peak heap grows by what they hold); TestSyntaxSwitch holds that the
// edges and the functions visited are the same either way.
func releaseSyntax(p *ssa.Package) {
	if syntaxOffset == ^uintptr(0) || !releasingSyntax {
		return
	}
	// Not the methods of generic types: instances are built from their
	// syntax.
	declaredFuncs(p, false, func(fn *ssa.Function) {
		if fn == nil || fn.Pkg != p {
			return
		}
		eachReleasable(fn, func(fn *ssa.Function) {
			*(*ast.Node)(unsafe.Add(unsafe.Pointer(fn), syntaxOffset)) = nil
		})
	})
}

// syntaxOffset is the offset of ssa.Function's syntax field, or -1.
var syntaxOffset = func() uintptr {
	f, ok := reflect.TypeFor[ssa.Function]().FieldByName("syntax")
	if !ok || f.Type != reflect.TypeFor[ast.Node]() {
		return ^uintptr(0)
	}
	return f.Offset
}()
