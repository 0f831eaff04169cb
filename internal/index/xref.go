package index

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// Cross-references (references, implementations, call edges) point from
// one package at symbols of another, possibly one of a later load unit,
// and the types.Object on either side differs between a package, its test
// variant and an importer that saw it through export data. What they all
// agree on is where the object was declared. So extraction records, for
// every symbol, the position of its declaring identifier, and for every
// use, the declaring position of the object it uses; once every package
// is extracted, the positions are resolved to stable keys in one pass.
//
// Export data keeps only the file and line of a declaration (the column
// is lost on import), so a position is resolved by file, line and name,
// the column and the kind of object telling apart the rare names declared
// twice on one line.

// objClass is the kind of object a declaration or use is of, coarse
// enough to be read off a types.Object and a graph.Kind alike.
type objClass uint8

const (
	classNone objClass = iota
	classPackage
	classType
	classFunc
	classMethod
	classField
	classVar
	classConst
)

func classOfKind(k graph.Kind) objClass {
	switch k {
	case graph.KindPackage:
		return classPackage
	case graph.KindType, graph.KindInterface:
		return classType
	case graph.KindFunc:
		return classFunc
	case graph.KindMethod, graph.KindInterfaceMethod:
		return classMethod
	case graph.KindField:
		return classField
	case graph.KindVar:
		return classVar
	case graph.KindConst:
		return classConst
	}
	return classNone
}

func classOfObject(obj types.Object) objClass {
	switch obj := obj.(type) {
	case *types.TypeName:
		return classType
	case *types.Func:
		if obj.Signature().Recv() != nil {
			return classMethod
		}
		return classFunc
	case *types.Var:
		if obj.IsField() {
			return classField
		}
		return classVar
	case *types.Const:
		return classConst
	}
	return classNone
}

// site is where a declaring identifier is, the column aside: the
// interned file name (as the file set reports it, line directives
// applied), the line and the interned name.
type site struct {
	file, line, name int32
}

// declEntry is one symbol declared at a site.
type declEntry struct {
	col   int32 // byte column of the identifier
	owner int32 // interned name of the receiver's base type for methods, else -1
	class objClass
	key   string
}

// target is the declaration a use points at: a site with its column
// (1 when it came from export data), the class of the object used
// (classNone: any) and, for a method, the name of its receiver's base
// type (else -1). A package is a target of class classPackage named by
// its import path.
type target struct {
	site
	col   int32
	owner int32
	class objClass
}

// refKind is a graph.RefKind in a byte.
type refKind uint8

const (
	refRead refKind = iota
	refCall
	refWrite
	refType
	refImport
	refEmbed
)

var refKinds = [...]graph.RefKind{
	refRead:   graph.RefRead,
	refCall:   graph.RefCall,
	refWrite:  graph.RefWrite,
	refType:   graph.RefType,
	refImport: graph.RefImport,
	refEmbed:  graph.RefEmbed,
}

// pendingRef is a use waiting for its target to be resolved. It is kept
// small: a large repository has hundreds of thousands of them.
type pendingRef struct {
	to                target
	path              int32 // interned repo-relative path of the use
	line, col, endCol int32 // col and endCol count characters, endCol exclusive
	enclosing         int32 // interned key of the enclosing symbol, -1 at file level
	kind              refKind
	test              bool
	// implicit marks the use of a method outside the graph recorded
	// against a method of the package whose receiver is related to it
	// (see correspondingMethods and graph.Ref.Implicit).
	implicit bool
}

// declRecord registers one symbol's declaring site.
type declRecord struct {
	at    site
	entry declEntry
}

// pkgXRefs is what one package contributes to the cross-references. It
// is kept apart until Index decides to keep the package (a package whose
// import path repeats another's is dropped, and so is what it declared).
type pkgXRefs struct {
	path   string // import path
	pkgKey string // key of the package symbol, "" when there is none
	decls  []declRecord
	refs   []pendingRef
	types  []typeSummary
}

// xrefTables are the extractor's cross-reference state: the interned
// strings, the symbols by declaring site, and the pending records of
// every package kept so far.
type xrefTables struct {
	strs      []string
	strIdx    map[string]int32
	rootFiles map[string]int32 // file name → interned index, or -1 when outside the root
	decls     map[site][]declEntry
	pkgKeys   map[string]string // import path → package symbol key
	refs      []pendingRef
	types     []typeSummary
	edges     []pendingEdge
}

func newXrefTables() xrefTables {
	return xrefTables{
		strIdx:    map[string]int32{},
		rootFiles: map[string]int32{},
		decls:     map[site][]declEntry{},
		pkgKeys:   map[string]string{},
	}
}

// intern returns the index of s in the string table, adding it when new.
func (t *xrefTables) intern(s string) int32 {
	if i, ok := t.strIdx[s]; ok {
		return i
	}
	i := int32(len(t.strs))
	t.strs = append(t.strs, s)
	t.strIdx[s] = i
	return i
}

// rootFile returns the interned index of a file name when the file is
// under the root, else -1. The name is made native first: on Windows the
// compiler writes C:/repo/a/a.go into export data, where the parser of
// the declaring package gave C:\repo\a\a.go.
func (x *extractor) rootFile(name string) int32 {
	if i, ok := x.xt.rootFiles[name]; ok {
		return i
	}
	i := int32(-1)
	native := filepath.FromSlash(name)
	if _, ok := x.rel(native); ok {
		i = x.xt.intern(native)
	}
	x.xt.rootFiles[name] = i
	return i
}

// keep adds what a package contributed to the cross-references.
func (x *extractor) keep(xr *pkgXRefs) {
	if xr == nil {
		return
	}
	t := &x.xt
	for _, d := range xr.decls {
		t.decls[d.at] = append(t.decls[d.at], d.entry)
	}
	if xr.pkgKey != "" {
		t.pkgKeys[xr.path] = xr.pkgKey
	}
	t.refs = append(t.refs, xr.refs...)
	t.types = append(t.types, xr.types...)
}

// resolver resolves targets to keys: the declarations and package keys
// kept, and the string table as it stood when the resolver was taken.
// Once every package is kept (keep writes the declarations and package
// keys, and nothing after it), a resolver taken then resolves every
// reference and type summary, whose strings were all interned during
// extraction; it may be read on one goroutine while finishCallEdges, on
// another, interns more strings into the tables.
type resolver struct {
	strs    []string
	decls   map[site][]declEntry
	pkgKeys map[string]string
}

// resolver returns a resolver of the tables as they are now.
func (t *xrefTables) resolver() resolver {
	return resolver{strs: t.strs, decls: t.decls, pkgKeys: t.pkgKeys}
}

// resolve returns the key of the symbol t points at, or "" when it is
// not in the graph.
func (t *xrefTables) resolve(to target) string { return t.resolver().resolve(to) }

// resolve returns the key of the symbol t points at, or "" when it is
// not in the graph.
func (t resolver) resolve(to target) string {
	if to.class == classPackage {
		return t.pkgKeys[t.strs[to.name]]
	}
	entries := t.decls[to.site]
	sameClass := func(e declEntry) bool { return to.class == classNone || e.class == to.class }
	for _, e := range entries {
		if e.col == to.col && sameClass(e) {
			return e.key
		}
	}
	// From export data, or a declaration the checker placed elsewhere:
	// only a unique match by class (and receiver) is trusted.
	key := ""
	for _, e := range entries {
		if sameClass(e) && (e.owner == to.owner || e.owner < 0 || to.owner < 0) {
			if key != "" {
				return ""
			}
			key = e.key
		}
	}
	return key
}

// declared records where symbol p is declared, for the cross-references
// to find it, and the key of its identifier, for enclosing symbols.
func (s *pkgState) declared(p *pending) {
	if p.sym.Kind == graph.KindPackage {
		s.xr.pkgKey = p.sym.Key
		return
	}
	if p.ident == nil || p.src == nil || p.src.fset == nil {
		return
	}
	s.identKeys[p.ident] = p.sym.Key
	pos := p.src.fset.Position(p.ident.Pos())
	if !pos.IsValid() {
		return
	}
	t := &s.x.xt
	owner := int32(-1)
	if p.sym.Kind == graph.KindMethod || p.sym.Kind == graph.KindInterfaceMethod {
		if i := strings.LastIndexByte(p.sym.QualifiedName, '.'); i > 0 {
			owner = t.intern(p.sym.QualifiedName[:i])
		}
	}
	s.xr.decls = append(s.xr.decls, declRecord{
		at:    site{file: t.intern(pos.Filename), line: int32(pos.Line), name: t.intern(p.ident.Name)},
		entry: declEntry{col: int32(pos.Column), owner: owner, class: classOfKind(p.sym.Kind), key: p.sym.Key},
	})
}

// targetOf returns the declaration obj points at, and false when obj is
// declared outside the root or cannot be a symbol of the graph (a local
// variable, a type parameter, a label, a built-in, an imported package
// name).
func (s *pkgState) targetOf(fset *token.FileSet, obj types.Object) (target, bool) {
	switch o := obj.(type) {
	case *types.Func:
		obj = o.Origin()
	case *types.Var:
		obj = o.Origin()
		if !o.IsField() && !packageLevel(obj) {
			return target{}, false
		}
	case *types.TypeName:
		if _, ok := o.Type().(*types.TypeParam); ok || !packageLevel(obj) {
			return target{}, false
		}
	case *types.Const:
		if !packageLevel(obj) {
			return target{}, false
		}
	default: // PkgName, Builtin, Nil, Label
		return target{}, false
	}
	if obj.Pkg() == nil || !obj.Pos().IsValid() {
		return target{}, false
	}
	pos := fset.Position(obj.Pos())
	file := s.x.rootFile(pos.Filename)
	if file < 0 {
		return target{}, false
	}
	return target{
		site:  site{file: file, line: int32(pos.Line), name: s.x.xt.intern(obj.Name())},
		col:   int32(pos.Column),
		owner: s.receiverName(obj),
		class: classOfObject(obj),
	}, true
}

// receiverName returns the interned name of a method's receiver base
// type, else -1.
func (s *pkgState) receiverName(obj types.Object) int32 {
	fn, ok := obj.(*types.Func)
	if !ok || fn.Signature().Recv() == nil {
		return -1
	}
	t := fn.Signature().Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := t.(type) {
	case *types.Named:
		return s.x.xt.intern(t.Obj().Name())
	case *types.Alias:
		return s.x.xt.intern(t.Obj().Name())
	}
	return -1
}

// packageLevel reports whether obj is declared in its package's scope.
func packageLevel(obj types.Object) bool {
	return obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope()
}

// refs records every use in the package's type-checked files of an
// object declared under the root, and every import of a package.
//
// A use is an identifier the checker resolved (types.Info.Uses), never
// a declaring one; embedded fields, promoted fields and methods, method
// values and expressions, composite-literal keys, receiver and signature
// types and generic instantiations (resolved to their generic origin)
// are all uses of the object they name. A package-name qualifier (fmt in
// fmt.Println) is not a use of the package: only import declarations
// refer to packages.
func (s *pkgState) refs() {
	if s.info == nil {
		return
	}
	for _, src := range s.sources {
		if src.typed && src.syntax != nil && src.fset != nil && !src.declsOnly {
			s.fileRefs(src)
		}
	}
}

// fileRefs records the uses of one file.
func (s *pkgState) fileRefs(src *source) {
	f := src.syntax
	encl := s.enclosingScopes(f)
	path := s.x.xt.intern(src.rel)
	embeds := map[*ast.Ident]bool{}
	var stack []ast.Node
	var encls []int32
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack, encls = stack[:len(stack)-1], encls[:len(encls)-1]
			return true
		}
		e := int32(-1)
		if len(encls) > 0 {
			e = encls[len(encls)-1]
		}
		if v, ok := encl[n]; ok {
			e = v
		}
		switch n := n.(type) {
		case *ast.StructType:
			markEmbedded(embeds, n.Fields)
		case *ast.InterfaceType:
			markEmbedded(embeds, n.Methods)
		case *ast.ImportSpec:
			s.importRef(src, path, n)
			return false
		case *ast.Ident:
			s.identRef(src, path, n, stack, e, embeds)
		}
		stack, encls = append(stack, n), append(encls, e)
		return true
	})
}

// markEmbedded marks the identifiers that name embedded types in a
// struct's fields or an interface's elements.
func markEmbedded(embeds map[*ast.Ident]bool, fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, fd := range fl.List {
		if len(fd.Names) > 0 {
			continue
		}
		if _, ok := fd.Type.(*ast.FuncType); ok {
			continue
		}
		if id := syntax.EmbeddedIdent(fd.Type); id != nil {
			embeds[id] = true
		}
	}
}

// enclosingScopes maps the nodes that open a declaration to the interned
// key of the symbol declared: a func or method declaration, a const or
// var spec (each value to the name it initialises when they pair up), a
// type spec, and the fields and interface methods of a declared struct
// or interface. -1 marks a node that belongs to no symbol (a blank name).
func (s *pkgState) enclosingScopes(f *ast.File) map[ast.Node]int32 {
	m := map[ast.Node]int32{}
	key := func(id *ast.Ident) int32 {
		if k, ok := s.identKeys[id]; ok && id != nil {
			return s.x.xt.intern(k)
		}
		return -1
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			m[d] = key(d.Name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.ValueSpec:
					first := int32(-1)
					for _, id := range sp.Names {
						if k := key(id); k >= 0 {
							first = k
							break
						}
					}
					m[sp] = first
					if len(sp.Values) == len(sp.Names) {
						for i, v := range sp.Values {
							m[v] = key(sp.Names[i])
						}
					}
				case *ast.TypeSpec:
					self := key(sp.Name)
					m[sp] = self
					if sp.Assign.IsValid() || self < 0 {
						continue
					}
					var fields *ast.FieldList
					switch t := sp.Type.(type) {
					case *ast.StructType:
						fields = t.Fields
					case *ast.InterfaceType:
						fields = t.Methods
					}
					if fields == nil {
						continue
					}
					for _, fd := range fields.List {
						id := syntax.EmbeddedIdent(fd.Type)
						if len(fd.Names) > 0 {
							id = fd.Names[0]
						}
						if k := key(id); k >= 0 {
							m[fd] = k
						}
					}
				}
			}
		}
	}
	return m
}

// identRef records the use id, if it is one of an object of the graph.
// stack holds id's ancestors, innermost last.
func (s *pkgState) identRef(src *source, path int32, id *ast.Ident, stack []ast.Node, encl int32, embeds map[*ast.Ident]bool) {
	obj := s.info.Uses[id]
	if obj == nil {
		return
	}
	to, ok := s.targetOf(src.fset, obj)
	if ok && goplsGenericFieldParity && s.instanceFieldElsewhere(obj) {
		ok = false
	}
	var related []*types.Func
	if fn, isFunc := obj.(*types.Func); isFunc && s.methodOutsideGraph(src.fset, fn) {
		related = s.correspondingMethods(fn)
	}
	if !ok && len(related) == 0 {
		return
	}
	pos := src.fset.PositionFor(id.Pos(), false)
	col := position.CharColumn(src.content, pos.Offset, pos.Column)
	ref := pendingRef{
		path:      path,
		line:      int32(pos.Line),
		col:       int32(col),
		endCol:    int32(col + utf8.RuneCountInString(id.Name)),
		enclosing: encl,
		kind:      s.useKind(id, obj, stack, embeds),
		test:      src.test,
	}
	if ok {
		ref.to = to
		s.xr.refs = append(s.xr.refs, ref)
	}
	for _, m := range related {
		if to, ok := s.targetOf(src.fset, m); ok {
			ref.to, ref.implicit = to, true
			s.xr.refs = append(s.xr.refs, ref)
		}
	}
}

// goplsGenericFieldParity leaves out the uses of a generic type's field
// made through an instance of the type (l.Val with l a List[int]) from a
// package other than the one declaring the field. They are genuine uses,
// but gopls v0.23.0 does not report them: its index of cross-package
// references names objects by objectpath, which has no path for the field
// of an instance, so such uses are never indexed. Uses from the declaring
// package (and its test variant) are found by gopls, and kept here. Set
// it to false to record every use.
const goplsGenericFieldParity = true

// instanceFieldElsewhere reports whether obj is the field of an
// instantiated generic type, used from a package other than the one
// declaring it.
func (s *pkgState) instanceFieldElsewhere(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	if !ok || !v.IsField() || v.Origin() == v || v.Pkg() == nil || s.types == nil {
		return false
	}
	return v.Pkg().Path() != s.types.Path()
}

// methodOutsideGraph reports whether fn is a method the graph does not
// have: one declared outside the root, or a method of an interface that
// is not declared at package level (an interface literal, an interface
// declared in a function, error).
func (s *pkgState) methodOutsideGraph(fset *token.FileSet, fn *types.Func) bool {
	recv := fn.Signature().Recv()
	if recv == nil {
		return false
	}
	if !fn.Pos().IsValid() || s.x.rootFile(fset.Position(fn.Pos()).Filename) < 0 {
		return true
	}
	if !types.IsInterface(recv.Type()) {
		return false
	}
	named, ok := types.Unalias(recv.Type()).(*types.Named)
	return !ok || !packageLevel(named.Obj())
}

// correspondingMethods returns the methods declared in this package that
// gopls counts a use of the method fn as a reference to, when fn is not
// in the graph (see methodOutsideGraph): the methods of the same name
// whose receiver type is related to fn's by implementation, either way
// (an Error method here and a call of error.Error; an interface method
// here and a call of a method of an outside type that implements the
// interface). gopls finds these only within the package that declares
// the method queried (its "local" search), so they are recorded only
// here; references to methods the graph has are related at query time,
// through the implementation records.
func (s *pkgState) correspondingMethods(fn *types.Func) []*types.Func {
	cands := s.localMethods()[fn.Name()]
	if len(cands) == 0 {
		return nil
	}
	e := s.summaryOf(fn.Signature().Recv().Type())
	if e == nil {
		return nil
	}
	var out []*types.Func
	for _, m := range cands {
		r := s.summaryOf(m.Signature().Recv().Type())
		if r == nil {
			continue
		}
		if e.iface {
			if _, _, ok := s.match.implements(r, e); ok {
				out = append(out, m)
				continue
			}
		}
		if r.iface {
			if _, _, ok := s.match.implements(e, r); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// localMethods maps names to the methods the package's named types
// declare (interface methods included), built on first use.
func (s *pkgState) localMethods() map[string][]*types.Func {
	if s.methodsByName != nil {
		return s.methodsByName
	}
	s.methodsByName = map[string][]*types.Func{}
	if s.types == nil {
		return s.methodsByName
	}
	scope := s.types.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		switch t := tn.Type().(type) {
		case *types.Named:
			if it, ok := t.Underlying().(*types.Interface); ok {
				for m := range it.ExplicitMethods() {
					s.methodsByName[m.Name()] = append(s.methodsByName[m.Name()], m)
				}
				continue
			}
			for m := range t.Methods() {
				s.methodsByName[m.Name()] = append(s.methodsByName[m.Name()], m)
			}
		}
	}
	return s.methodsByName
}

// summaryOf returns the method-set summary of a receiver type (of *T for
// a named non-interface T), cached for the package; nil when empty.
func (s *pkgState) summaryOf(t types.Type) *typeSummary {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if sum, ok := s.summaries[t]; ok {
		return sum
	}
	var sum *typeSummary
	if s.costs.Oversized(t) {
		s.summaries[t] = nil // see typeSummaries
		return nil
	}
	if ts, ok := summarise(t, nil, func(*token.FileSet, types.Object) (target, bool) { return target{}, false }); ok {
		sum = &ts
	}
	s.summaries[t] = sum
	return sum
}

// useKind classifies the use id of obj by its context:
//   - embed: the type named by an embedded struct field or interface element;
//   - type: any other use of a type name (including conversions, which
//     look like calls);
//   - call: the function called by a call expression, possibly
//     instantiated (f[int]()) or selected (x.M(), pkg.F());
//   - write: the whole left operand of an assignment (=, :=, op=), of ++
//     or --, or of a range clause with =, or a field key of a struct
//     literal; a variable reached through *, [] or & is read, not written;
//   - read: every other use (values, method values, method expressions).
func (s *pkgState) useKind(id *ast.Ident, obj types.Object, stack []ast.Node, embeds map[*ast.Ident]bool) refKind {
	if _, ok := obj.(*types.TypeName); ok {
		if embeds[id] {
			return refEmbed
		}
		return refType
	}
	i := len(stack) - 1
	var e ast.Node = id
	if i >= 0 {
		if sel, ok := stack[i].(*ast.SelectorExpr); ok && sel.Sel == id {
			e, i = sel, i-1
		} else if kv, ok := stack[i].(*ast.KeyValueExpr); ok && kv.Key == id {
			if v, ok := obj.(*types.Var); ok && v.IsField() && i > 0 {
				if _, ok := stack[i-1].(*ast.CompositeLit); ok {
					return refWrite
				}
			}
			return refRead
		}
	}
climb: // through parentheses and instantiations
	for ; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			e = p
			continue
		case *ast.IndexExpr:
			if _, inst := s.info.Instances[id]; inst && p.X == e {
				e = p
				continue
			}
		case *ast.IndexListExpr:
			if p.X == e {
				e = p
				continue
			}
		}
		break climb
	}
	if i < 0 {
		return refRead
	}
	switch p := stack[i].(type) {
	case *ast.CallExpr:
		if p.Fun == e {
			return refCall
		}
	case *ast.AssignStmt:
		for _, lhs := range p.Lhs {
			if lhs == e {
				return refWrite
			}
		}
	case *ast.IncDecStmt:
		if p.X == e {
			return refWrite
		}
	case *ast.RangeStmt:
		if p.Tok == token.ASSIGN && (p.Key == e || p.Value == e) {
			return refWrite
		}
	}
	return refRead
}

// importRef records an import declaration as a use of the imported
// package, spanning the import's explicit name (if any) to the end of its
// path, as gopls reports it.
//
// Like gopls, only imports of a package's ordinary variant count: an
// import that the go command resolves to a test variant (the external
// test package importing the package under test, or a package recompiled
// for another package's tests) is not reported.
func (s *pkgState) importRef(src *source, path int32, spec *ast.ImportSpec) {
	if spec.Path == nil {
		return
	}
	pn := s.info.PkgNameOf(spec)
	if pn == nil || pn.Imported() == nil {
		return
	}
	imported := pn.Imported().Path()
	if written, err := strconv.Unquote(spec.Path.Value); err == nil {
		if dep := s.main.Imports[written]; dep != nil && dep.ID != dep.PkgPath {
			return
		}
	}
	start := src.fset.PositionFor(spec.Pos(), false)
	end := src.fset.PositionFor(spec.Path.End(), false)
	if end.Line != start.Line {
		start = src.fset.PositionFor(spec.Path.Pos(), false)
	}
	s.xr.refs = append(s.xr.refs, pendingRef{
		to:        target{site: site{file: -1, name: s.x.xt.intern(imported)}, owner: -1, class: classPackage},
		path:      path,
		line:      int32(start.Line),
		col:       int32(position.CharColumn(src.content, start.Offset, start.Column)),
		endCol:    int32(position.CharColumn(src.content, end.Offset, end.Column)),
		enclosing: -1,
		kind:      refImport,
		test:      src.test,
	})
}

// resolvedRefs resolves the pending references in extraction order with
// r and hands them to emit in batches of at most n (emit must not keep the
// slice), dropping those whose target is not in the graph. It releases the
// pending references once done, and reads no other field of x.xt.
func (x *extractor) resolvedRefs(r resolver, n int, emit func([]graph.Ref) error) (int, error) {
	total := 0
	batch := make([]graph.Ref, 0, n)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		total += len(batch)
		err := emit(batch)
		batch = batch[:0]
		return err
	}
	refs := x.xt.refs
	for i := range refs {
		p := &refs[i]
		key := r.resolve(p.to)
		if key == "" {
			continue
		}
		encl := ""
		if p.enclosing >= 0 {
			encl = r.strs[p.enclosing]
		}
		batch = append(batch, graph.Ref{
			Target:    key,
			Path:      r.strs[p.path],
			Line:      int(p.line),
			Col:       int(p.col),
			EndCol:    int(p.endCol),
			Enclosing: encl,
			Kind:      refKinds[p.kind],
			TestOnly:  p.test,
			Implicit:  p.implicit,
		})
		if len(batch) == n {
			if err := flush(); err != nil {
				return total, err
			}
		}
	}
	if err := flush(); err != nil {
		return total, err
	}
	x.xt.refs = nil
	return total, nil
}
