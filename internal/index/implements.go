package index

import (
	"context"
	"encoding/hex"
	"fmt"
	"go/token"
	"go/types"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
)

// Implementations are computed the way gopls computes them for its
// `implementation` query, over the named types declared at package level
// in the repository (aliases excluded):
//
//   - a type C implements an interface I (C ≠ I) when the method set of
//     C, or of *C for a non-interface C, has every method of I's method
//     set (embedded interfaces included) with a matching signature; C may
//     itself be an interface, with a larger method set;
//   - types and interfaces with empty method sets take no part (every
//     type satisfies an empty interface);
//   - generic methods take no part; a signature that mentions type
//     parameters matches another when the type parameters can be bound
//     (each one consistently within one method) to make them equal, so a
//     generic type implements an interface when some instantiation would.
//
// Type objects differ between packages, variants and load units, so
// method sets are summarised per package while its types are alive
// (method ids and signature fingerprints that name types by package path)
// and compared once every package is extracted.
//
// Besides a record per (type, interface) pair, there is one per
// corresponding method pair (Type: the concrete or sub-interface method's
// key, Interface: the interface method's key), so that an interface
// method's implementations, and a method's interfaces, are one lookup;
// methods are those that declare them, so a method promoted through an
// embedded field is recorded under the type that declares it.
//
// For the query layer, gopls's answers come out of these records so:
//
//   - implementation of an interface I: the Type of every record whose
//     Interface is I (concrete types and larger interfaces);
//   - of a concrete type T: the Interface of every record whose Type is T
//     (never the other way: gopls lists only the interfaces T satisfies);
//   - of an interface method m: the Type of every method record whose
//     Interface is m (methods promoted into an implementing type
//     included, under the type that declares them);
//   - of a concrete method m of T: the Interface of the method records
//     whose Type is m and whose interface method's parent J has a type
//     record (T, J); the others come from types that T is embedded in,
//     which gopls leaves out;
//   - of an alias: as of the type it names (its declaration's first type
//     reference); aliases have no records of their own;
//   - interfaces and methods outside the graph (io.Reader, error) are
//     not listed: the graph has no symbols for them.
//
// The method expansion of find_references (gopls counts, for a method,
// the uses of its corresponding methods too) follows the same records:
// for a method m of T (concrete or interface), the Interface of the
// method records whose Type is m, kept when a type record (T, parent of
// that interface method) exists; for an interface method m of I, also
// the Type of the method records whose Interface is m: all of them when
// m's name is exported, and only those whose method's parent has a type
// record with I when it is not (gopls then searches the declaring package
// only, relating methods by the types that declare them, so a method
// promoted into an implementing type does not count).
//
// Self pairs: when a type of another package gets an interface method
// into its method set by embedding (the interface, or an interface or
// struct that has it), gopls lists that very method among the method's
// own implementations (its search of other packages reports the method
// each type has, which is the query's own). A record with Type equal to
// Interface marks that case, so the query layer can reproduce it (or
// drop such records to leave it out).

// typeSummary is the method set of one package-level named type.
type typeSummary struct {
	at      target
	pkg     string // import path of the declaring package
	iface   bool
	mask    uint64          // one bit per method id, for a quick subset test
	methods []methodSummary // sorted by id
}

// methodSummary is one method of a method set.
type methodSummary struct {
	id     string // types.Func.Id: the name, qualified by package path when unexported
	pkg    string // import path of the package declaring the method
	fp     string // fingerprint of the signature (receiver excluded)
	tricky bool   // fp mentions type parameters: match by unification
	ptr    bool   // in the method set of *T but not of T
	known  bool   // at is set: the method is declared under the root
	at     target
}

// typeSummaries summarises the method sets of the package's named types.
//
// A method set costs its methods times the depth they are promoted from
// (callgraph.MethodSetCosts), which a chain of embedded structs makes
// the square of its source: a type past callgraph.MaxMethodSetCost, or
// past what is left of the package's budget (the cap plus one unit per
// byte of the package's source, spent in name order), is not summarised,
// so it takes part in no implementation record, and one diagnostic on
// the package names such types and the cap. It stops early when ctx
// ends (the caller checks ctx after each package).
func (s *pkgState) typeSummaries(ctx context.Context) {
	if s.types == nil || s.main.Fset == nil {
		return
	}
	fset := s.main.Fset
	scope := s.types.Scope()
	var source int64
	for _, src := range s.sources {
		source += int64(len(src.content))
	}
	left := callgraph.MaxMethodSetCost + source
	var skipped []*types.TypeName
	for i, name := range scope.Names() {
		if i%256 == 0 && ctx.Err() != nil {
			return
		}
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || tn.Type() == nil {
			continue
		}
		at, ok := s.targetOf(fset, tn)
		if !ok {
			continue
		}
		if c := s.costs.Cost(tn.Type()); c > callgraph.MaxMethodSetCost || c > left {
			skipped = append(skipped, tn)
			continue
		} else {
			left -= c
		}
		if sum, ok := summarise(tn.Type(), fset, s.targetOf); ok {
			sum.at, sum.pkg = at, s.g.path
			s.xr.types = append(s.xr.types, sum)
		}
	}
	if len(skipped) > 0 {
		s.addDiag(s.methodSetDiag(skipped))
	}
}

// methodSetDiag is the diagnostic of the types typeSummaries left out,
// at the first of them.
func (s *pkgState) methodSetDiag(skipped []*types.TypeName) graph.Diagnostic {
	names := make([]string, 0, 6)
	for _, tn := range skipped[:min(5, len(skipped))] {
		names = append(names, tn.Name())
	}
	if len(skipped) > 5 {
		names = append(names, "…")
	}
	d := graph.Diagnostic{Kind: "unknown", Message: fmt.Sprintf(
		"method sets too large: %d types (%s) past the cap of %d selection steps per type or the package's budget: "+
			"their implementations are not recorded and their promoted methods are not listed",
		len(skipped), strings.Join(names, ", "), callgraph.MaxMethodSetCost)}
	pos := s.main.Fset.Position(skipped[0].Pos())
	if rel, ok := s.x.rel(pos.Filename); ok {
		d.Path, d.Line = rel, pos.Line
		d.Col = s.linesOf(pos.Filename).CharColumnAt(pos.Line, pos.Column)
	}
	return d
}

// summarise returns the method-set summary of t, and false when its
// method set is empty.
func summarise(t types.Type, fset *token.FileSet, targetOf func(*token.FileSet, types.Object) (target, bool)) (typeSummary, bool) {
	sum := typeSummary{iface: types.IsInterface(t)}
	var full, value *types.MethodSet
	if sum.iface {
		full = types.NewMethodSet(t)
	} else {
		full = types.NewMethodSet(types.NewPointer(t))
		value = types.NewMethodSet(t)
	}
	for sel := range full.Methods() {
		m, ok := sel.Obj().(*types.Func)
		if !ok || m.Signature().TypeParams().Len() > 0 {
			continue
		}
		fp, tricky := fingerprint(m.Signature())
		ms := methodSummary{id: m.Id(), fp: fp, tricky: tricky}
		if m.Pkg() != nil {
			ms.pkg = m.Pkg().Path()
		}
		if value != nil {
			ms.ptr = value.Lookup(m.Pkg(), m.Name()) == nil
		}
		ms.at, ms.known = targetOf(fset, m)
		sum.methods = append(sum.methods, ms)
		sum.mask |= idBit(ms.id)
	}
	if len(sum.methods) == 0 {
		return typeSummary{}, false
	}
	slices.SortFunc(sum.methods, func(a, b methodSummary) int { return strings.Compare(a.id, b.id) })
	return sum, true
}

func idBit(id string) uint64 {
	h := fnv.New32a()
	h.Write([]byte(id))
	return 1 << (h.Sum32() % 64)
}

// implementations compares every pair of summarised types and returns
// the implementation records: type pairs first, then method pairs, each
// in extraction order. It resolves with r, releases the summaries, and
// reads no other field of x.xt.
func (x *extractor) implementations(r resolver) []graph.Implements {
	type resolved struct {
		key     string
		sum     *typeSummary
		methods []string // keys of the declaring methods, "" outside the graph
	}
	var all []resolved
	for i := range x.xt.types {
		sum := &x.xt.types[i]
		key := r.resolve(sum.at)
		if key == "" {
			continue
		}
		res := resolved{key: key, sum: sum, methods: make([]string, len(sum.methods))}
		for j, m := range sum.methods {
			if m.known {
				res.methods[j] = r.resolve(m.at)
			}
		}
		all = append(all, res)
	}

	m := &matcher{trees: map[string]*fpNode{}}
	var typePairs, methods []graph.Implements
	methodIdx := map[[2]string]int{}
	for _, iface := range all {
		if !iface.sum.iface {
			continue
		}
		for _, c := range all {
			if c.key == iface.key || c.sum.mask&iface.sum.mask != iface.sum.mask {
				continue
			}
			pairs, ptr, ok := m.implements(c.sum, iface.sum)
			if !ok {
				continue
			}
			typePairs = append(typePairs, graph.Implements{Type: c.key, Interface: iface.key, Pointer: ptr})
			for _, p := range pairs {
				ck, ik := c.methods[p[0]], iface.methods[p[1]]
				if ck == "" || ik == "" {
					continue
				}
				if ck == ik && c.sum.pkg == iface.sum.methods[p[1]].pkg {
					continue // see selfPairs
				}
				pointer := c.sum.methods[p[0]].ptr
				if i, seen := methodIdx[[2]string{ck, ik}]; seen {
					methods[i].Pointer = methods[i].Pointer && pointer
					continue
				}
				methodIdx[[2]string{ck, ik}] = len(methods)
				methods = append(methods, graph.Implements{Type: ck, Interface: ik, Pointer: pointer})
			}
		}
	}
	x.xt.types = nil
	return append(typePairs, methods...)
}

// matcher compares method sets, caching the parsed form of the
// fingerprints that need unification.
type matcher struct {
	trees map[string]*fpNode
}

// implements reports whether the type summarised by c has every method
// of the interface summarised by i, returning the matching method pairs
// (indexes into c's and i's methods) and whether one of c's matching
// methods needs a pointer receiver.
func (m *matcher) implements(c, i *typeSummary) (pairs [][2]int, ptr, ok bool) {
	k := 0
	for j, im := range i.methods {
		for k < len(c.methods) && c.methods[k].id < im.id {
			k++
		}
		if k == len(c.methods) || c.methods[k].id != im.id {
			return nil, false, false
		}
		cm := c.methods[k]
		if !m.match(cm, im) {
			return nil, false, false
		}
		pairs = append(pairs, [2]int{k, j})
		ptr = ptr || cm.ptr
	}
	return pairs, ptr, true
}

func (m *matcher) match(a, b methodSummary) bool {
	if !a.tricky && !b.tricky {
		return a.fp == b.fp
	}
	u := unifier{bound: map[fpVar]fpTerm{}}
	return u.unify(fpTerm{0, m.tree(a.fp)}, fpTerm{1, m.tree(b.fp)})
}

func (m *matcher) tree(fp string) *fpNode {
	n, ok := m.trees[fp]
	if !ok {
		n = parseFingerprint(fp)
		m.trees[fp] = n
	}
	return n
}

// fingerprint encodes a signature (without its receiver) as a string
// that is equal for identical signatures, naming types by package path so
// that signatures from different type-checker runs compare. The encoding
// is a parenthesised prefix notation: "(func (tuple int (ptr p.T)) (tuple
// error))". Type parameters are encoded by index, "(tp 0)", and make the
// fingerprint tricky: it must be compared by unification.
func fingerprint(sig *types.Signature) (string, bool) {
	var e fpEncoder
	e.typ(sig)
	return e.b.String(), e.tricky
}

type fpEncoder struct {
	b      strings.Builder
	tricky bool
}

func (e *fpEncoder) open(head string) {
	e.b.WriteByte('(')
	e.b.WriteString(head)
}

func (e *fpEncoder) arg(t types.Type) {
	e.b.WriteByte(' ')
	e.typ(t)
}

func (e *fpEncoder) atom(s string) {
	e.b.WriteByte(' ')
	e.b.WriteString(s)
}

func (e *fpEncoder) close() { e.b.WriteByte(')') }

// form writes a whole form: head and the types args.
func (e *fpEncoder) form(head string, args ...types.Type) {
	e.open(head)
	for _, t := range args {
		e.arg(t)
	}
	e.close()
}

func (e *fpEncoder) typ(t types.Type) {
	switch t := t.(type) {
	case *types.Alias:
		e.typ(types.Unalias(t))
	case *types.Named:
		name := t.Obj().Name()
		if pkg := t.Obj().Pkg(); pkg != nil {
			name = pkg.Path() + "." + name
		}
		if t.TypeArgs().Len() == 0 {
			e.b.WriteString(name)
			return
		}
		e.open("inst")
		e.atom(name)
		for a := range t.TypeArgs().Types() {
			e.arg(a)
		}
		e.close()
	case *types.Basic:
		switch t.Kind() {
		case types.UnsafePointer:
			e.b.WriteString("unsafe.Pointer")
		default:
			e.b.WriteString(types.Typ[t.Kind()].Name()) // byte is uint8, rune is int32
		}
	case *types.Pointer:
		e.form("ptr", t.Elem())
	case *types.Slice:
		e.form("slice", t.Elem())
	case *types.Array:
		e.open("array")
		e.atom(strconv.FormatInt(t.Len(), 10))
		e.arg(t.Elem())
		e.close()
	case *types.Map:
		e.form("map", t.Key(), t.Elem())
	case *types.Chan:
		e.open("chan")
		e.atom(strconv.Itoa(int(t.Dir())))
		e.arg(t.Elem())
		e.close()
	case *types.Signature:
		head := "func"
		if t.Variadic() {
			head = "funcv"
		}
		e.form(head, t.Params(), t.Results())
	case *types.Tuple:
		e.open("tuple")
		for v := range t.Variables() {
			e.arg(v.Type())
		}
		e.close()
	case *types.Struct:
		e.open("struct")
		for i := range t.NumFields() {
			f := t.Field(i)
			e.b.WriteString(" (field")
			name := f.Name()
			if !f.Exported() && f.Pkg() != nil {
				name = f.Pkg().Path() + "." + name
			}
			e.atom(name)
			e.atom(strconv.FormatBool(f.Embedded()))
			e.atom("t" + hex.EncodeToString([]byte(t.Tag(i))))
			e.arg(f.Type())
			e.close()
		}
		e.close()
	case *types.Interface:
		if t.NumMethods() == 0 {
			e.b.WriteString("any")
			return
		}
		e.open("iface")
		for m := range t.Methods() { // sorted by id
			e.b.WriteString(" (m")
			e.atom(m.Id())
			e.arg(m.Type())
			e.close()
		}
		e.close()
	case *types.TypeParam:
		e.tricky = true
		e.open("tp")
		e.atom(strconv.Itoa(t.Index()))
		e.close()
	default:
		e.b.WriteString("?")
	}
}

// fpNode is a parsed fingerprint: an atom (no kids), a parenthesised
// form (head and kids), or a type parameter (tp ≥ 0).
type fpNode struct {
	head string
	kids []*fpNode
	tp   int
}

// parseFingerprint parses the output of fingerprint.
func parseFingerprint(s string) *fpNode {
	i := 0
	var parse func() *fpNode
	token := func() string {
		j := i
		for i < len(s) && s[i] != ' ' && s[i] != '(' && s[i] != ')' {
			i++
		}
		return s[j:i]
	}
	parse = func() *fpNode {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return &fpNode{tp: -1}
		}
		if s[i] != '(' {
			return &fpNode{head: token(), tp: -1}
		}
		i++ // (
		n := &fpNode{head: token(), tp: -1}
		for {
			for i < len(s) && s[i] == ' ' {
				i++
			}
			if i >= len(s) {
				break
			}
			if s[i] == ')' {
				i++
				break
			}
			n.kids = append(n.kids, parse())
		}
		if n.head == "tp" && len(n.kids) == 1 {
			if idx, err := strconv.Atoi(n.kids[0].head); err == nil {
				return &fpNode{tp: idx}
			}
		}
		return n
	}
	return parse()
}

// fpVar is a type parameter of one side of a comparison.
type fpVar struct{ side, index int }

// fpTerm is a fingerprint node of one side.
type fpTerm struct {
	side int
	n    *fpNode
}

// unifier binds the type parameters of two fingerprints to make them
// equal, each parameter consistently.
type unifier struct {
	bound map[fpVar]fpTerm
}

func (u *unifier) walk(t fpTerm) fpTerm {
	for t.n.tp >= 0 {
		b, ok := u.bound[fpVar{t.side, t.n.tp}]
		if !ok {
			break
		}
		t = b
	}
	return t
}

func (u *unifier) occurs(v fpVar, t fpTerm) bool {
	t = u.walk(t)
	if t.n.tp >= 0 {
		return v == fpVar{t.side, t.n.tp}
	}
	for _, k := range t.n.kids {
		if u.occurs(v, fpTerm{t.side, k}) {
			return true
		}
	}
	return false
}

func (u *unifier) bind(v fpVar, t fpTerm) bool {
	if u.occurs(v, t) {
		return false
	}
	u.bound[v] = t
	return true
}

func (u *unifier) unify(a, b fpTerm) bool {
	a, b = u.walk(a), u.walk(b)
	switch {
	case a.n.tp >= 0 && b.n.tp >= 0 && a.side == b.side && a.n.tp == b.n.tp:
		return true
	case a.n.tp >= 0:
		return u.bind(fpVar{a.side, a.n.tp}, b)
	case b.n.tp >= 0:
		return u.bind(fpVar{b.side, b.n.tp}, a)
	}
	if a.n.head != b.n.head || len(a.n.kids) != len(b.n.kids) {
		return false
	}
	for i := range a.n.kids {
		if !u.unify(fpTerm{a.side, a.n.kids[i]}, fpTerm{b.side, b.n.kids[i]}) {
			return false
		}
	}
	return true
}
