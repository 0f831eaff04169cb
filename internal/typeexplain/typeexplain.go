// Package typeexplain is explain_type's engine: the protocol of a Go
// type as package typeproto reads it with go/types, with what the index
// adds: each method's effect row, the methods ordered by their uses, the
// interfaces the index relates the type to; and the protocol's sections
// counted and cut by rows, for paging.
package typeexplain

import (
	"cmp"
	"context"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/typeproto"
)

// TypeMethod is one method of the type's method sets.
type TypeMethod struct {
	Name      string   `json:"name" jsonschema:"method name"`
	Signature string   `json:"signature" jsonschema:"parameters and results"`
	Receiver  string   `json:"receiver" jsonschema:"T: in the method sets of T and *T; *T: of *T only"`
	Promoted  string   `json:"promoted,omitempty" jsonschema:"the embedded field it is promoted from"`
	Effects   []string `json:"effects,omitempty" jsonschema:"its effect row (? possible), pure, or open"`
	Path      string   `json:"path,omitempty" jsonschema:"repo-relative file, inside the roots"`
	Line      int      `json:"line,omitempty" jsonschema:"1-based line"`
	StableKey string   `json:"stable_key,omitempty" jsonschema:"durable key, when indexed"`

	pkg *types.Package
	fn  *types.Func
}

// TypeFunc is a function that returns the type.
type TypeFunc struct {
	Name      string `json:"name" jsonschema:"function name"`
	Signature string `json:"signature" jsonschema:"its signature"`
	Path      string `json:"path" jsonschema:"repo-relative file"`
	Line      int    `json:"line" jsonschema:"1-based line"`
}

// TypeInterface is an interface the type satisfies (see package
// typeproto).
type TypeInterface = typeproto.Interface

// TypeSite is a place in a function.
type TypeSite struct {
	Function string `json:"function" jsonschema:"Name or Type.Method"`
	Path     string `json:"path" jsonschema:"repo-relative file"`
	Line     int    `json:"line" jsonschema:"1-based line"`
}

// TypeChannel is a channel field and who operates on it.
type TypeChannel struct {
	Field    string     `json:"field" jsonschema:"field name"`
	Type     string     `json:"type" jsonschema:"its channel type"`
	Sends    []TypeSite `json:"sends" jsonschema:"where its package sends on it"`
	Receives []TypeSite `json:"receives" jsonschema:"where it receives, ranges or selects"`
	Closes   []TypeSite `json:"closes" jsonschema:"where it closes it"`
}

// TypeGoroutine is a go statement in one of the type's methods.
type TypeGoroutine struct {
	TypeSite
	Starts string `json:"starts" jsonschema:"what the go statement calls"`
}

// TypeProtocol is what explain_type says of a type.
type TypeProtocol struct {
	Symbol       answer.SymbolRef `json:"symbol" jsonschema:"the type"`
	Package      string           `json:"package" jsonschema:"import path"`
	Kind         string           `json:"kind" jsonschema:"struct, interface, func, map, slice, chan, pointer, array, basic, alias, or invalid (the compiler rejects its definition: check_file says why)"`
	Underlying   string           `json:"underlying" jsonschema:"underlying type"`
	TypeParams   string           `json:"type_params,omitempty" jsonschema:"type parameters of a generic type"`
	CopySafe     bool             `json:"copy_safe" jsonschema:"false when a copy would copy a lock"`
	CopyHazard   string           `json:"copy_hazard,omitempty" jsonschema:"the lock a copy would copy"`
	Embedded     []string         `json:"embedded" jsonschema:"embedded types"`
	Constructors []TypeFunc       `json:"constructors" jsonschema:"functions of its package returning it"`
	Methods      []TypeMethod     `json:"methods" jsonschema:"method set of *T, most used first"`
	Satisfies    []TypeInterface  `json:"satisfies" jsonschema:"interfaces it satisfies"`
	Channels     []TypeChannel    `json:"channels" jsonschema:"its channel fields"`
	Goroutines   []TypeGoroutine  `json:"goroutines" jsonschema:"go statements in its methods"`
}

// Protocol computes the protocol of sym, a type declared in p's
// package, from go/types and the index.
func Protocol(ctx context.Context, v *session.View, p *live.Package, repo graph.RepositoryStatus, sym graph.Symbol) (*TypeProtocol, error) {
	if p.Pkg.Types == nil {
		return nil, graph.Errorf(graph.CodeCheckError, "%s did not type-check; call check_file for its errors", sym.Path)
	}
	obj, ok := p.Pkg.Types.Scope().Lookup(sym.Name).(*types.TypeName)
	if !ok {
		return nil, graph.Errorf(graph.CodeSymbolNotFound, "%s is not a package-level type of %s as compiled from the disk now; it may have been renamed: find it again with find_symbol", sym.Name, p.Pkg.PkgPath)
	}
	q := types.RelativeTo(p.Pkg.Types)
	t := obj.Type()
	tp := &TypeProtocol{Symbol: answer.Ref(sym), Package: p.Pkg.PkgPath, Kind: typeKind(t),
		Underlying: types.TypeString(t.Underlying(), q)}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.TypeParams().Len() > 0 {
		var ps []string
		for tv := range n.TypeParams().TypeParams() {
			ps = append(ps, tv.Obj().Name()+" "+types.TypeString(tv.Constraint(), q))
		}
		tp.TypeParams = "[" + strings.Join(ps, ", ") + "]"
	}
	invalidType := tp.Kind == KindInvalid
	if invalidType {
		// go/types gives an invalid type (an invalid recursive definition)
		// the invalid type as its underlying type, which is assignable
		// to everything: what it holds and satisfies is unknown.
		tp.CopyHazard = "unknown: the type is invalid"
	} else {
		tp.CopyHazard = typeproto.CopyHazard(t, q)
	}
	tp.CopySafe = tp.CopyHazard == ""
	tp.Embedded = typeproto.EmbeddedTypes(t, q)
	where := func(o types.Object) (string, int) {
		ps := p.Fset.Position(o.Pos())
		rel, ok := live.RelPath(repo.Root, ps.Filename)
		if !ok {
			return "", 0
		}
		return rel, ps.Line
	}
	for _, fn := range typeproto.Constructors(p.Pkg.Types, obj, q) {
		path, line := where(fn)
		tp.Constructors = append(tp.Constructors, TypeFunc{Name: fn.Name(),
			Signature: strings.TrimPrefix(types.TypeString(fn.Type(), q), "func"), Path: path, Line: line})
	}
	for _, m := range typeproto.MethodSet(t, q) {
		tm := TypeMethod{Name: m.Name, Signature: m.Signature, Receiver: m.Receiver, Promoted: m.Promoted, pkg: m.Func.Pkg(), fn: m.Func}
		tm.Path, tm.Line = where(m.Func)
		tp.Methods = append(tp.Methods, tm)
	}
	if err := methodEffects(ctx, v, sym, tp.Methods); err != nil {
		return nil, err
	}
	if err := orderMethods(ctx, v, sym, tp.Methods); err != nil {
		return nil, err
	}
	if !invalidType {
		tp.Satisfies = typeproto.SatisfiedInterfaces(p.Pkg.Types, t, obj)
		if err := indexedInterfaces(ctx, v, sym, tp); err != nil {
			return nil, err
		}
	}
	site := func(fn string, pos token.Pos) TypeSite {
		ps := p.Fset.Position(pos)
		rel, _ := live.RelPath(repo.Root, ps.Filename)
		return TypeSite{Function: fn, Path: rel, Line: ps.Line}
	}
	if st, ok := t.Underlying().(*types.Struct); ok {
		var chans []*types.Var
		for f := range st.Fields() {
			if _, ok := f.Type().Underlying().(*types.Chan); ok {
				chans = append(chans, f)
			}
		}
		uses := typeproto.ChannelUses(p, chans)
		for _, f := range chans {
			c := TypeChannel{Field: f.Name(), Type: types.TypeString(f.Type(), q), Sends: []TypeSite{}, Receives: []TypeSite{}, Closes: []TypeSite{}}
			for _, u := range uses {
				if u.Field != f {
					continue
				}
				s := site(u.Fn, u.Pos)
				switch u.Op {
				case "send":
					c.Sends = append(c.Sends, s)
				case "receive":
					c.Receives = append(c.Receives, s)
				case "close":
					c.Closes = append(c.Closes, s)
				}
			}
			tp.Channels = append(tp.Channels, c)
		}
	}
	for _, g := range typeproto.GoStatements(p, obj.Name()) {
		tp.Goroutines = append(tp.Goroutines, TypeGoroutine{TypeSite: site(g.Fn, g.Pos), Starts: p.ExprText(g.Call)})
	}
	return tp, nil
}

// KindInvalid is the kind of a type the compiler rejects.
const KindInvalid = "invalid"

// typeKind names the kind of t's underlying type.
func typeKind(t types.Type) string {
	if _, ok := t.(*types.Alias); ok {
		return "alias"
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Kind() == types.Invalid {
			return KindInvalid
		}
		return "basic"
	case *types.Struct:
		return "struct"
	case *types.Interface:
		return "interface"
	case *types.Signature:
		return "func"
	case *types.Map:
		return "map"
	case *types.Slice:
		return "slice"
	case *types.Chan:
		return "chan"
	case *types.Pointer:
		return "pointer"
	case *types.Array:
		return "array"
	}
	return "basic"
}

// methodEffects fills each method's stable key and effect row from the
// index: the type's own methods are its children; a promoted method is
// looked up as its declaring type's.
func methodEffects(ctx context.Context, v *session.View, sym graph.Symbol, methods []TypeMethod) error {
	r := v.Reader()
	children, err := r.Children(ctx, sym.Repository, sym.Key)
	if err != nil {
		return graph.Wrap(graph.CodeInternal, err, "reading methods")
	}
	keyOf := map[string]string{}
	for _, c := range children {
		if c.Kind.IsFunction() {
			keyOf[c.Name] = c.Key
		}
	}
	var keys []string
	for i := range methods {
		m := &methods[i]
		if m.Promoted == "" {
			m.StableKey = keyOf[m.Name]
		} else if recv := m.fn.Signature().Recv(); recv != nil && m.pkg != nil {
			base := recv.Type()
			if ptr, ok := base.(*types.Pointer); ok {
				base = ptr.Elem()
			}
			if n, ok := types.Unalias(base).(*types.Named); ok {
				syms, err := r.LookupSymbols(ctx, graph.Lookup{PackagePath: m.pkg.Path(), QualifiedName: n.Obj().Name() + "." + m.Name})
				if err == nil && len(syms) == 1 {
					m.StableKey = syms[0].Key
				}
			}
		}
		if m.StableKey != "" {
			keys = append(keys, m.StableKey)
		}
	}
	recs, err := r.EffectRecords(ctx, keys)
	if err != nil {
		return graph.Wrap(graph.CodeInternal, err, "reading effects")
	}
	row := map[string][]string{}
	for _, rec := range recs {
		e := string(rec.Effect)
		if !rec.Certain && rec.Effect != graph.EffectPure && rec.Effect != graph.EffectOpen {
			e += "?"
		}
		row[rec.Function] = append(row[rec.Function], e)
	}
	for i := range methods {
		methods[i].Effects = row[methods[i].StableKey]
	}
	return nil
}

// orderMethods orders methods the way an agent reads them: declared on
// the type before promoted, and within each the most used from outside
// the type first, then the most used at all (the type's own methods
// calling them), then by name. A type of a web framework has a hundred
// methods, and the one that drives its middleware chain matters more
// than its getters, whatever its name; uses in tests are not counted.
func orderMethods(ctx context.Context, v *session.View, sym graph.Symbol, methods []TypeMethod) error {
	own := map[string]bool{sym.Key: true}
	var keys []string
	for _, m := range methods {
		if m.StableKey != "" {
			keys = append(keys, m.StableKey)
			if m.Promoted == "" {
				own[m.StableKey] = true
			}
		}
	}
	outside, all := map[string]int{}, map[string]int{}
	if len(keys) > 0 {
		refs, _, err := v.Reader().Refs(ctx, graph.RefQuery{Targets: keys})
		if err != nil {
			return graph.Wrap(graph.CodeInternal, err, "counting uses of methods")
		}
		for _, r := range refs {
			all[r.Target]++
			if !own[r.Enclosing] {
				outside[r.Target]++
			}
		}
	}
	slices.SortStableFunc(methods, func(a, b TypeMethod) int {
		if (a.Promoted == "") != (b.Promoted == "") {
			if a.Promoted == "" {
				return -1
			}
			return 1
		}
		return cmp.Or(outside[b.StableKey]-outside[a.StableKey], all[b.StableKey]-all[a.StableKey], strings.Compare(a.Name, b.Name))
	})
	return nil
}

// indexedInterfaces marks the interfaces the index knows the type
// satisfies, adding those go/types did not find (an interface of another
// repository of the index).
func indexedInterfaces(ctx context.Context, v *session.View, sym graph.Symbol, tp *TypeProtocol) error {
	impls, err := v.Reader().Implementations(ctx, sym.Key, false)
	if err != nil {
		return graph.Wrap(graph.CodeInternal, err, "reading implementations")
	}
	keys := make([]string, len(impls))
	pointer := map[string]bool{}
	for i, im := range impls {
		keys[i] = im.Interface
		pointer[im.Interface] = im.Pointer
	}
	syms, err := v.Reader().SymbolsByKeys(ctx, keys)
	if err != nil {
		return graph.Wrap(graph.CodeInternal, err, "reading interfaces")
	}
	for _, s := range syms {
		i := slices.IndexFunc(tp.Satisfies, func(ti TypeInterface) bool {
			return ti.Package == s.PackagePath && ti.Interface == s.PackageName+"."+s.QualifiedName
		})
		if i < 0 {
			tp.Satisfies = append(tp.Satisfies, TypeInterface{Interface: s.PackageName + "." + s.QualifiedName,
				Package: s.PackagePath, Pointer: pointer[s.Key]})
			i = len(tp.Satisfies) - 1
		}
		tp.Satisfies[i].Indexed = true
	}
	// The standard library first, then the rest by import path.
	std := func(p string) bool { first, _, _ := strings.Cut(p, "/"); return !strings.Contains(first, ".") }
	slices.SortStableFunc(tp.Satisfies, func(a, b TypeInterface) int {
		if std(a.Package) != std(b.Package) {
			if std(a.Package) {
				return -1
			}
			return 1
		}
		return cmp.Or(strings.Compare(a.Package, b.Package), strings.Compare(a.Interface, b.Interface))
	})
	return nil
}

// Sections are explain_type's sections, in the order they are filled.
var Sections = []string{"methods", "satisfies", "constructors", "channels", "goroutines", "embedded"}

// Rows is how many rows section i of the protocol has.
func (tp *TypeProtocol) Rows(i int) int {
	switch Sections[i] {
	case "methods":
		return len(tp.Methods)
	case "satisfies":
		return len(tp.Satisfies)
	case "constructors":
		return len(tp.Constructors)
	case "channels":
		return len(tp.Channels)
	case "goroutines":
		return len(tp.Goroutines)
	}
	return len(tp.Embedded)
}

// Cut returns tp with shown[i] rows of section i from offsets[i].
func (tp *TypeProtocol) Cut(offsets, shown []int) *TypeProtocol {
	c := *tp
	for i, name := range Sections {
		from, to := offsets[i], offsets[i]+shown[i]
		switch name {
		case "methods":
			c.Methods = tp.Methods[from:to]
		case "satisfies":
			c.Satisfies = tp.Satisfies[from:to]
		case "constructors":
			c.Constructors = tp.Constructors[from:to]
		case "channels":
			c.Channels = tp.Channels[from:to]
		case "goroutines":
			c.Goroutines = tp.Goroutines[from:to]
		case "embedded":
			c.Embedded = tp.Embedded[from:to]
		}
	}
	return &c
}
