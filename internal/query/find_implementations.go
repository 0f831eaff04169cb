package query

import (
	"cmp"
	"context"
	"fmt"
	"go/token"
	"math"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/scipindex"
	"github.com/sextant-dev/sextant/internal/session"
)

// FindImplementationsInput is the input of find_implementations. The type
// or method is selected as get_symbol selects a symbol.
type FindImplementationsInput struct {
	SymbolSelector
	IncludeTests *bool  `json:"include_tests,omitempty" jsonschema:"types of test files (default true)"`
	Limit        int    `json:"limit,omitempty" jsonschema:"page size 1-500 (default 50)"`
	Cursor       string `json:"cursor,omitempty" jsonschema:"next_cursor of the last page"`
	Budget       int    `json:"budget,omitempty" jsonschema:"max tokens of text, 150+"`
	Wait         Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// ImplRow is one implementation, or one interface implemented.
type ImplRow struct {
	SymbolRef
	Pointer bool   `json:"pointer,omitempty" jsonschema:"only the pointer type *T has the methods"`
	Value   string `json:"value,omitempty" jsonschema:"kind value: a literal, a literal's member, a function, a renamed import or an overload body, in the declaration named"`
	Col     int    `json:"col,omitempty" jsonschema:"the value's column"`
}

// FindImplementationsOutput is the answer of find_implementations.
type FindImplementationsOutput struct {
	Envelope
	Completeness string     `json:"completeness" jsonschema:"complete, or lower_bound when blind_spots may hide results"`
	BlindSpots   []string   `json:"blind_spots,omitempty" jsonschema:"why more results may exist, each as kind: detail"`
	Symbol       *SymbolRef `json:"symbol,omitempty" jsonschema:"the type or method asked about"`
	Direction    string     `json:"direction" jsonschema:"implementations, or interfaces (a Go type or method satisfies)"`
	Results      []ImplRow  `json:"results" jsonschema:"by file and line"`

	offset    int
	budgetCut bool
}

// FindImplementations lists the concrete types (or methods) that satisfy an
// interface (or interface method), or the interfaces (or interface
// methods) a concrete Go type (or method) satisfies. Of a class or method
// of TypeScript, JavaScript or Python it lists, as those languages'
// servers do, the classes extending it (the methods overriding it), and
// of a TypeScript or JavaScript type the values written as it.
func FindImplementations(ctx context.Context, s *Service, in FindImplementationsInput, progress func(Progress)) (*FindImplementationsOutput, error) {
	sel := in.selector()
	if err := sel.validate(); err != nil {
		return nil, err
	}
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if err := checkBudget(in.Budget); err != nil {
		return nil, err
	}
	v, sym, err := openTyped(ctx, s, sel, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	includeTests := in.IncludeTests == nil || *in.IncludeTests
	var rows []ImplRow
	direction := "interfaces"
	switch sym.Kind {
	case graph.KindInterface:
		direction = "implementations"
		rows, err = typeImpls(ctx, v, sym, true)
	case graph.KindType:
		// A class of a language with inheritance may be extended, and
		// what extends it is what its language's server lists; Go's
		// types are only ever satisfied.
		if !sym.IsGo() {
			direction = "implementations"
		}
		rows, err = typeImpls(ctx, v, sym, !sym.IsGo())
	case graph.KindInterfaceMethod:
		direction = "implementations"
		rows, err = methodImpls(ctx, v, sym, true)
	case graph.KindMethod:
		if !sym.IsGo() {
			direction = "implementations" // the methods overriding it
		}
		rows, err = methodImpls(ctx, v, sym, !sym.IsGo())
	case graph.KindFunc, graph.KindVar, graph.KindConst, graph.KindField:
		if !sym.IsGo() && sym.Language != graph.LanguagePython {
			direction = "implementations" // its renamed imports and re-exports, its overloads' body, a property's literal members
			break
		}
		fallthrough
	default:
		field := "qualified_name"
		switch {
		case sel.StableKey != "":
			field = "stable_key"
		case sel.File != "":
			field = "name"
		}
		return nil, invalid(field, "%s is %s %s; find_implementations takes a type, an interface or a method (use find_references for its uses)",
			sym.QualifiedName, article(string(sym.Kind)), sym.Kind).WithData("kind", string(sym.Kind))
	}
	unread := 0
	if err == nil && direction == "implementations" {
		rows, unread, err = withValues(ctx, v, sym, rows)
	}
	if err != nil {
		return nil, err
	}
	if !includeTests {
		kept := rows[:0]
		for _, r := range rows {
			if !graph.TestFile(r.Path) {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	slices.SortFunc(rows, func(a, b ImplRow) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), strings.Compare(a.QualifiedName, b.QualifiedName))
	})
	fp := fingerprint("find_implementations", sym.Key, includeTests)
	vk := v.Key([]string{sym.Repository})
	offset, err := decodeCursor(in.Cursor, fp, vk)
	if err != nil {
		return nil, err
	}
	c, err := typeErrorSpots(ctx, v, sym.Repository, "method sets")
	if err != nil {
		return nil, err
	}
	if unread > 0 {
		c.Add(blind.Unread, "%d files of its uses not read for the values written as it", unread)
	}
	ref := symbolRef(sym)
	total := len(rows)
	offset = min(offset, total)
	out := &FindImplementationsOutput{Symbol: &ref, Direction: direction, offset: offset}
	out.Completeness, out.BlindSpots = c.Verdict()
	page := rows[offset:min(total, offset+limit)]
	env := v.Envelope()
	set := func(n int) {
		out.Envelope = env
		out.Results = append([]ImplRow{}, page[:n]...)
		out.Truncated, out.NextCursor = false, nil
		out.Page(total, offset, n, fp, vk)
		out.budgetCut = n < len(page)
	}
	fit := len(page)
	if in.Budget > 0 {
		fit = fitBudget(len(page), in.Budget, func(n int) string { set(n); return out.Text() })
	}
	set(fit)
	return out, nil
}

// withValues adds to rows what implements sym beside the symbols
// related to it, of TypeScript or JavaScript (see
// scipindex.SyntaxImplementations), each of kind value.
func withValues(ctx context.Context, v *session.View, sym graph.Symbol, rows []ImplRow) ([]ImplRow, int, error) {
	var implemented []string
	for _, r := range rows {
		implemented = append(implemented, r.StableKey)
	}
	vals, unread, err := scipindex.SyntaxImplementations(ctx, v.Reader(), sym, implemented, func(repo, path string) ([]byte, bool) {
		text, ok := v.Source(repo).Span(path, 1, math.MaxInt)
		return []byte(text), ok
	})
	for _, x := range vals {
		rows = append(rows, ImplRow{SymbolRef: SymbolRef{StableKey: x.Enclosing, QualifiedName: x.EnclosingName, Kind: "value",
			Path: x.Path, Line: x.Line}, Value: x.What + ", " + x.How, Col: x.Col})
	}
	return rows, unread, err
}

// typeImpls lists the types that satisfy an interface, or the interfaces
// a type satisfies.
func typeImpls(ctx context.Context, v *session.View, sym graph.Symbol, byInterface bool) ([]ImplRow, error) {
	impls, err := implementations(ctx, v.Reader(), sym, sym.Key, byInterface)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading implementations")
	}
	keys := make([]string, 0, len(impls))
	pointer := map[string]bool{}
	for _, im := range impls {
		k := im.Interface
		if byInterface {
			k = im.Type
		}
		if k == sym.Key {
			continue
		}
		keys = append(keys, k)
		pointer[k] = im.Pointer
	}
	if len(keys) == 0 {
		return nil, nil
	}
	syms, err := v.Reader().SymbolsByKeys(ctx, dedupe(keys))
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading types")
	}
	rows := make([]ImplRow, 0, len(syms))
	for _, s := range syms {
		rows = append(rows, ImplRow{SymbolRef: symbolRef(s), Pointer: pointer[s.Key] && s.Kind != graph.KindInterface})
	}
	return rows, nil
}

// maxDescendants bounds the classes (or methods) a class (or method)
// outside Go is found to be extended (overridden) by.
const maxDescendants = 10000

// implementations reads the implementation pairs of key, of sym or its
// receiver: by the interface (byInterface) or by the type. Outside Go, by
// the interface means every class or method extending or overriding it
// however indirectly: scip-python records a class's direct bases alone,
// where scip-typescript records them all, and Go's indexer every
// interface a type satisfies.
func implementations(ctx context.Context, r graph.Reader, sym graph.Symbol, key string, byInterface bool) ([]graph.Implements, error) {
	if !byInterface || sym.IsGo() {
		return r.Implementations(ctx, key, byInterface)
	}
	seen := map[string]bool{key: true}
	var out []graph.Implements
	for queue := []string{key}; len(queue) > 0 && len(seen) < maxDescendants; queue = queue[1:] {
		impls, err := r.Implementations(ctx, queue[0], true)
		if err != nil {
			return nil, err
		}
		for _, im := range impls {
			if !seen[im.Type] {
				seen[im.Type] = true
				out = append(out, graph.Implements{Type: im.Type, Interface: key, Pointer: im.Pointer})
				queue = append(queue, im.Type)
			}
		}
	}
	return out, nil
}

// methodImpls lists, for an interface method, the methods the types that
// satisfy the interface have for it (recorded per method pair, promoted
// methods under the type that declares them); for a concrete method, the
// methods of the interfaces its own type satisfies (as gopls, which asks
// about the method set of the method's receiver type).
func methodImpls(ctx context.Context, v *session.View, sym graph.Symbol, byInterface bool) ([]ImplRow, error) {
	if sym.Parent == "" {
		return nil, nil
	}
	implsKey := sym.Parent
	if byInterface {
		implsKey = sym.Key
	}
	impls, err := implementations(ctx, v.Reader(), sym, implsKey, byInterface)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading implementations")
	}
	sameID := func(m graph.Symbol) bool {
		return m.Name == sym.Name && (token.IsExported(sym.Name) || m.PackagePath == sym.PackagePath)
	}
	var rows []ImplRow
	if !byInterface {
		for _, im := range impls {
			kids, err := v.Reader().Children(ctx, sym.Repository, im.Interface)
			if err != nil {
				return nil, graph.Wrap(graph.CodeInternal, err, "reading interface methods")
			}
			for _, k := range kids {
				if k.Kind == graph.KindInterfaceMethod && sameID(k) {
					rows = append(rows, ImplRow{SymbolRef: symbolRef(k)})
				}
			}
		}
		return rows, nil
	}
	pointer := map[string]bool{}
	var keys []string
	for _, im := range impls {
		if im.Type != sym.Key { // gopls lists an embedded interface's method as its own; we do not
			keys = append(keys, im.Type)
			pointer[im.Type] = im.Pointer
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	syms, err := v.Reader().SymbolsByKeys(ctx, dedupe(keys))
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading methods")
	}
	for _, m := range syms {
		rows = append(rows, ImplRow{SymbolRef: symbolRef(m), Pointer: pointer[m.Key] && m.Kind == graph.KindMethod})
	}
	return rows, nil
}

// Text renders the answer one row per line, grouped by file.
func (o *FindImplementationsOutput) Text() string {
	var b strings.Builder
	if o.Symbol != nil {
		what := "implementations of"
		if o.Direction == "interfaces" {
			what = "interfaces satisfied by"
		}
		fmt.Fprintf(&b, "%s %s %s: %d\n", what, o.Symbol.Kind, o.Symbol.QualifiedName, o.Total)
	}
	file := "\x00"
	for _, r := range o.Results {
		if r.Path != file {
			file = r.Path
			fmt.Fprintf(&b, "%s\n", file)
		}
		if r.Value != "" {
			fmt.Fprintf(&b, "  %d:%d value: %s (in %s)\n", r.Line, r.Col, r.Value, cmp.Or(r.QualifiedName, "the file"))
			continue
		}
		fmt.Fprintf(&b, "  %d %s %s", r.Line, r.Kind, r.QualifiedName)
		if r.Pointer {
			if r.Kind == string(graph.KindMethod) {
				b.WriteString(" (pointer receiver)")
			} else {
				fmt.Fprintf(&b, " (only *%s satisfies it)", r.QualifiedName)
			}
		}
		b.WriteString("\n")
	}
	if o.Total == 0 {
		if o.Direction == "interfaces" {
			b.WriteString("It satisfies no interface declared in the indexed repositories.\n")
		} else {
			b.WriteString("Nothing in the indexed repositories implements it.\n")
		}
	}
	blind.Write(&b, o.Completeness, o.BlindSpots)
	writeMore(&b, o.Envelope, o.offset, o.budgetCut, "results")
	writeFreshness(&b, o.Envelope)
	return b.String()
}
