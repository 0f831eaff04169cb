package callgraph

import (
	"fmt"
	"go/types"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"
)

// methodSets keeps a unit's method-set work bounded by its source. The
// types its source declares or spells (struct literals) are weighed as
// the syntax is read (MethodSetCosts). When one of them is past
// MaxMethodSetCost, or together they are past the unit's budget
// (MaxMethodSetCost plus one unit per byte of source), the unit is
// capped:
//
//   - dynamic calls are resolved with CHA, not VTA: VTA makes every
//     method of every type that reaches an interface call, and
//     ssautil.AllFunctions every method of every exported type, each a
//     wrapper as long as the type's embedding chain;
//   - the runtime types (Program.RuntimeTypes, whose computation alone
//     builds the method set of every type reachable from a conversion)
//     are found here instead, from the conversions of the unit's
//     functions, and only the types within the cap and the budget are
//     given methods: a call through an interface does not list the
//     promoted methods of the others.
//
// Real code is far from the cap (see MaxMethodSetCost), so its units
// take the usual path unchanged.
type methodSets struct {
	costs     MethodSetCosts
	source    int64    // bytes of the unit's source
	total     int64    // summed cost of the types the source declares or spells
	oversized []string // names of those past MaxMethodSetCost ("" for a struct literal)

	mu   sync.Mutex
	conv []types.Type // capped: the operand types of the unit's conversions to interfaces

	runtime []types.Type // capped: the runtime types given methods, once found
	skipped int          // capped: runtime types left without methods
}

// weigh adds the cost of a type the unit's source declares (named name)
// or spells.
func (m *methodSets) weigh(t types.Type, name string) {
	c := m.costs.Cost(t)
	m.total = satAdd(m.total, c)
	if c > MaxMethodSetCost {
		m.oversized = append(m.oversized, name)
	}
}

func (m *methodSets) budget() int64 { return satAdd(MaxMethodSetCost, m.source) }

// capped reports whether the unit's method sets are bounded (see
// methodSets).
func (m *methodSets) capped() bool {
	return len(m.oversized) > 0 || m.total > m.budget()
}

// note is the diagnostic of a capped unit, "" for another.
func (m *methodSets) note() string {
	if !m.capped() {
		return ""
	}
	var names []string
	for _, n := range m.oversized {
		if n != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	what := fmt.Sprintf("%d types", len(m.oversized))
	if len(names) > 0 {
		if len(names) > 5 {
			names = append(names[:5], "…")
		}
		what += " (" + strings.Join(names, ", ") + ")"
	}
	return fmt.Sprintf("method sets too large: %s past the cap of %d selection steps per type (%d in all, budget %d): "+
		"dynamic calls resolved with CHA, and the promoted methods of such types are not call candidates",
		what, MaxMethodSetCost, m.total, m.budget())
}

// noteConversions records, for a capped unit, the types package p's
// functions convert to interfaces, before a CHA build drops their
// bodies. It runs on the build's workers, once p is built.
func (m *methodSets) noteConversions(p *ssa.Package) {
	if !m.capped() {
		return
	}
	var found []types.Type
	seen := map[*ssa.Function]bool{}
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		if fn == nil || seen[fn] || fn.TypeParams().Len() > 0 {
			return
		}
		seen[fn] = true
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if mi, ok := instr.(*ssa.MakeInterface); ok {
					found = append(found, mi.X.Type())
				}
			}
		}
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
	}
	declaredFuncs(p, false, visit)
	m.mu.Lock()
	m.conv = append(m.conv, found...)
	m.mu.Unlock()
}

// runtimeTypes is prog.RuntimeTypes for a unit that is not capped; for
// a capped one, the types reachable from its conversions as
// RuntimeTypes finds them, but only those whose method sets are within
// the cap and the budget, which are computed as they are visited.
func (m *methodSets) runtimeTypes(prog *ssa.Program) []types.Type {
	if !m.capped() {
		return prog.RuntimeTypes()
	}
	if m.runtime != nil {
		return m.runtime
	}
	m.runtime = []types.Type{}
	left := m.budget()
	var seen typeutil.Map
	// methodSet is the method set of t, or nil when it is past the cap
	// or the budget left.
	methodSet := func(t types.Type) *types.MethodSet {
		c := m.costs.Cost(t)
		if c > MaxMethodSetCost || c > left {
			return nil
		}
		left -= c
		return prog.MethodSets.MethodSet(t)
	}
	var visit func(t types.Type, access bool)
	visit = func(t types.Type, access bool) {
		if seen.At(t) != nil {
			return
		}
		seen.Set(t, true)
		mset := methodSet(t)
		if access {
			if mset != nil {
				m.runtime = append(m.runtime, t)
			} else {
				m.skipped++
			}
		}
		if mset != nil {
			for sel := range mset.Methods() {
				sig := sel.Type().(*types.Signature)
				if sig.TypeParams() == nil {
					visit(sig.Params(), false)
					visit(sig.Results(), false)
				}
			}
		}
		switch t := t.(type) {
		case *types.Alias:
			visit(types.Unalias(t), access)
		case *types.Pointer:
			visit(t.Elem(), true)
		case *types.Slice:
			visit(t.Elem(), true)
		case *types.Chan:
			visit(t.Elem(), true)
		case *types.Array:
			visit(t.Elem(), true)
		case *types.Map:
			visit(t.Key(), true)
			visit(t.Elem(), true)
		case *types.Signature:
			visit(t.Params(), false)
			visit(t.Results(), false)
		case *types.Named:
			visit(types.NewPointer(t), true)
			visit(t.Underlying(), false)
		case *types.Struct:
			for f := range t.Fields() {
				visit(f.Type(), true)
			}
		case *types.Tuple:
			for v := range t.Variables() {
				visit(v.Type(), true)
			}
		}
	}
	// The conversions come from the workers in any order: sort them, so
	// the budget goes to the same types from run to run.
	conv := slices.Clone(m.conv)
	slices.SortStableFunc(conv, func(a, b types.Type) int {
		return strings.Compare(types.TypeString(a, nil), types.TypeString(b, nil))
	})
	for _, t := range conv {
		visit(t, true)
	}
	return m.runtime
}
