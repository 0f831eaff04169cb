package query

import (
	"cmp"
	"context"
	"fmt"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/typeproto"
)

const descExplainType = `A Go type's protocol: kind, underlying type, type parameters, constructors, method sets of T and *T with effects, the interfaces it satisfies (standard library too), channel fields with who sends, receives and closes, goroutines its methods start, whether a copy is safe. Selectors as get_symbol; within budget, with cursors. Errors: INVALID_ARGUMENT (not a type), SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, CHECK_ERROR, CURSOR_INVALID, UNSUPPORTED_LANGUAGE.`

// ExplainTypeInput selects a type as get_symbol selects a symbol.
type ExplainTypeInput struct {
	SymbolSelector
	SectionInput
}

// paramDocs says the selector's names in a type's words.
func (ExplainTypeInput) paramDocs() map[string]string {
	return map[string]string{
		"qualified_name": "Type, pkg.Type or import/path.Type",
		"name":           "with file: Type or pkg.Type",
	}
}

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
	Symbol       SymbolRef       `json:"symbol" jsonschema:"the type"`
	Package      string          `json:"package" jsonschema:"import path"`
	Kind         string          `json:"kind" jsonschema:"struct, interface, func, map, slice, chan, pointer, array, basic, alias, or invalid (the compiler rejects its definition: check_file says why)"`
	Underlying   string          `json:"underlying" jsonschema:"underlying type"`
	TypeParams   string          `json:"type_params,omitempty" jsonschema:"type parameters of a generic type"`
	CopySafe     bool            `json:"copy_safe" jsonschema:"false when a copy would copy a lock"`
	CopyHazard   string          `json:"copy_hazard,omitempty" jsonschema:"the lock a copy would copy"`
	Embedded     []string        `json:"embedded" jsonschema:"embedded types"`
	Constructors []TypeFunc      `json:"constructors" jsonschema:"functions of its package returning it"`
	Methods      []TypeMethod    `json:"methods" jsonschema:"method set of *T, most used first"`
	Satisfies    []TypeInterface `json:"satisfies" jsonschema:"interfaces it satisfies"`
	Channels     []TypeChannel   `json:"channels" jsonschema:"its channel fields"`
	Goroutines   []TypeGoroutine `json:"goroutines" jsonschema:"go statements in its methods"`
}

// ExplainTypeOutput is the answer of explain_type.
type ExplainTypeOutput struct {
	Envelope
	Section string           `json:"section,omitempty" jsonschema:"the one section asked for"`
	Results *TypeProtocol    `json:"results" jsonschema:"the type's protocol"`
	Omitted []SectionOmitted `json:"omitted,omitempty" jsonschema:"sections the budget cut"`

	root string
}

// typeSections are explain_type's sections, in the order they are filled.
var typeSections = []string{"methods", "satisfies", "constructors", "channels", "goroutines", "embedded"}

// ExplainType reports a type's protocol.
func ExplainType(ctx context.Context, s *Service, in ExplainTypeInput, progress func(Progress)) (*ExplainTypeOutput, error) {
	sel := in.selector()
	if err := sel.validate(); err != nil {
		return nil, err
	}
	if err := checkSelector("section", in.Section); err != nil {
		return nil, err
	}
	budget, err := budgetIn(in.Budget, defaultOverviewBudget, minOverviewBudget, maxOverviewBudget)
	if err != nil {
		return nil, err
	}
	section := -1
	if in.Section != "" {
		if section = slices.Index(typeSections, in.Section); section < 0 {
			return nil, invalid("section", "must be one of %s (got %q)", strings.Join(typeSections, ", "), in.Section)
		}
	} else if in.Cursor != "" {
		return nil, invalid("cursor", "goes with the section it was given for")
	}
	v, sym, err := openSymbol(ctx, s, sel, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	if err := goOnly(sym, "explain_type"); err != nil {
		return nil, err
	}
	if sym.Kind != graph.KindType && sym.Kind != graph.KindInterface {
		return nil, invalid("qualified_name", "%s is %s %s, not a type: explain_type describes types; for functions use explain_effects, for any symbol get_symbol",
			sym.QualifiedName, article(string(sym.Kind)), sym.Kind)
	}
	repo, err := v.Repo(sym.Repository)
	if err != nil {
		return nil, err
	}
	p, err := s.sess.LivePackage(ctx, "file", filepath.Join(repo.Root, filepath.FromSlash(sym.Path)))
	if err != nil {
		return nil, err
	}
	tp, err := typeProtocol(ctx, v, p, repo, sym)
	if err != nil {
		return nil, err
	}
	out := &ExplainTypeOutput{Envelope: v.Envelope(), Section: in.Section, root: repo.Root}
	vk := v.Key([]string{repo.Name})
	offsets := make([]int, len(typeSections))
	caps := make([]int, len(typeSections))
	for i := range typeSections {
		caps[i] = tp.rows(i)
		if section >= 0 && i != section {
			caps[i] = 0
		}
	}
	query := func(sec string) string { return fingerprint("explain_type", sym.Key, sec) }
	if section >= 0 {
		off, err := decodeCursor(in.Cursor, query(in.Section), vk)
		if err != nil {
			return nil, err
		}
		offsets[section] = min(off, caps[section])
		caps[section] -= offsets[section]
	}
	build := func(shown []int) *ExplainTypeOutput {
		o := *out
		o.Results = tp.cut(offsets, shown)
		for i, name := range typeSections {
			if section >= 0 && i != section {
				continue
			}
			if n := tp.rows(i); offsets[i]+shown[i] < n {
				o.Omitted = append(o.Omitted, SectionOmitted{Section: name, Shown: shown[i], Total: n,
					Cursor: encodeOffsetCursor(query(name), vk, offsets[i]+shown[i])})
			}
		}
		return &o
	}
	shown := fitSectionRows(caps, budget, func(shown []int) string { return build(shown).Text() })
	out = build(shown)
	out.Total, out.Returned, out.Truncated = 1, 1, len(out.Omitted) > 0
	return out, nil
}

// typeProtocol computes the protocol of sym, a type declared in p's
// package, from go/types and the index.
func typeProtocol(ctx context.Context, v *session.View, p *live.Package, repo graph.RepositoryStatus, sym graph.Symbol) (*TypeProtocol, error) {
	if p.Pkg.Types == nil {
		return nil, graph.Errorf(graph.CodeCheckError, "%s did not type-check; call check_file for its errors", sym.Path)
	}
	obj, ok := p.Pkg.Types.Scope().Lookup(sym.Name).(*types.TypeName)
	if !ok {
		return nil, graph.Errorf(graph.CodeSymbolNotFound, "%s is not a package-level type of %s as compiled from the disk now; it may have been renamed: find it again with find_symbol", sym.Name, p.Pkg.PkgPath)
	}
	q := types.RelativeTo(p.Pkg.Types)
	t := obj.Type()
	tp := &TypeProtocol{Symbol: symbolRef(sym), Package: p.Pkg.PkgPath, Kind: typeKind(t),
		Underlying: types.TypeString(t.Underlying(), q)}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.TypeParams().Len() > 0 {
		var ps []string
		for tv := range n.TypeParams().TypeParams() {
			ps = append(ps, tv.Obj().Name()+" "+types.TypeString(tv.Constraint(), q))
		}
		tp.TypeParams = "[" + strings.Join(ps, ", ") + "]"
	}
	invalidType := tp.Kind == kindInvalid
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
		rel, ok := relPath(repo.Root, ps.Filename)
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
		rel, _ := relPath(repo.Root, ps.Filename)
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
		tp.Goroutines = append(tp.Goroutines, TypeGoroutine{TypeSite: site(g.Fn, g.Pos), Starts: exprText(p, g.Call)})
	}
	return tp, nil
}

// kindInvalid is the kind of a type the compiler rejects.
const kindInvalid = "invalid"

// typeKind names the kind of t's underlying type.
func typeKind(t types.Type) string {
	if _, ok := t.(*types.Alias); ok {
		return "alias"
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Kind() == types.Invalid {
			return kindInvalid
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

// rows is how many rows section i of the protocol has.
func (tp *TypeProtocol) rows(i int) int {
	switch typeSections[i] {
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

// cut returns tp with shown[i] rows of section i from offsets[i].
func (tp *TypeProtocol) cut(offsets, shown []int) *TypeProtocol {
	c := *tp
	for i, name := range typeSections {
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

// maxUnderlying cuts a long underlying type (a struct of many fields) in
// the text; the structured answer has it whole.
const maxUnderlying = 300

// Text renders the protocol for an agent.
func (o *ExplainTypeOutput) Text() string {
	var b strings.Builder
	writeFreshness(&b, o.Envelope)
	tp := o.Results
	fmt.Fprintf(&b, "type %s%s (%s) in %s, %s:%d\n", tp.Symbol.QualifiedName, tp.TypeParams, tp.Kind, tp.Package, tp.Symbol.Path, tp.Symbol.Line)
	if o.Section == "" {
		u := tp.Underlying
		if len(u) > maxUnderlying {
			u = cutUTF8(u, maxUnderlying) + "…"
		}
		fmt.Fprintf(&b, "underlying: %s\n", u)
		switch {
		case tp.Kind == kindInvalid:
			b.WriteString("the compiler rejects this type's definition (an invalid recursive type, or an error in it): call check_file on its file for why\n")
		case tp.CopySafe:
			b.WriteString("copy: safe (no lock inside)\n")
		default:
			fmt.Fprintf(&b, "copy: NOT safe, it holds a lock: %s; pass a pointer\n", tp.CopyHazard)
		}
	}
	if len(tp.Constructors) > 0 {
		b.WriteString("constructors:\n")
		for _, c := range tp.Constructors {
			fmt.Fprintf(&b, "  %s%s  %s:%d\n", c.Name, c.Signature, c.Path, c.Line)
		}
	}
	if len(tp.Methods) > 0 {
		b.WriteString("methods (T: in the method sets of T and *T; *T: of *T only):\n")
		for _, m := range tp.Methods {
			fmt.Fprintf(&b, "  %-2s %s%s", m.Receiver, m.Name, m.Signature)
			if m.Promoted != "" {
				fmt.Fprintf(&b, "  promoted from %s", m.Promoted)
			} else if m.Path != "" {
				fmt.Fprintf(&b, "  %s:%d", m.Path, m.Line)
			}
			if len(m.Effects) > 0 {
				fmt.Fprintf(&b, "  effects: %s", strings.Join(m.Effects, ", "))
			}
			b.WriteString("\n")
		}
	}
	if len(tp.Embedded) > 0 {
		fmt.Fprintf(&b, "embedded: %s\n", strings.Join(tp.Embedded, ", "))
	}
	if len(tp.Satisfies) > 0 {
		b.WriteString("satisfies:\n")
		for _, s := range tp.Satisfies {
			fmt.Fprintf(&b, "  %s", s.Interface)
			if s.Package != "" && !strings.HasSuffix(s.Package, "/"+strings.Split(s.Interface, ".")[0]) && s.Package != strings.Split(s.Interface, ".")[0] {
				fmt.Fprintf(&b, " (%s)", s.Package)
			}
			if s.Pointer {
				b.WriteString(", *T only")
			}
			b.WriteString("\n")
		}
	}
	sites := func(verb string, ss []TypeSite) string {
		if len(ss) == 0 {
			return ""
		}
		parts := make([]string, len(ss))
		for i, s := range ss {
			parts[i] = fmt.Sprintf("%s %s:%d", s.Function, s.Path, s.Line)
		}
		return "; " + verb + " " + strings.Join(parts, ", ")
	}
	if len(tp.Channels) > 0 {
		b.WriteString("channels (operations in its package):\n")
		for _, c := range tp.Channels {
			fmt.Fprintf(&b, "  %s %s%s%s%s\n", c.Field, c.Type, sites("sent in", c.Sends), sites("received in", c.Receives), sites("closed in", c.Closes))
		}
	}
	if len(tp.Goroutines) > 0 {
		b.WriteString("goroutines its methods start:\n")
		for _, g := range tp.Goroutines {
			fmt.Fprintf(&b, "  %s %s:%d: go %s\n", g.Function, g.Path, g.Line, g.Starts)
		}
	}
	writeOmitted(&b, o.Omitted)
	return b.String()
}
