package index

import (
	"bytes"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"unicode"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// pending is a symbol under construction. Keys are assigned once the whole
// package is seen (duplicates need numbering), and parents after that.
type pending struct {
	sym     graph.Symbol
	variant string
	// parent is the index of the enclosing type's symbol for fields and
	// interface methods, -1 otherwise.
	parent int
	// recvBase is the receiver's base type name for methods.
	recvBase string
	// ident is the identifier that declares the symbol (nil for the
	// package), and src its file: cross-references find the symbol by
	// where that identifier is.
	ident *ast.Ident
	src   *source
}

// fileSyms collects the symbols of one source file.
type fileSyms struct {
	s   *pkgState
	src *source
	qf  types.Qualifier
}

// symbols fills s.rec.Symbols: the package itself, then every package-level
// declaration of every file in path order, each file in source order.
//
// Several init funcs are told apart as "init", "init#2", ... in that
// order, counted separately for _test.go files (whose keys carry the test
// variant anyway), so adding a test file never renames the package's own.
func (s *pkgState) symbols() {
	var ps []*pending
	if p := s.packageSymbol(); p != nil {
		ps = append(ps, p)
	}
	qf := s.qualifier()
	inits := map[bool]int{} // init funcs seen, per test/non-test variant
	for _, src := range s.sources {
		if src.syntax == nil {
			continue
		}
		fs := &fileSyms{s: s, src: src, qf: qf}
		for _, decl := range src.syntax.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				ps = fs.funcDecl(ps, d, inits)
			case *ast.GenDecl:
				ps = fs.genDecl(ps, d)
			}
		}
	}

	// Keys: a duplicate identity (a name declared twice in a broken
	// package) is numbered so every key in a snapshot stays unique.
	seen := map[graph.Identity]int{}
	for _, p := range ps {
		id := graph.Identity{
			Language:      "go",
			Repository:    s.x.repo,
			PackagePath:   s.g.path,
			QualifiedName: p.sym.QualifiedName,
			Kind:          p.sym.Kind,
			Variant:       p.variant,
		}
		seen[id]++
		if n := seen[id]; n > 1 {
			id.Variant += "#" + strconv.Itoa(n)
		}
		p.sym.Key = graph.StableKey(id)
	}

	// Parents. A method's receiver type is found by name, preferring a
	// declaration outside _test.go files.
	typeKeys := map[string]string{}
	for _, test := range []bool{false, true} {
		for _, p := range ps {
			k := p.sym.Kind
			if (k == graph.KindType || k == graph.KindInterface) && p.sym.TestOnly == test {
				if _, ok := typeKeys[p.sym.QualifiedName]; !ok {
					typeKeys[p.sym.QualifiedName] = p.sym.Key
				}
			}
		}
	}
	s.rec.Symbols = make([]graph.Symbol, 0, len(ps))
	for _, p := range ps {
		switch {
		case p.parent >= 0:
			p.sym.Parent = ps[p.parent].sym.Key
		case p.recvBase != "":
			p.sym.Parent = typeKeys[p.recvBase]
		}
		s.rec.Symbols = append(s.rec.Symbols, p.sym)
		s.declared(p)
	}
}

// qualifier prints the package's own names unqualified and every other
// package's names qualified by package name, as the code reads.
func (s *pkgState) qualifier() types.Qualifier {
	own := s.types
	return func(p *types.Package) string {
		if p == nil || own != nil && (p == own || p.Path() == own.Path()) {
			return ""
		}
		return p.Name()
	}
}

// packageSymbol places the package at the package clause of the file that
// carries its doc comment, else of its first file (non-test files first).
func (s *pkgState) packageSymbol() *pending {
	var best *source
	score := func(src *source) int {
		n := 0
		if src.syntax.Doc != nil {
			n += 2
		}
		if !src.test {
			n++
		}
		return n
	}
	for _, src := range s.sources {
		if src.syntax == nil || src.syntax.Name == nil || !src.syntax.Package.IsValid() {
			continue
		}
		if best == nil || score(src) > score(best) {
			best = src
		}
	}
	if best == nil {
		return nil
	}
	f := best.syntax
	name := s.rec.Package.Name
	if name == "" {
		name = f.Name.Name
	}
	fs := &fileSyms{s: s, src: best}
	p := fs.newPending(graph.KindPackage, name, s.g.path, f.Package, f.Name.End())
	p.sym.Signature = "package " + name
	p.sym.Doc = docText(f.Doc)
	// A package is public API unless it is a command or an external test.
	p.sym.Exported = name != "main" && !s.rec.Package.TestOnly
	return p
}

// newPending starts a symbol of this file spanning from..to.
func (fs *fileSyms) newPending(kind graph.Kind, name, qname string, from, to token.Pos) *pending {
	s, src := fs.s, fs.src
	p := &pending{parent: -1, src: src}
	if src.test {
		p.variant = "test"
	}
	// A declaration the parser gave up on can end nowhere, or in a
	// position that does not follow its start; it then runs to the end
	// of the file, which is as far as the parser read it.
	if tf := src.fset.File(from); tf != nil {
		if to < from || int(to) > tf.Base()+tf.Size() {
			to = token.Pos(tf.Base() + tf.Size())
		}
	}
	start := src.fset.PositionFor(from, false)
	end := src.fset.PositionFor(to, false)
	p.sym = graph.Symbol{
		Repository:    s.x.repo,
		PackagePath:   s.g.path,
		PackageName:   s.rec.Package.Name,
		ModulePath:    s.rec.Package.ModulePath,
		Path:          src.rel,
		Name:          name,
		QualifiedName: qname,
		Kind:          kind,
		Exported:      ast.IsExported(name),
		TestOnly:      src.test,
		StartLine:     start.Line,
		StartCol:      position.CharColumn(src.content, start.Offset, start.Column),
		EndLine:       end.Line,
		EndCol:        position.CharColumn(src.content, end.Offset, end.Column),
	}
	if p.sym.PackageName == "" && src.syntax != nil && src.syntax.Name != nil {
		p.sym.PackageName = src.syntax.Name.Name
	}
	return p
}

// obj returns the object id declares, or nil when the file is not typed.
func (fs *fileSyms) obj(id *ast.Ident) types.Object {
	if !fs.src.typed || id == nil || fs.s.info == nil {
		return nil
	}
	return fs.s.info.Defs[id]
}

// typeString prints t as the code reads it, or "" when t is missing or
// broken, which sends the caller to the syntax.
func (fs *fileSyms) typeString(t types.Type) string {
	if t == nil {
		return ""
	}
	str := types.TypeString(t, fs.qf)
	if strings.Contains(str, "invalid type") {
		return ""
	}
	return str
}

// usable reports whether a signature printed from types can be shown; one
// that mentions an invalid type says less than the source does.
func usable(sig string) bool {
	return sig != "" && !strings.Contains(sig, "invalid type")
}

func (fs *fileSyms) funcDecl(ps []*pending, d *ast.FuncDecl, inits map[bool]int) []*pending {
	if d.Name == nil || d.Name.Name == "_" {
		return ps
	}
	name := d.Name.Name
	kind, qname := graph.KindFunc, name
	var recvExpr ast.Expr
	var recvName, base string
	if d.Recv != nil && len(d.Recv.List) > 0 {
		f := d.Recv.List[0]
		recvExpr = f.Type
		if len(f.Names) > 0 {
			recvName = f.Names[0].Name
		}
		base = syntax.ReceiverBase(recvExpr)
		kind, qname = graph.KindMethod, syntax.Qualified(base, name)
	} else if name == "init" {
		inits[fs.src.test]++
		if n := inits[fs.src.test]; n > 1 {
			qname = "init#" + strconv.Itoa(n)
		}
	}
	p := fs.newPending(kind, name, qname, d.Pos(), d.End())
	p.ident = d.Name
	p.sym.Doc = docText(d.Doc)
	if recvExpr != nil {
		p.sym.Receiver = syntax.ExprString(recvExpr)
		p.recvBase = base
	}

	var sig string
	if fn, ok := fs.obj(d.Name).(*types.Func); ok {
		sig = fs.funcSignature(fn, recvName)
	}
	if !usable(sig) {
		sig = astFuncSignature(d, recvName)
	}
	p.sym.Signature = sig
	if d.Body != nil {
		p.sym.Text = fs.bodyText(d.Body.Lbrace, d.Body.Rbrace, d.Body)
	}
	return append(ps, p)
}

// bodyText collects the words search_code finds a declaration by beyond
// its name, doc and signature: the string literals of node (its body or
// initialiser), the comments between from and to, and the names it uses
// of other packages (io.Copy, io.Discard, time.Sleep, a request's Body),
// each once, so that a question about discarding a body finds the
// function that copies it into io.Discard. Names of its own package are
// left out: they are the package's own vocabulary, which its names and
// docs already say, and in every body they would drown the rest.
// Literals come first, names last; the total is cut at graph.MaxText bytes.
func (fs *fileSyms) bodyText(from, to token.Pos, node ast.Node) string {
	var b strings.Builder
	add := func(s string) bool {
		s = strings.TrimSpace(s)
		if s == "" {
			return true
		}
		if b.Len()+len(s)+1 > graph.MaxText {
			return false
		}
		b.WriteString(s)
		b.WriteByte('\n')
		return true
	}
	full := false
	if node != nil {
		ast.Inspect(node, func(n ast.Node) bool {
			if full {
				return false
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					v = lit.Value
				}
				full = !add(v)
			}
			return true
		})
	}
	if fs.src.syntax != nil && !full {
		for _, cg := range fs.src.syntax.Comments {
			if cg.Pos() < from || cg.End() > to {
				continue
			}
			if full = !add(cg.Text()); full {
				break
			}
		}
	}
	if node != nil && !full {
		for _, name := range fs.foreignNames(node) {
			if b.Len()+len(name)+1 > graph.MaxText {
				break
			}
			b.WriteString(name)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// foreignNames returns the names node uses that other packages declare
// (called, selected or named: io.Copy, r.Body, time.Duration), each
// once, in order of first use; none when the file was not type-checked.
func (fs *fileSyms) foreignNames(node ast.Node) []string {
	if !fs.src.typed || fs.s.info == nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	ast.Inspect(node, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || seen[id.Name] {
			return true
		}
		obj := fs.s.info.Uses[id]
		if obj == nil || obj.Pkg() == nil || obj.Pkg() == fs.s.types {
			return true
		}
		if _, pkg := obj.(*types.PkgName); pkg {
			return true
		}
		seen[id.Name] = true
		names = append(names, id.Name)
		return true
	})
	return names
}

// funcSignature prints a function or method from its type:
// "func (s *Server) Start(ctx context.Context) error".
func (fs *fileSyms) funcSignature(fn *types.Func, recvName string) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return ""
	}
	var b bytes.Buffer
	b.WriteString("func ")
	if recv := sig.Recv(); recv != nil {
		rt := fs.typeString(recv.Type())
		if rt == "" {
			return ""
		}
		b.WriteByte('(')
		if recvName != "" {
			b.WriteString(recvName)
			b.WriteByte(' ')
		}
		b.WriteString(rt)
		b.WriteString(") ")
	}
	b.WriteString(fn.Name())
	types.WriteSignature(&b, sig, fs.qf)
	return b.String()
}

func (fs *fileSyms) genDecl(ps []*pending, d *ast.GenDecl) []*pending {
	if d.Tok != token.CONST && d.Tok != token.VAR && d.Tok != token.TYPE {
		return ps
	}
	// An ungrouped declaration spans its keyword; a spec in a group spans
	// itself.
	whole := !d.Lparen.IsValid() && len(d.Specs) == 1
	span := func(spec ast.Spec) (token.Pos, token.Pos) {
		if whole {
			return d.Pos(), d.End()
		}
		return spec.Pos(), spec.End()
	}
	for _, spec := range d.Specs {
		from, to := span(spec)
		switch spec := spec.(type) {
		case *ast.ValueSpec:
			for i, id := range spec.Names {
				if id == nil || id.Name == "_" {
					continue
				}
				kind := graph.KindVar
				if d.Tok == token.CONST {
					kind = graph.KindConst
				}
				p := fs.newPending(kind, id.Name, id.Name, from, to)
				p.ident = id
				p.sym.Doc = docText(spec.Doc, spec.Comment, d.Doc)
				p.sym.Signature = fs.valueSignature(d.Tok, spec, i)
				if i < len(spec.Values) {
					p.sym.Text = fs.bodyText(spec.Values[i].Pos(), spec.Values[i].End(), spec.Values[i])
				}
				ps = append(ps, p)
			}
		case *ast.TypeSpec:
			ps = fs.typeSpec(ps, d, spec, from, to)
		}
	}
	return ps
}

// valueSignature prints the i-th name of a const or var spec:
// "const X untyped int = 3", "var X int".
func (fs *fileSyms) valueSignature(tok token.Token, spec *ast.ValueSpec, i int) string {
	id := spec.Names[i]
	switch obj := fs.obj(id).(type) {
	case *types.Const:
		if t := fs.typeString(obj.Type()); t != "" {
			sig := "const " + id.Name + " " + t
			if v := obj.Val(); v != nil && v.Kind() != constant.Unknown {
				sig += " = " + constString(obj.Type(), v)
			}
			return sig
		}
	case *types.Var:
		if t := fs.typeString(obj.Type()); t != "" {
			return "var " + id.Name + " " + t
		}
	}
	sig := tok.String() + " " + id.Name
	if spec.Type != nil {
		sig += " " + syntax.ExprString(spec.Type)
	}
	if len(spec.Values) == len(spec.Names) {
		if v := syntax.ExprString(spec.Values[i]); len(v) <= maxValueLen {
			sig += " = " + v
		}
	}
	return sig
}

// constString prints a constant's value, runes as the character they
// are ('é', not 233) and everything else as constant.Value shows it
// (long strings shortened).
func constString(t types.Type, v constant.Value) string {
	if b, ok := t.(*types.Basic); ok && (b.Kind() == types.UntypedRune || b.Name() == "rune") {
		if r, exact := constant.Int64Val(v); exact && r >= 0 && r <= unicode.MaxRune {
			return strconv.QuoteRune(rune(r))
		}
	}
	return v.String()
}

// maxValueLen bounds the initialiser text a syntax-only signature shows;
// longer ones say more than a signature should.
const maxValueLen = 80

func (fs *fileSyms) typeSpec(ps []*pending, d *ast.GenDecl, spec *ast.TypeSpec, from, to token.Pos) []*pending {
	if spec.Name == nil || spec.Name.Name == "_" {
		return ps
	}
	name := spec.Name.Name
	tn, _ := fs.obj(spec.Name).(*types.TypeName)
	kind := graph.KindType
	if _, ok := spec.Type.(*ast.InterfaceType); ok {
		kind = graph.KindInterface
	}
	if tn != nil && tn.Type() != nil {
		// The type decides, so "type R io.Reader" is an interface too;
		// an invalid type leaves the decision to the syntax.
		switch u := tn.Type().Underlying(); {
		case types.IsInterface(u):
			kind = graph.KindInterface
		case u != types.Typ[types.Invalid]:
			kind = graph.KindType
		}
	}
	p := fs.newPending(kind, name, name, from, to)
	p.ident = spec.Name
	p.sym.Doc = docText(spec.Doc, spec.Comment, d.Doc)
	p.sym.Signature = fs.typeSignature(spec, tn)
	ps = append(ps, p)
	self := len(ps) - 1
	if spec.Assign.IsValid() {
		return ps // an alias declares no fields or methods of its own
	}
	switch t := spec.Type.(type) {
	case *ast.StructType:
		ps = fs.fields(ps, name, self, t)
	case *ast.InterfaceType:
		ps = fs.interfaceMethods(ps, name, self, t)
	}
	return ps
}

// typeSignature prints a type declaration with struct and interface
// bodies collapsed: "type Server struct{...}", "type A = B",
// "type List[T any] struct{...}", "type Duration int64".
func (fs *fileSyms) typeSignature(spec *ast.TypeSpec, tn *types.TypeName) string {
	var b strings.Builder
	b.WriteString("type ")
	b.WriteString(spec.Name.Name)
	tparams := ""
	if tn != nil {
		tparams = fs.typeParams(tn.Type())
	}
	if tparams == "" && spec.TypeParams != nil && len(spec.TypeParams.List) > 0 {
		tparams = "[" + fieldListString(spec.TypeParams.List) + "]"
	}
	b.WriteString(tparams)
	if spec.Assign.IsValid() {
		b.WriteString(" = ")
	} else {
		b.WriteByte(' ')
	}
	switch t := spec.Type.(type) {
	case *ast.StructType:
		if t.Fields == nil || len(t.Fields.List) == 0 {
			b.WriteString("struct{}")
		} else {
			b.WriteString("struct{...}")
		}
	case *ast.InterfaceType:
		if t.Methods == nil || len(t.Methods.List) == 0 {
			b.WriteString("interface{}")
		} else {
			b.WriteString("interface{...}")
		}
	default:
		rhs := ""
		if fs.src.typed && fs.s.info != nil {
			rhs = fs.typeString(fs.s.info.TypeOf(spec.Type))
		}
		if rhs == "" {
			rhs = syntax.ExprString(spec.Type)
		}
		b.WriteString(rhs)
	}
	return b.String()
}

// typeParams prints the type parameters of a generic named type or alias
// the way they are declared, consecutive parameters with the same
// constraint sharing it: "[K comparable, V any]", "[T, U any]".
func (fs *fileSyms) typeParams(t types.Type) string {
	var list *types.TypeParamList
	switch t := t.(type) {
	case *types.Named:
		list = t.TypeParams()
	case *types.Alias:
		list = t.TypeParams()
	}
	if list == nil || list.Len() == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < list.Len(); i++ {
		tp := list.At(i)
		c := fs.typeString(tp.Constraint())
		if c == "" {
			return ""
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tp.Obj().Name())
		if i+1 < list.Len() && fs.typeString(list.At(i+1).Constraint()) == c {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(c)
	}
	b.WriteByte(']')
	return b.String()
}

// fields adds the fields of the struct type typeName, embedded ones named
// by their type name.
func (fs *fileSyms) fields(ps []*pending, typeName string, parent int, st *ast.StructType) []*pending {
	if st.Fields == nil {
		return ps
	}
	for _, f := range st.Fields.List {
		doc := docText(f.Doc, f.Comment)
		ids := f.Names
		if len(ids) == 0 {
			ids = []*ast.Ident{syntax.EmbeddedIdent(f.Type)} // nil when it names no type
		}
		for _, id := range ids {
			if id == nil || id.Name == "_" {
				continue
			}
			p := fs.newPending(graph.KindField, id.Name, syntax.Qualified(typeName, id.Name), f.Pos(), f.End())
			p.parent, p.sym.Doc, p.ident = parent, doc, id
			t := ""
			if v, ok := fs.obj(id).(*types.Var); ok {
				t = fs.typeString(v.Type())
			}
			if t == "" {
				t = syntax.ExprString(f.Type)
			}
			if len(f.Names) > 0 {
				t = id.Name + " " + t // an embedded field's signature is its type
			}
			p.sym.Signature = t
			ps = append(ps, p)
		}
	}
	return ps
}

// interfaceMethods adds the methods the interface typeName declares
// itself; embedded interfaces and type-set terms declare none.
func (fs *fileSyms) interfaceMethods(ps []*pending, typeName string, parent int, it *ast.InterfaceType) []*pending {
	if it.Methods == nil {
		return ps
	}
	for _, f := range it.Methods.List {
		ft, ok := f.Type.(*ast.FuncType)
		if !ok || len(f.Names) == 0 {
			continue
		}
		for _, id := range f.Names {
			if id == nil || id.Name == "_" {
				continue
			}
			p := fs.newPending(graph.KindInterfaceMethod, id.Name, syntax.Qualified(typeName, id.Name), f.Pos(), f.End())
			p.parent, p.sym.Doc, p.ident = parent, docText(f.Doc, f.Comment), id
			sig := ""
			if fn, ok := fs.obj(id).(*types.Func); ok {
				if s, ok := fn.Type().(*types.Signature); ok {
					var b bytes.Buffer
					b.WriteString(id.Name)
					types.WriteSignature(&b, s, fs.qf)
					sig = b.String()
				}
			}
			if !usable(sig) {
				sig = id.Name + strings.TrimPrefix(syntax.ExprString(ft), "func")
			}
			p.sym.Signature = sig
			ps = append(ps, p)
		}
	}
	return ps
}

// astFuncSignature prints a function declaration from its syntax alone,
// for code the type checker could not make sense of.
func astFuncSignature(d *ast.FuncDecl, recvName string) string {
	var b strings.Builder
	b.WriteString("func ")
	if d.Recv != nil && len(d.Recv.List) > 0 {
		b.WriteByte('(')
		if recvName != "" {
			b.WriteString(recvName)
			b.WriteByte(' ')
		}
		b.WriteString(syntax.ExprString(d.Recv.List[0].Type))
		b.WriteString(") ")
	}
	b.WriteString(d.Name.Name)
	if d.Type != nil {
		if d.Type.TypeParams != nil && len(d.Type.TypeParams.List) > 0 {
			b.WriteString("[" + fieldListString(d.Type.TypeParams.List) + "]")
		}
		b.WriteString(strings.TrimPrefix(syntax.ExprString(d.Type), "func"))
	}
	return b.String()
}

// fieldListString prints a type parameter list's contents: "K comparable, V any".
func fieldListString(list []*ast.Field) string {
	var parts []string
	for _, f := range list {
		var names []string
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
		part := strings.Join(names, ", ")
		if part != "" {
			part += " "
		}
		parts = append(parts, part+syntax.ExprString(f.Type))
	}
	return strings.Join(parts, ", ")
}

// docText returns the text of the first non-empty comment group, without
// the trailing newline ast.CommentGroup.Text keeps.
func docText(groups ...*ast.CommentGroup) string {
	for _, g := range groups {
		if g == nil {
			continue
		}
		if t := strings.TrimSpace(g.Text()); t != "" {
			return t
		}
	}
	return ""
}
