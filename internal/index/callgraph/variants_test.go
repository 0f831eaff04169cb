package callgraph

import (
	"context"
	"fmt"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestCHAAcrossTestVariants checks that CHA, which builds the test
// variant "p [p.test]" in place of "p", still finds p's methods for an
// interface call made in another package against "p": the method's
// signature names p's types, which are other objects in the two variants;
// the interface may name no parameters where the method does, and the
// method may be promoted from an embedded struct (go/ssa's Instruction,
// whose non-Value implementations were missed this way).
func TestCHAAcrossTestVariants(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, "testdata/variants.txtar.in")
	want := map[[2]string]bool{
		{"q.Walk", "p.walker.Visit"}: false,
		{"q.Ops", "p.Jump.Operands"}: false,
		{"q.Ops", "p.anInstr.Block"}: false,
	}
	for _, pkgs := range loadUnits(t, dir) {
		res, err := Build(context.Background(), pkgs, Options{InRepo: under(dir), MaxVTACalls: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Edges {
			for k := range want {
				if strings.HasSuffix(e.Caller.Name, k[0]) && strings.HasSuffix(e.Callee.Name, k[1]) {
					want[k] = true
				}
			}
			t.Logf("%s -> %s %s %s at %s", e.Caller.Name, e.Callee.Name, e.Coverage, e.Via, filepath.Base(e.Site.Filename))
		}
	}
	for k, found := range want {
		if !found {
			t.Errorf("CHA: no edge %s -> %s", k[0], k[1])
		}
	}
}

// TestPathString checks that pathString tells types apart as go/types
// does, by package path where go/types would compare objects, and
// ignores the names of parameters and results at every depth.
func TestPathString(t *testing.T) {
	p := types.NewPackage("example.com/p", "p")
	q := types.NewPackage("example.com/q", "p") // same name, other path
	node := types.NewNamed(types.NewTypeName(0, p, "Node", nil), types.NewStruct(nil, nil), nil)
	other := types.NewNamed(types.NewTypeName(0, q, "Node", nil), types.NewStruct(nil, nil), nil)
	ptr := types.NewPointer
	tuple := func(names []string, ts ...types.Type) *types.Tuple {
		var vs []*types.Var
		for i, t := range ts {
			name := ""
			if i < len(names) {
				name = names[i]
			}
			vs = append(vs, types.NewParam(0, p, name, t))
		}
		return types.NewTuple(vs...)
	}
	sig := func(params, results *types.Tuple, variadic bool) *types.Signature {
		return types.NewSignatureType(nil, nil, nil, params, results, variadic)
	}
	pred := sig(tuple(nil, ptr(node)), tuple(nil, types.Typ[types.Bool]), false)
	namedPred := sig(tuple([]string{"n"}, ptr(node)), tuple([]string{"ok"}, types.Typ[types.Bool]), false)
	for _, c := range []struct {
		name string
		a, b types.Type
		same bool
	}{
		{"parameter names", sig(tuple(nil, ptr(node)), nil, false), sig(tuple([]string{"block"}, ptr(node)), nil, false), true},
		{"result names", sig(nil, tuple(nil, types.NewSlice(ptr(node))), false), sig(nil, tuple([]string{"out"}, types.NewSlice(ptr(node))), false), true},
		{"nested function names", sig(tuple(nil, pred), nil, false), sig(tuple([]string{"f"}, namedPred), nil, false), true},
		{"package path", sig(tuple(nil, ptr(node)), nil, false), sig(tuple(nil, ptr(other)), nil, false), false},
		{"variadic", sig(tuple(nil, types.NewSlice(ptr(node))), nil, true), sig(tuple(nil, types.NewSlice(ptr(node))), nil, false), false},
		{"pointer", sig(tuple(nil, ptr(node)), nil, false), sig(tuple(nil, node), nil, false), false},
		{"channel direction", types.NewChan(types.SendOnly, node), types.NewChan(types.RecvOnly, node), false},
	} {
		if got := pathString(c.a) == pathString(c.b); got != c.same {
			t.Errorf("%s: %q and %q: same = %v, want %v", c.name, pathString(c.a), pathString(c.b), got, c.same)
		}
	}
}

// TestLinkname checks that a call of a function declared without a body
// under a //go:linkname directive is an edge to the function it is bound
// to as well as to the stand-in, with either algorithm; a directive
// naming a function the program lacks adds nothing.
func TestLinkname(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, "testdata/linkname.txtar.in")
	for _, maxVTA := range []int{0, -1} {
		var got []string
		for _, pkgs := range loadUnits(t, dir) {
			res, err := Build(context.Background(), pkgs, Options{InRepo: under(dir), MaxVTACalls: maxVTA})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range res.Edges {
				if strings.HasSuffix(e.Caller.Name, "q.Use") {
					got = append(got, fmt.Sprintf("%s %s %s %v", strings.TrimPrefix(e.Callee.Name, "example.com/linkname/"), e.Coverage, e.Via, e.Callee.Pos.IsValid()))
				}
			}
		}
		slices.Sort(got)
		want := []string{"p.hidden exact static true", "q.hidden exact static true", "q.missing exact static true"}
		if !slices.Equal(got, want) {
			t.Errorf("MaxVTACalls %d: edges of q.Use:\n%s\nwant\n%s", maxVTA, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
