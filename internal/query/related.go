package query

import (
	"cmp"
	"context"
	"go/token"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/callwalk"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// relatedMethods returns the methods whose uses find_references counts as
// uses of sym, the way gopls's references query does (golang/references.go,
// expandMethodSearch): for a concrete method T.m, the methods m of the
// interfaces that T (or *T) satisfies; for an interface method I.m, the
// methods m in the method sets of the types that satisfy I (declared on
// the type, or promoted to it from an embedded type) and of the interfaces
// that I embeds or that embed I. Concrete methods never lead to other
// concrete methods, as in gopls, but for TypeScript and JavaScript, where
// a method also counts the uses of the methods it overrides in the
// classes its class extends. Other kinds have no related methods.
func relatedMethods(ctx context.Context, v *session.View, sym graph.Symbol) ([]graph.Symbol, error) {
	if sym.Parent == "" || (sym.Kind != graph.KindMethod && sym.Kind != graph.KindInterfaceMethod) {
		return nil, nil
	}
	out := map[string]graph.Symbol{}
	goSym := sym.Language == "" || sym.Language == graph.LanguageGo
	sameID := func(m graph.Symbol) bool {
		// Go's unexported method names are qualified by their package;
		// other languages' names are not.
		return m.Name == sym.Name && (!goSym || token.IsExported(sym.Name) || m.PackagePath == sym.PackagePath)
	}
	// A TypeScript or JavaScript method overrides the methods of the
	// classes its class extends: a call through one of them may run it
	// (this.visit() in an abstract class), and typescript-language-server
	// counts it. Go has no classes; pyright counts only the method a call
	// resolves to, and so does find_references for Python.
	overrides := sym.Language == graph.LanguageTypeScript || sym.Language == graph.LanguageJavaScript
	// Interfaces the receiver type satisfies (for an interface: the
	// interfaces whose method sets its own includes).
	supers, err := v.Reader().Implementations(ctx, sym.Parent, false)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading implementations")
	}
	for _, im := range supers {
		kids, err := v.Reader().Children(ctx, sym.Repository, im.Interface)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading interface methods")
		}
		for _, k := range kids {
			if (k.Kind == graph.KindInterfaceMethod || overrides && k.Kind == graph.KindMethod) && sameID(k) && k.Key != sym.Key {
				out[k.Key] = k
			}
		}
	}
	if sym.Kind == graph.KindInterfaceMethod {
		// The index records one pair per corresponding method, the method
		// that declares it on the implementing side (promoted methods
		// included), so the methods of the implementing types are one
		// lookup.
		keys, err := callwalk.MethodPairs(ctx, v, sym.Key, true)
		if err != nil {
			return nil, err
		}
		if len(keys) > 0 {
			syms, err := v.Reader().SymbolsByKeys(ctx, keys)
			if err != nil {
				return nil, graph.Wrap(graph.CodeInternal, err, "reading related methods")
			}
			for _, m := range syms {
				out[m.Key] = m
			}
		}
	}
	list := make([]graph.Symbol, 0, len(out))
	for _, m := range out {
		list = append(list, m)
	}
	slices.SortFunc(list, func(a, b graph.Symbol) int {
		return cmp.Or(strings.Compare(a.QualifiedName, b.QualifiedName), strings.Compare(a.Key, b.Key))
	})
	return list, nil
}

// familyDeclarations returns, for a TypeScript or JavaScript method, the
// other methods of its family, whose declarations find_references lists
// as uses of kind override (as typescript-language-server lists them
// among a method's references): the methods related to it (those it
// overrides or implements, see relatedMethods) and every method
// overriding or implementing any of them or it, however indirectly.
// Changing a method's name or signature changes each of them too.
// Other languages and kinds have none: gopls and pyright list no such
// declaration.
func familyDeclarations(ctx context.Context, v *session.View, sym graph.Symbol, related []graph.Symbol) ([]graph.Symbol, error) {
	if sym.Language != graph.LanguageTypeScript && sym.Language != graph.LanguageJavaScript {
		return nil, nil
	}
	if sym.Parent == "" || (sym.Kind != graph.KindMethod && sym.Kind != graph.KindInterfaceMethod) {
		return nil, nil
	}
	out := map[string]graph.Symbol{}
	for _, m := range related {
		out[m.Key] = m
	}
	var keys []string
	for _, root := range append([]graph.Symbol{sym}, related...) {
		impls, err := implementations(ctx, v.Reader(), root, root.Key, true)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading overriding methods")
		}
		for _, im := range impls {
			if _, ok := out[im.Type]; !ok && im.Type != sym.Key && len(out) < maxDescendants {
				out[im.Type] = graph.Symbol{}
				keys = append(keys, im.Type)
			}
		}
	}
	if len(keys) > 0 {
		syms, err := v.Reader().SymbolsByKeys(ctx, keys)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading overriding methods")
		}
		for _, m := range syms {
			out[m.Key] = m
		}
	}
	list := make([]graph.Symbol, 0, len(out))
	for _, m := range out {
		if m.Key != "" && m.Key != sym.Key && (m.Kind == graph.KindMethod || m.Kind == graph.KindInterfaceMethod) {
			list = append(list, m)
		}
	}
	return list, nil
}
