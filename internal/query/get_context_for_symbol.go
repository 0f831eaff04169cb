package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/effectrow"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// Bounds of get_context_for_symbol.
const (
	defaultContextBudget = 400
	minContextBudget     = 20
	maxContextBudget     = 8000
	maxContextNames      = 8 // callers, callees or members named in one section
)

// GetContextInput is the input of get_context_for_symbol; the symbol is
// selected as get_symbol selects it.
type GetContextInput struct {
	SymbolSelector
	Budget int  `json:"budget,omitempty" jsonschema:"max tokens 20-8000 (default 400)"`
	Wait   Wait `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// GetContextOutput is the answer of get_context_for_symbol.
type GetContextOutput struct {
	Envelope
	StableKey     string   `json:"stable_key" jsonschema:"durable key of the symbol"`
	QualifiedName string   `json:"qualified_name" jsonschema:"Name, Type.Method or Type.Field"`
	Kind          string   `json:"kind" jsonschema:"symbol kind"`
	Budget        int      `json:"budget" jsonschema:"token budget applied to summary"`
	Summary       string   `json:"summary" jsonschema:"prompt-ready summary, within budget"`
	ApproxTokens  int      `json:"approx_tokens" jsonschema:"summary size in tokens (4 bytes each)"`
	Sections      []string `json:"sections" jsonschema:"sections in summary, in order"`
	Omitted       []string `json:"omitted,omitempty" jsonschema:"sections left out whole for the budget"`
}

// contextSection is one section of a summary: a name and its text, and
// for the doc comment a shorter form (its first paragraph) used, as
// section doc_summary, when the whole does not fit.
type contextSection struct {
	name, text string
	short      string
}

// contextEffects returns the effects section of a function: its effect
// row on one line ("effects: fs, net? (? possible, via candidate calls);
// open: may do more"), or "" when the index holds no row for it (not a
// function, or its package did not type-check), in which case the section
// is left out without being named in omitted. explain_effects gives the
// witnesses.
var contextEffects = func(ctx context.Context, v *session.View, sym graph.Symbol) (string, error) {
	if sym.Kind != graph.KindFunc && sym.Kind != graph.KindMethod {
		return "", nil
	}
	row, err := effectrow.Of(ctx, v.Reader(), sym.Key)
	if err != nil || !row.Analysed {
		return "", err
	}
	if row.Pure {
		return "effects: pure", nil
	}
	var b strings.Builder
	b.WriteString("effects:")
	possible := false
	for i, e := range row.Effects {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + e.Effect)
		if !e.Certain {
			b.WriteString("?")
			possible = true
		}
	}
	if len(row.Effects) == 0 {
		b.WriteString(" none known")
	}
	if possible {
		b.WriteString(" (? possible, via candidate calls)")
	}
	if row.Open != nil {
		b.WriteString("; open: reaches calls with unknown callees, may do more")
	}
	return b.String(), nil
}

// GetContextForSymbol returns a prompt-ready summary of one symbol within
// a token budget.
func GetContextForSymbol(ctx context.Context, s *Service, in GetContextInput, progress func(Progress)) (*GetContextOutput, error) {
	sel := in.selector()
	if err := sel.validate(); err != nil {
		return nil, err
	}
	budget, err := budgetIn(in.Budget, defaultContextBudget, minContextBudget, maxContextBudget)
	if err != nil {
		return nil, err
	}
	v, sym, err := openSymbol(ctx, s, sel, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	sections, err := contextSections(ctx, v, sym)
	if err != nil {
		return nil, err
	}
	out := &GetContextOutput{StableKey: sym.Key, QualifiedName: sym.QualifiedName, Kind: string(sym.Kind), Budget: budget}
	out.Summary, out.Sections, out.Omitted = fitSections(sections, budget*4)
	out.ApproxTokens = approxTokens(out.Summary)
	out.Envelope = v.Envelope()
	out.Page(1, 0, 1, "", "")
	return out, nil
}

// fitSections joins sections in order while they fit limit bytes; a
// section that does not fit is left out whole and named, and later ones
// are still tried. A doc comment too long to fit is replaced by its first
// paragraph (section doc_summary) when that fits; doc is then named
// omitted. The first section (the signature) is cut to fit when
// it alone is too long, ending in "…".
func fitSections(sections []contextSection, limit int) (summary string, names, omitted []string) {
	var b strings.Builder
	for i, sec := range sections {
		text := sec.text
		sep := 0
		if b.Len() > 0 {
			sep = 1
		}
		if b.Len()+sep+len(text) > limit {
			if i > 0 {
				omitted = append(omitted, sec.name)
				if sec.short == "" || b.Len()+sep+len(sec.short) > limit {
					continue
				}
				text = sec.short
				names = append(names, sec.name+"_summary")
				if sep > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(text)
				continue
			}
			text = cutUTF8(text, max(0, limit-len("…"))) + "…"
			if len(text) > limit {
				text = cutUTF8(text, limit)
			}
		}
		if sep > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(text)
		names = append(names, sec.name)
	}
	return b.String(), names, omitted
}

// contextSections builds every section of sym's summary in order:
// signature, effects, doc, then callers and callees for functions, or
// members and users for other symbols. Empty sections are left out.
func contextSections(ctx context.Context, v *session.View, sym graph.Symbol) ([]contextSection, error) {
	var secs []contextSection
	add := func(name, text string) {
		if text != "" {
			secs = append(secs, contextSection{name: name, text: text})
		}
	}
	add("signature", fmt.Sprintf("%s\n%s %s.%s  %s:%d-%d", sym.Signature, sym.Kind, sym.PackageName, sym.QualifiedName, sym.Path, sym.StartLine, sym.EndLine))
	if sym.Kind.IsFunction() {
		eff, err := contextEffects(ctx, v, sym)
		if err != nil {
			return nil, err
		}
		add("effects", eff)
	}
	if doc := strings.TrimSpace(sym.Doc); doc != "" {
		sec := contextSection{name: "doc", text: "doc: " + doc}
		if para, _, cut := strings.Cut(doc, "\n\n"); cut {
			sec.short = "doc (first paragraph): " + strings.TrimSpace(para)
		}
		secs = append(secs, sec)
	}
	if sym.Kind.IsFunction() {
		callers, err := edgeNames(ctx, v, sym, true)
		if err != nil {
			return nil, err
		}
		add("callers", callers)
		callees, err := edgeNames(ctx, v, sym, false)
		if err != nil {
			return nil, err
		}
		add("callees", callees)
		return secs, nil
	}
	if sym.Kind == graph.KindType || sym.Kind == graph.KindInterface {
		kids, err := v.Reader().Children(ctx, sym.Repository, sym.Key)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading members")
		}
		var fields, methods []string
		for _, k := range kids {
			if k.Kind == graph.KindField {
				fields = append(fields, k.Name)
			} else {
				methods = append(methods, k.Name)
			}
		}
		add("fields", nameList("fields", fields))
		add("methods", nameList("methods", methods))
	}
	users, err := userNames(ctx, v, sym)
	if err != nil {
		return nil, err
	}
	add("used_by", users)
	return secs, nil
}

// nameList renders "title (n): a, b, c, +k more" with at most
// maxContextNames names, or "" for none.
func nameList(title string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	shown := names
	if len(shown) > maxContextNames {
		shown = shown[:maxContextNames]
	}
	s := fmt.Sprintf("%s (%d): %s", title, len(names), strings.Join(shown, ", "))
	if len(names) > len(shown) {
		s += fmt.Sprintf(", +%d more", len(names)-len(shown))
	}
	return s
}

// edgeNames names a function's direct callers or callees, exact edges
// first, each once; a name from another package carries its package name.
func edgeNames(ctx context.Context, v *session.View, sym graph.Symbol, callers bool) (string, error) {
	q := graph.EdgeQuery{Callers: []string{sym.Key}}
	if callers {
		q = graph.EdgeQuery{Callees: []string{sym.Key}}
	}
	edges, err := v.Reader().CallEdges(ctx, q)
	if err != nil {
		return "", graph.Wrap(graph.CodeInternal, err, "reading call edges")
	}
	sort.SliceStable(edges, func(i, j int) bool {
		return edges[i].Coverage == graph.CoverageExact && edges[j].Coverage != graph.CoverageExact
	})
	var keys []string
	seen := map[string]bool{}
	external := map[string]string{}
	dynamic := 0
	for _, e := range edges {
		k := e.Caller
		if !callers {
			k = e.Callee
			if k == "" && e.CalleeName != "" {
				k = "\x00" + e.CalleeName
				external[k] = e.CalleeName
			}
		}
		if k == "" {
			dynamic++
			continue
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	byKey, err := symbolsByKey(ctx, v, keys, "call edges")
	if err != nil {
		return "", err
	}
	var names []string
	for _, k := range keys {
		if n, ok := external[k]; ok {
			names = append(names, n)
		} else if s, ok := byKey[k]; ok && !(!callers && s.TestOnly && !sym.TestOnly) {
			// (a callee in a _test.go file of a non-test function is a
			// call only a test binary makes: see callwalk, walker.testOnlyEdge)
			names = append(names, relName(sym, s))
		}
	}
	title := "callees"
	if callers {
		title = "callers"
	}
	text := nameList(title, names)
	if dynamic > 0 {
		if text == "" {
			text = title + " (0):"
		}
		text += fmt.Sprintf(" (+%d dynamic calls unresolved)", dynamic)
	}
	return text, nil
}

// relName names s as code in sym's package would: unqualified in the same
// package, pkg.Name elsewhere.
func relName(sym, s graph.Symbol) string {
	if s.PackagePath == sym.PackagePath {
		return s.QualifiedName
	}
	return s.PackageName + "." + s.QualifiedName
}

// userNames names the declarations that use a non-function symbol, by the
// enclosing declarations of its references (non-test first).
func userNames(ctx context.Context, v *session.View, sym graph.Symbol) (string, error) {
	refs, total, err := v.Reader().Refs(ctx, graph.RefQuery{Targets: []string{sym.Key}, Limit: 200})
	if err != nil {
		return "", graph.Wrap(graph.CodeInternal, err, "reading references")
	}
	if total == 0 {
		return "", nil
	}
	var keys []string
	seen := map[string]bool{}
	for _, r := range refs {
		if r.Enclosing != "" && r.Enclosing != sym.Key && !seen[r.Enclosing] {
			seen[r.Enclosing] = true
			keys = append(keys, r.Enclosing)
		}
	}
	byKey, err := symbolsByKey(ctx, v, keys, "references")
	if err != nil {
		return "", err
	}
	var names []string
	for _, k := range keys {
		if s, ok := byKey[k]; ok {
			names = append(names, relName(sym, s))
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("used by: %d references, none inside a declaration", total), nil
	}
	text := nameList("used by", names)
	head := fmt.Sprintf("used by (%d): ", len(names))
	return fmt.Sprintf("used by (%d references in %d declarations): ", total, len(names)) + strings.TrimPrefix(text, head), nil
}

// Text renders the summary, then what was left out.
func (o *GetContextOutput) Text() string {
	var b strings.Builder
	b.WriteString(o.Summary)
	b.WriteByte('\n')
	if len(o.Omitted) > 0 {
		fmt.Fprintf(&b, "(omitted for the %d-token budget: %s)\n", o.Budget, strings.Join(o.Omitted, ", "))
	}
	writeFreshness(&b, o.Envelope)
	return b.String()
}
