// Package effectrow reads a function's effect row from the index as the
// tools answer it: each effect with whether it is direct and certain, and
// its witness, the shortest call path from the function to the cause,
// followed record by record. explain_effects, explain_type,
// emit_effect_graph and get_context_for_symbol answer with it.
package effectrow

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/effects"
)

// WitnessStep is one step of a witness path: a call site (or, on the last
// step, the direct cause) in a function.
type WitnessStep struct {
	Function  string `json:"function" jsonschema:"qualified name of the function the step is in"`
	StableKey string `json:"stable_key" jsonschema:"its durable key"`
	Path      string `json:"path" jsonschema:"repo-relative file of the call or cause"`
	Line      int    `json:"line" jsonschema:"1-based line"`
	Column    int    `json:"column" jsonschema:"1-based column in characters"`
	Calls     string `json:"calls,omitempty" jsonschema:"the function called there, when the path goes on or ends outside the index"`
	Detail    string `json:"detail,omitempty" jsonschema:"last step: what the cause is"`
}

// Entry is one effect of a row.
type Entry struct {
	Effect      string        `json:"effect" jsonschema:"fs, net, exec, env, exit, panic, spawn, chan, sync, time, rand, stdio, global, unsafe, cgo, reflect, db or open"`
	Explanation string        `json:"explanation" jsonschema:"what the effect means"`
	Direct      bool          `json:"direct" jsonschema:"caused in the function itself"`
	Certain     bool          `json:"certain" jsonschema:"exact calls only; false: possible, via an interface or func value candidate"`
	Witness     []WitnessStep `json:"witness" jsonschema:"shortest call path from the function to the cause"`
}

// Row is one function's effect row with its witnesses spelled out,
// as explain_effects returns it and get_context_for_symbol includes it.
type Row struct {
	Analysed bool
	Pure     bool
	Open     *Entry
	Effects  []Entry
}

// maxWitness bounds a witness path; Compute's paths are shortest, so a
// longer chain means a broken snapshot, which is reported, not followed.
const maxWitness = 64

// Of reads the row of the function key through r and follows
// each record's Next to build its witness, one EffectRecords call per
// step for all effects at once.
func Of(ctx context.Context, r graph.Reader, key string) (Row, error) {
	recs, err := r.EffectRecords(ctx, []string{key})
	if err != nil {
		return Row{}, graph.Wrap(graph.CodeInternal, err, "reading effects")
	}
	var row Row
	row.Analysed = len(recs) > 0
	chains := make([][]graph.EffectRecord, 0, len(recs))
	for _, rec := range recs {
		if rec.Effect == graph.EffectPure {
			row.Pure = true
			continue
		}
		chains = append(chains, []graph.EffectRecord{rec})
	}
	for step := 0; ; step++ {
		var next []string
		for _, c := range chains {
			if last := c[len(c)-1]; last.Next != "" {
				next = append(next, last.Next)
			}
		}
		if len(next) == 0 {
			break
		}
		if step >= maxWitness {
			return Row{}, graph.Errorf(graph.CodeInternal, "witness of %s longer than %d steps", key, maxWitness)
		}
		got, err := r.EffectRecords(ctx, next)
		if err != nil {
			return Row{}, graph.Wrap(graph.CodeInternal, err, "reading effects")
		}
		type fe struct {
			fn string
			e  graph.Effect
		}
		byKey := map[fe]graph.EffectRecord{}
		for _, g := range got {
			byKey[fe{g.Function, g.Effect}] = g
		}
		for i, c := range chains {
			last := c[len(c)-1]
			if last.Next == "" {
				continue
			}
			n, ok := byKey[fe{last.Next, last.Effect}]
			if !ok {
				return Row{}, graph.Errorf(graph.CodeInternal, "witness of %s %s breaks at %s", key, last.Effect, last.Next)
			}
			chains[i] = append(c, n)
		}
	}
	var keys []string
	for _, c := range chains {
		for _, rec := range c {
			keys = append(keys, rec.Function)
		}
	}
	syms, err := r.SymbolsByKeys(ctx, graph.Dedupe(keys))
	if err != nil {
		return Row{}, graph.Wrap(graph.CodeInternal, err, "reading functions")
	}
	names := map[string]string{}
	for _, s := range syms {
		names[s.Key] = s.QualifiedName
	}
	for _, c := range chains {
		e := Entry{Effect: string(c[0].Effect), Explanation: effects.Sentence(c[0].Effect),
			Direct: c[0].Direct, Certain: c[0].Certain}
		for _, rec := range c {
			st := WitnessStep{Function: names[rec.Function], StableKey: rec.Function, Path: rec.Path, Line: rec.Line,
				Column: rec.Col, Detail: rec.Detail, Calls: rec.Callee}
			if rec.Next != "" {
				st.Calls = names[rec.Next]
			}
			e.Witness = append(e.Witness, st)
		}
		if c[0].Effect == graph.EffectOpen {
			row.Open = &e
			continue
		}
		row.Effects = append(row.Effects, e)
	}
	return row, nil
}

// AmendedCaveat says what an amended snapshot's effect rows may miss.
func AmendedCaveat(rp graph.RepositoryStatus) string {
	return fmt.Sprintf("%s was re-indexed alone after an edit: its functions' rows are recomputed, but effects reached through interfaces and function values, and the rows of functions elsewhere that call into it, may be out of date until the whole index that follows finishes (seconds)",
		blind.ListSome(rp.Snapshot.Amended, 3))
}

// ParseEffects reads a comma-separated effect list for field.
func ParseEffects(field, s string) ([]graph.Effect, error) {
	if s == "" {
		return nil, nil
	}
	var out []graph.Effect
	for _, p := range strings.Split(s, ",") {
		e := graph.Effect(strings.TrimSpace(p))
		if !effects.Valid(e) && e != graph.EffectOpen {
			names := make([]string, 0, len(graph.AllEffects)+1)
			for _, a := range graph.AllEffects {
				names = append(names, string(a))
			}
			return nil, answer.Invalid(field, "unknown effect %q; use any of %s, open", p, strings.Join(names, ", "))
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}
