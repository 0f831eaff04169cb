package query

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/typeexplain"
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

// A type's protocol and its rows (see package typeexplain).
type (
	TypeMethod    = typeexplain.TypeMethod
	TypeFunc      = typeexplain.TypeFunc
	TypeInterface = typeexplain.TypeInterface
	TypeSite      = typeexplain.TypeSite
	TypeChannel   = typeexplain.TypeChannel
	TypeGoroutine = typeexplain.TypeGoroutine
	TypeProtocol  = typeexplain.TypeProtocol
)

// ExplainTypeOutput is the answer of explain_type.
type ExplainTypeOutput struct {
	Envelope
	Section string           `json:"section,omitempty" jsonschema:"the one section asked for"`
	Results *TypeProtocol    `json:"results" jsonschema:"the type's protocol"`
	Omitted []SectionOmitted `json:"omitted,omitempty" jsonschema:"sections the budget cut"`

	root string
}

// typeSections are explain_type's sections, in the order they are filled.
var typeSections = typeexplain.Sections

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
	tp, err := typeexplain.Protocol(ctx, v, p, repo, sym)
	if err != nil {
		return nil, err
	}
	out := &ExplainTypeOutput{Envelope: v.Envelope(), Section: in.Section, root: repo.Root}
	vk := v.Key([]string{repo.Name})
	offsets := make([]int, len(typeSections))
	caps := make([]int, len(typeSections))
	for i := range typeSections {
		caps[i] = tp.Rows(i)
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
		o.Results = tp.Cut(offsets, shown)
		for i, name := range typeSections {
			if section >= 0 && i != section {
				continue
			}
			if n := tp.Rows(i); offsets[i]+shown[i] < n {
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
		case tp.Kind == typeexplain.KindInvalid:
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
