// Package typeproto reads the protocol of a Go type with go/types, from
// its package compiled from the disk: its method sets and where each
// method is promoted from, what it embeds, whether a copy of it is safe,
// the functions that construct it, the interfaces it satisfies, the
// sends, receives and closes of its channel fields and the goroutines its
// methods start. explain_type adds the index's effect rows and
// implementations to it.
package typeproto

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// Method is one method of a type's method sets.
type Method struct {
	Name      string      // the method's name
	Signature string      // parameters and results
	Receiver  string      // T: in the method sets of T and *T; *T: of *T only
	Promoted  string      // the embedded field it is promoted from, "" when declared on T
	Func      *types.Func // the method
}

// Interface is an interface a type satisfies; explain_type answers it as
// it is.
type Interface struct {
	Interface string `json:"interface" jsonschema:"pkg.Name"`
	Package   string `json:"package" jsonschema:"import path; empty for error"`
	Pointer   bool   `json:"pointer,omitempty" jsonschema:"only *T satisfies it"`
	Indexed   bool   `json:"indexed,omitempty" jsonschema:"find_implementations knows it too"`
}

// MethodSet lists the methods of *T (of T for an interface), each marked
// with whether T's own method set has it and, for a promoted method, the
// embedded fields it comes through.
func MethodSet(t types.Type, q types.Qualifier) []Method {
	valueSet := types.NewMethodSet(t)
	full := valueSet
	if !types.IsInterface(t) {
		full = types.NewMethodSet(types.NewPointer(t))
	}
	var out []Method
	for sel := range full.Methods() {
		fn, ok := sel.Obj().(*types.Func)
		if !ok {
			continue
		}
		m := Method{Name: fn.Name(), Signature: strings.TrimPrefix(types.TypeString(fn.Type(), q), "func"),
			Receiver: "T", Func: fn}
		if valueSet.Lookup(fn.Pkg(), fn.Name()) == nil {
			m.Receiver = "*T"
		}
		if idx := sel.Index(); len(idx) > 1 {
			m.Promoted = embeddedPath(t, idx[:len(idx)-1], q)
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Method) int {
		if (a.Promoted == "") != (b.Promoted == "") {
			if a.Promoted == "" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// embeddedPath names the chain of embedded fields of t that index walks,
// as "Inner" or "Inner.sync.Mutex".
func embeddedPath(t types.Type, index []int, q types.Qualifier) string {
	var parts []string
	for _, i := range index {
		st, ok := derefUnder(t).(*types.Struct)
		if !ok || i >= st.NumFields() {
			break
		}
		f := st.Field(i)
		parts = append(parts, types.TypeString(f.Type(), q))
		t = f.Type()
	}
	return strings.Join(parts, " → ")
}

// derefUnder is the underlying type of t, or of what t points to.
func derefUnder(t types.Type) types.Type {
	if p, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
		return p.Elem().Underlying()
	}
	return t.Underlying()
}

// EmbeddedTypes lists the types t's struct embeds.
func EmbeddedTypes(t types.Type, q types.Qualifier) []string {
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var out []string
	for f := range st.Fields() {
		if f.Embedded() {
			out = append(out, types.TypeString(f.Type(), q))
		}
	}
	return out
}

// CopyHazard says why a value of t must not be copied: the path to a lock
// it holds (a type whose pointer has Lock and Unlock, as sync.Mutex,
// sync.RWMutex and the noCopy markers of sync.WaitGroup and the atomic
// types have), through fields and arrays but not through pointers,
// slices, maps, channels or interfaces, which a copy shares. "" when a
// copy is safe.
func CopyHazard(t types.Type, q types.Qualifier) string {
	seen := map[types.Type]bool{}
	var walk func(t types.Type, path string) string
	walk = func(t types.Type, path string) string {
		t = types.Unalias(t)
		if seen[t] {
			return ""
		}
		seen[t] = true
		if _, isNamed := t.(*types.Named); isNamed && path != "" && isLock(t) {
			return path + " (" + types.TypeString(t, q) + ")"
		}
		switch u := t.Underlying().(type) {
		case *types.Struct:
			for f := range u.Fields() {
				name := f.Name()
				if path != "" {
					name = path + "." + name
				}
				if r := walk(f.Type(), name); r != "" {
					return r
				}
			}
		case *types.Array:
			return walk(u.Elem(), path+"[]")
		}
		return ""
	}
	if r := walk(t, ""); r != "" {
		return r
	}
	if isLock(t) {
		return "it is a lock itself (Lock and Unlock on *" + types.TypeString(t, q) + ")"
	}
	return ""
}

// isLock reports whether *t has the methods Lock() and Unlock().
func isLock(t types.Type) bool {
	ms := types.NewMethodSet(types.NewPointer(t))
	for _, name := range []string{"Lock", "Unlock"} {
		sel := ms.Lookup(nil, name)
		if sel == nil {
			return false
		}
		sig, ok := sel.Type().(*types.Signature)
		if !ok || sig.Params().Len() != 0 || sig.Results().Len() != 0 {
			return false
		}
	}
	return true
}

// Constructors lists the package-level functions of pkg that return T or
// *T (of any instantiation, for a generic T).
func Constructors(pkg *types.Package, obj *types.TypeName, q types.Qualifier) []*types.Func {
	var out []*types.Func
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		fn, ok := scope.Lookup(name).(*types.Func)
		if !ok {
			continue
		}
		res := fn.Type().(*types.Signature).Results()
		for r := range res.Variables() {
			t := r.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if n, ok := types.Unalias(t).(*types.Named); ok && n.Origin().Obj() == obj {
				out = append(out, fn)
				break
			}
		}
	}
	return out
}

// SatisfiedInterfaces lists the interfaces with methods, among the named
// types of pkg and of every package it imports transitively (the
// standard library and dependencies included) and error, that t or *t
// satisfies. Generic interfaces, t itself, and the interfaces of internal
// packages pkg may not import are left out.
func SatisfiedInterfaces(pkg *types.Package, t types.Type, obj *types.TypeName) []Interface {
	var out []Interface
	seen := map[*types.Package]bool{}
	check := func(tn *types.TypeName) {
		if tn == obj || !tn.Exported() && tn.Pkg() != pkg && tn.Pkg() != nil {
			return
		}
		if tn.Pkg() != nil && !MayImport(pkg.Path(), tn.Pkg().Path()) {
			return
		}
		n, ok := tn.Type().(*types.Named)
		if ok && n.TypeParams().Len() > 0 {
			return
		}
		iface, ok := tn.Type().Underlying().(*types.Interface)
		if !ok || iface.NumMethods() == 0 {
			return
		}
		name := tn.Name()
		path := ""
		if tn.Pkg() != nil {
			path = tn.Pkg().Path()
			name = tn.Pkg().Name() + "." + name
		}
		switch {
		case types.Implements(t, iface):
			out = append(out, Interface{Interface: name, Package: path})
		case !types.IsInterface(t) && types.Implements(types.NewPointer(t), iface):
			out = append(out, Interface{Interface: name, Package: path, Pointer: true})
		}
	}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, name := range p.Scope().Names() {
			if tn, ok := p.Scope().Lookup(name).(*types.TypeName); ok {
				check(tn)
			}
		}
		for _, imp := range p.Imports() {
			visit(imp)
		}
	}
	check(types.Universe.Lookup("error").(*types.TypeName))
	visit(pkg)
	return out
}

// MayImport reports whether the package at from may import the package
// at path under the go command's rule for internal directories: what
// precedes path's last "internal" element must be from or a parent of it
// (for the standard library's own internal packages, the standard library,
// whose paths have no dot in their first element).
func MayImport(from, path string) bool {
	i := strings.LastIndex("/"+path+"/", "/internal/")
	switch {
	case i < 0:
		return true
	case i == 0:
		first, _, _ := strings.Cut(from, "/")
		return !strings.Contains(first, ".")
	}
	parent := path[:i-1]
	return from == parent || strings.HasPrefix(from, parent+"/")
}

// ChanUse is one send, receive or close of a channel field, in a
// function of the package.
type ChanUse struct {
	Field *types.Var
	Op    string    // send, receive, close
	Fn    string    // the enclosing function's qualified name
	Pos   token.Pos // where
}

// ChannelUses finds, in the syntax of p's package, every send, receive
// (a receive expression, a range, a select case) and close of the fields.
func ChannelUses(p *live.Package, fields []*types.Var) []ChanUse {
	info := p.Pkg.TypesInfo
	if info == nil {
		return nil
	}
	fieldOf := func(e ast.Expr) *types.Var {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		s := info.Selections[sel]
		if s == nil {
			return nil
		}
		v, ok := s.Obj().(*types.Var)
		if !ok {
			return nil
		}
		for _, f := range fields {
			if v.Origin() == f {
				return f
			}
		}
		return nil
	}
	var out []ChanUse
	for _, file := range p.Pkg.Syntax {
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn, _ := syntax.FuncName(fd)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				add := func(e ast.Expr, op string, pos token.Pos) {
					if f := fieldOf(e); f != nil {
						out = append(out, ChanUse{Field: f, Op: op, Fn: fn, Pos: pos})
					}
				}
				switch n := n.(type) {
				case *ast.SendStmt:
					add(n.Chan, "send", n.Arrow)
				case *ast.UnaryExpr:
					if n.Op == token.ARROW {
						add(n.X, "receive", n.OpPos)
					}
				case *ast.RangeStmt:
					add(n.X, "receive", n.For)
				case *ast.CallExpr:
					if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) == 1 {
						if _, builtin := info.Uses[id].(*types.Builtin); builtin && id.Name == "close" {
							add(n.Args[0], "close", n.Lparen)
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// GoStatements finds the go statements in the bodies of the methods of
// the type named typeName in p's package.
func GoStatements(p *live.Package, typeName string) []GoStmt {
	var out []GoStmt
	for _, file := range p.Pkg.Syntax {
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Recv == nil || len(fd.Recv.List) == 0 || syntax.ReceiverBase(fd.Recv.List[0].Type) != typeName {
				continue
			}
			fn, _ := syntax.FuncName(fd)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if g, ok := n.(*ast.GoStmt); ok {
					out = append(out, GoStmt{Fn: fn, Pos: g.Go, Call: g.Call})
				}
				return true
			})
		}
	}
	return out
}

// GoStmt is one go statement of a method.
type GoStmt struct {
	Fn   string        // the method's qualified name
	Pos  token.Pos     // where
	Call *ast.CallExpr // what it starts
}
