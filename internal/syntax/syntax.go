// Package syntax names Go declarations from their syntax alone, the one
// rule the indexer, get_file_outline and read_source share: a method is
// "Type.Method" after its receiver's base type, a field or interface
// method "Type.Field", and an embedded field is named by its type's name.
// The three must agree, since an outline and a re-read source find the
// indexed symbol by its qualified name; they work on files that do not
// type-check, so nothing here needs go/types' checker. Standard library
// only.
package syntax

import (
	"go/ast"
	"go/types"
	"regexp"
)

// Qualified joins a type's name and one of its members' names:
// "Type.Method", "Type.Field".
func Qualified(typeName, member string) string {
	return typeName + "." + member
}

// FuncName returns the qualified name of a function declaration: "Name"
// for a function, "Type.Name" for a method (after ReceiverBase), and
// whether it is a method.
func FuncName(d *ast.FuncDecl) (qname string, method bool) {
	if d.Recv != nil && len(d.Recv.List) > 0 {
		return Qualified(ReceiverBase(d.Recv.List[0].Type), d.Name.Name), true
	}
	return d.Name.Name, false
}

// ReceiverBase returns the name of a receiver's base type: "List" for
// "List", "*List", "(List)", "List[T]" and "*List[K, V]". A receiver that
// names no type of its package (code that does not compile, such as
// "pkg.T" or a parse error) is printed as ExprString prints what is left
// once the pointer, parentheses and type arguments are gone.
func ReceiverBase(e ast.Expr) string {
	e = unwrap(e)
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ExprString(e)
}

// EmbeddedIdent returns the identifier that names an embedded field: T in
// "T", "*T", "pkg.T", "T[int]"; nil when the expression names no type.
func EmbeddedIdent(e ast.Expr) *ast.Ident {
	switch t := unwrap(e).(type) {
	case *ast.SelectorExpr:
		return t.Sel
	case *ast.Ident:
		return t
	}
	return nil
}

// EmbeddedName is the name of EmbeddedIdent, "" when there is none.
func EmbeddedName(e ast.Expr) string {
	if id := EmbeddedIdent(e); id != nil {
		return id.Name
	}
	return ""
}

// DeclIdents lists the identifiers of f that declare something, in
// source order but for a function's name, which comes before its
// receiver: the package name, functions, methods, types, constants,
// variables, fields and parameters (an embedded field by its type's
// name, EmbeddedIdent) and interface methods. The benchmarks and the
// end-to-end tests ask a language server about each of them when they
// compare its answers with the index's.
func DeclIdents(f *ast.File) []*ast.Ident {
	var out []*ast.Ident
	add := func(id *ast.Ident) {
		if id != nil {
			out = append(out, id)
		}
	}
	add(f.Name)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			add(n.Name)
		case *ast.TypeSpec:
			add(n.Name)
		case *ast.ValueSpec:
			for _, id := range n.Names {
				add(id)
			}
		case *ast.Field:
			for _, id := range n.Names {
				add(id)
			}
			if len(n.Names) == 0 {
				add(EmbeddedIdent(n.Type))
			}
		}
		return true
	})
	return out
}

// unwrap strips a type expression's pointer, parentheses and type
// arguments, in any nesting.
func unwrap(e ast.Expr) ast.Expr {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		default:
			return e
		}
	}
}

// ExprString prints an expression from its syntax, showing the parts the
// parser could not make sense of (and missing ones) as "…" rather than
// as the "(ast: *ast.BadExpr)" types.ExprString prints.
func ExprString(e ast.Expr) string {
	return badSyntax.ReplaceAllString(types.ExprString(e), "…")
}

var badSyntax = regexp.MustCompile(`\(ast: [^)]*\)`)
