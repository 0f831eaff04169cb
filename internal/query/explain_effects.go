package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/effectrow"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/effects"
)

// A function's effect row and its parts, as explain_effects answers them
// (see package effectrow).
type (
	EffectRow   = effectrow.Row
	EffectEntry = effectrow.Entry
	WitnessStep = effectrow.WitnessStep
)

// EffectsInput is the input of explain_effects: a function selected as
// get_symbol selects a symbol.
type EffectsInput struct {
	SymbolSelector
	Wait Wait `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// EffectsOutput is the answer of explain_effects.
type EffectsOutput struct {
	Envelope
	Symbol   *SymbolRef    `json:"symbol,omitempty" jsonschema:"the function"`
	Analysed bool          `json:"analysed" jsonschema:"false when the index has no row (its package did not type-check)"`
	Pure     bool          `json:"pure" jsonschema:"analysed, no effect, no unknown call"`
	Open     *EffectEntry  `json:"open,omitempty" jsonschema:"set when it reaches a call with unknown callee: it may do more than listed"`
	Results  []EffectEntry `json:"results" jsonschema:"the effects, in taxonomy order"`
	Caveat   string        `json:"caveat,omitempty" jsonschema:"set when the row may be out of date: the repository was re-indexed in part after an edit"`
}

// ExplainEffects answers explain_effects.
func ExplainEffects(ctx context.Context, s *Service, in EffectsInput, progress func(Progress)) (*EffectsOutput, error) {
	v, sym, err := openSymbol(ctx, s, in.selector(), progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	if err := goOnly(sym, "explain_effects"); err != nil {
		return nil, err
	}
	if !sym.Kind.IsFunction() || sym.Kind == graph.KindInterfaceMethod {
		return nil, graph.Errorf(graph.CodeNotAFunction, "%s is %s %s, not a function or method with a body: explain_effects describes what calling one does; use find_symbol --kind func to find one",
			sym.QualifiedName, article(string(sym.Kind)), sym.Kind).WithData("kind", string(sym.Kind))
	}
	v.Use(sym.Repository)
	row, err := effectrow.Of(ctx, v.Reader(), sym.Key)
	if err != nil {
		return nil, err
	}
	ref := symbolRef(sym)
	out := &EffectsOutput{Symbol: &ref, Analysed: row.Analysed, Pure: row.Pure, Open: row.Open, Results: row.Effects}
	if rp, err := v.Repo(sym.Repository); err == nil && len(rp.Snapshot.Amended) > 0 {
		out.Caveat = effectrow.AmendedCaveat(rp)
	}
	if out.Results == nil {
		out.Results = []EffectEntry{}
	}
	out.Envelope = v.Envelope()
	out.Page(len(out.Results), 0, len(out.Results), "", "")
	return out, nil
}

// Text renders the row: a headline, then each effect with its witness.
func (o *EffectsOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) %s:%d\n", o.Symbol.QualifiedName, o.Symbol.Kind, o.Symbol.Path, o.Symbol.Line)
	switch {
	case !o.Analysed:
		b.WriteString("not analysed: no effect row in the index (its package did not type-check, or it has no body)\n")
	case o.Pure:
		b.WriteString("pure: " + effects.Sentence(graph.EffectPure) + "\n")
	}
	for _, e := range o.Results {
		writeEffect(&b, e)
	}
	if o.Open != nil {
		writeEffect(&b, *o.Open)
	}
	if o.Caveat != "" {
		b.WriteString("caveat: " + o.Caveat + "\n")
	}
	writeFreshness(&b, o.Envelope)
	return b.String()
}

func writeEffect(b *strings.Builder, e EffectEntry) {
	how := "transitive"
	if e.Direct {
		how = "direct"
	}
	cert := "possible"
	if e.Certain {
		cert = "certain"
	}
	fmt.Fprintf(b, "%s (%s, %s): %s\n", e.Effect, how, cert, e.Explanation)
	for i, st := range e.Witness {
		fmt.Fprintf(b, "  %s %s:%d:%d", st.Function, st.Path, st.Line, st.Column)
		if st.Calls != "" {
			fmt.Fprintf(b, " → %s", st.Calls)
		}
		if i == len(e.Witness)-1 && st.Detail != "" {
			fmt.Fprintf(b, " (%s)", st.Detail)
		}
		b.WriteByte('\n')
	}
}
