package callgraph

import (
	"go/types"
	"math"
)

// MaxMethodSetCost is the largest method-set cost (see MethodSetCosts)
// of one type for which the indexer computes the type's method set, its
// implementations and the wrappers of its promoted methods. A type past
// it is left out of that work, with a diagnostic naming it.
//
// A chain of embedded structs multiplies the methods at its bottom by
// its depth: `type E0 struct{ *Big }`, `type E1 struct{ E0 }`, … each
// promote every method of Big, through one more field, so the method
// sets of the chain cost methods × depth² to compute and their wrappers
// as many SSA instructions, from a file of methods + depth lines (1,000
// methods × 100 levels: 24 KB of source, 5 million selection steps,
// 3 GB). The largest cost of any package-level type in the Go standard
// library, golang.org/x/tools (v0.52.0, with its dependencies) and this
// repository is 215 (go/types.Checker); the cap leaves that a margin of
// more than 200 and bounds the work of every type by a constant, and a
// package's budget (the cap plus one unit per byte of its source) bounds
// the sum: the standard library's 30,000 types cost 140,000 in all.
const MaxMethodSetCost = 50_000

// MethodSetCosts estimates, without computing any method set, what
// computing a type's method set costs: the number of methods it may
// have plus, for each method promoted through embedded fields, the
// length of its path of fields (go/types allocates that path for every
// selection, and go/ssa's wrapper for a promoted method takes one field
// per step). Embedded fields are counted as if no method shadowed
// another, so the estimate is an upper bound; it saturates rather than
// overflowing (a diamond of embeddings doubles it at each level).
//
// The zero value is ready to use; it is not safe for concurrent use.
type MethodSetCosts struct {
	memo map[types.Type]promoted
}

// promoted is the method count (n) and the summed field-path length of
// the promoted methods (w) of a type; busy marks a type on the stack of
// the walk (an embedding cycle, which method sets cut too).
type promoted struct {
	n, w int64
	busy bool
}

// Cost returns the estimated cost of the method set of t and of *t.
func (c *MethodSetCosts) Cost(t types.Type) int64 {
	p := c.of(t)
	return satAdd(p.n, p.w)
}

func (c *MethodSetCosts) of(t types.Type) promoted {
	t = types.Unalias(t)
	if ptr, ok := t.(*types.Pointer); ok {
		t = types.Unalias(ptr.Elem())
	}
	switch tt := t.(type) {
	case *types.Named, *types.Struct:
	case *types.Interface:
		return promoted{n: int64(tt.NumMethods())}
	default:
		return promoted{}
	}
	if c.memo == nil {
		c.memo = map[types.Type]promoted{}
	}
	if p, ok := c.memo[t]; ok {
		return p // busy: a cycle adds nothing more
	}
	c.memo[t] = promoted{busy: true}
	var p promoted
	if named, ok := t.(*types.Named); ok {
		p.n = int64(named.NumMethods())
		if iface, ok := named.Underlying().(*types.Interface); ok {
			p.n = int64(iface.NumMethods())
		}
	}
	if st, ok := t.Underlying().(*types.Struct); ok {
		for i := range st.NumFields() {
			f := st.Field(i)
			if !f.Embedded() {
				continue
			}
			e := c.of(f.Type())
			p.n = satAdd(p.n, e.n)
			p.w = satAdd(p.w, satAdd(e.n, e.w))
		}
	}
	c.memo[t] = p
	return p
}

// Oversized reports whether the method set of t costs more than
// MaxMethodSetCost.
func (c *MethodSetCosts) Oversized(t types.Type) bool {
	return c.Cost(t) > MaxMethodSetCost
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
