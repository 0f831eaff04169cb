package callgraph

import (
	"go/types"
	"strconv"
	"strings"
)

// CHA builds one variant of a package, "p [p.test]" when p has tests,
// while the packages that import p were checked against "p": the two
// variants declare distinct objects for every type of p, so a method of
// a p type built in "p [p.test]" whose signature names p's types (Visit(n
// *Node)) does not implement, to go/types, the interface of "p" that
// another package calls it through. implementsAcrossVariants compares
// method sets as the variants would if they were one package: by method
// name (qualified by package path when unexported) and by signature
// spelled with package paths, which the variants share.

// implementsAcrossVariants reports whether t has every method of iface,
// types compared by package path and name.
func implementsAcrossVariants(t types.Type, iface *types.Interface) bool {
	mset := types.NewMethodSet(t)
	for m := range iface.Methods() {
		found := false
		for i := 0; i < mset.Len() && !found; i++ {
			obj := mset.At(i).Obj()
			found = obj.Name() == m.Name() && (obj.Exported() || samePath(obj.Pkg(), m.Pkg())) &&
				pathString(obj.Type()) == pathString(m.Type())
		}
		if !found {
			return false
		}
	}
	return iface.NumMethods() > 0
}

func samePath(a, b *types.Package) bool {
	return a != nil && b != nil && a.Path() == b.Path()
}

// pathString spells a type with every named type qualified by its
// package path, and no parameter or result names, which are not part of
// a type (an interface may declare setBlock(*BasicBlock) where the method
// says setBlock(b *BasicBlock), or take a func(ast.Node) bool where the
// method names its parameter); a signature's receiver is left out.
func pathString(t types.Type) string {
	var sb strings.Builder
	writeType(&sb, t)
	return sb.String()
}

func writeType(sb *strings.Builder, t types.Type) {
	qualify := func(p *types.Package) string { return p.Path() }
	switch t := types.Unalias(t).(type) {
	case *types.Pointer:
		sb.WriteByte('*')
		writeType(sb, t.Elem())
	case *types.Slice:
		sb.WriteString("[]")
		writeType(sb, t.Elem())
	case *types.Array:
		sb.WriteString("[" + strconv.FormatInt(t.Len(), 10) + "]")
		writeType(sb, t.Elem())
	case *types.Map:
		sb.WriteString("map[")
		writeType(sb, t.Key())
		sb.WriteByte(']')
		writeType(sb, t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendRecv:
			sb.WriteString("chan ")
		case types.SendOnly:
			sb.WriteString("chan<- ")
		case types.RecvOnly:
			sb.WriteString("<-chan ")
		}
		sb.WriteByte('(')
		writeType(sb, t.Elem())
		sb.WriteByte(')')
	case *types.Signature:
		sb.WriteString("func")
		writeTuple(sb, t.Params(), t.Variadic())
		writeTuple(sb, t.Results(), false)
	case *types.Struct:
		sb.WriteString("struct{")
		for i := 0; i < t.NumFields(); i++ {
			f := t.Field(i)
			if i > 0 {
				sb.WriteString("; ")
			}
			if f.Embedded() {
				sb.WriteString("embedded ")
			}
			if !f.Exported() && f.Pkg() != nil {
				sb.WriteString(f.Pkg().Path() + ".")
			}
			sb.WriteString(f.Name() + " ")
			writeType(sb, f.Type())
			if tag := t.Tag(i); tag != "" {
				sb.WriteString(" " + strconv.Quote(tag))
			}
		}
		sb.WriteByte('}')
	case *types.Interface:
		if !t.IsMethodSet() {
			// A constraint with a type set: no value has such a type.
			sb.WriteString(types.TypeString(t, qualify))
			return
		}
		sb.WriteString("interface{")
		for i := 0; i < t.NumMethods(); i++ {
			m := t.Method(i)
			if i > 0 {
				sb.WriteString("; ")
			}
			if !m.Exported() && m.Pkg() != nil {
				sb.WriteString(m.Pkg().Path() + ".")
			}
			sb.WriteString(m.Name())
			writeType(sb, m.Type())
		}
		sb.WriteByte('}')
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil {
			sb.WriteString(obj.Pkg().Path() + ".")
		}
		sb.WriteString(t.Obj().Name())
		if args := t.TypeArgs(); args.Len() > 0 {
			sb.WriteByte('[')
			for i := 0; i < args.Len(); i++ {
				if i > 0 {
					sb.WriteString(", ")
				}
				writeType(sb, args.At(i))
			}
			sb.WriteByte(']')
		}
	default: // basic types, type parameters
		sb.WriteString(types.TypeString(t, qualify))
	}
}

// writeTuple writes the types of tup in parentheses, without names.
func writeTuple(sb *strings.Builder, tup *types.Tuple, variadic bool) {
	sb.WriteByte('(')
	for i := 0; i < tup.Len(); i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		t := tup.At(i).Type()
		if variadic && i == tup.Len()-1 {
			if s, ok := t.(*types.Slice); ok {
				sb.WriteString("...")
				t = s.Elem()
			}
		}
		writeType(sb, t)
	}
	sb.WriteByte(')')
}
