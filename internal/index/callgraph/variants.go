package callgraph

import (
	"go/types"
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

// pathString spells a signature (its receiver left out) with every named
// type qualified by its package path.
func pathString(t types.Type) string {
	if sig, ok := t.(*types.Signature); ok {
		t = types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic())
	}
	return types.TypeString(t, func(p *types.Package) string { return p.Path() })
}
