package callgraph

import (
	"context"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestLazyMethods checks CHA's lazy index of the runtime types' methods
// against go/ssa itself: hasMethodValue must say whether
// prog.MethodValue makes a function, on the runtime types and on every
// receiver type of the fixtures (generic ones, whose methods have none,
// included); viaIface must be the methods of the selections that have
// one; and methodsOf must give, for every Id, the functions MethodValue
// makes for those selections.
func TestLazyMethods(t *testing.T) {
	hermetic(t)
	var made, none int // over all fixtures
	for _, archive := range []string{"calls.txtar", "wrappers.txtar"} {
		t.Run(archive, func(t *testing.T) {
			dir := txtartest.Write(t, filepath.Join("testdata", archive))
			for _, pkgs := range loadUnits(t, dir) {
				u := prepare(pkgs, Options{InRepo: under(dir), MaxVTACalls: -1})
				var build []*ssa.Package
				for _, p := range u.variants {
					if u.chosen[p] {
						build = append(build, p)
					}
				}
				if err := u.buildSSA(context.Background(), build); err != nil {
					t.Fatal(err)
				}
				_, all := u.functions(false)
				r := newCHA(u.prog, all, nil, func(*ssa.Package) bool { return true }, u.prog.RuntimeTypes)
				rtypes := u.prog.RuntimeTypes()
				r.ensureMethods() // before any MethodValue: the same runtime types

				// Receiver types: the runtime types, and those of every
				// method in the program's functions, value and pointer.
				var recvs []types.Type
				for _, t := range rtypes {
					if !types.IsInterface(t) {
						recvs = append(recvs, t)
					}
				}
				for fn := range all {
					if recv := fn.Signature.Recv(); recv != nil && !types.IsInterface(recv.Type()) {
						rt := recv.Type()
						if p, ok := rt.(*types.Pointer); ok {
							rt = p.Elem()
						}
						recvs = append(recvs, rt, types.NewPointer(rt))
					}
				}
				free := map[types.Type]bool{}
				for _, rt := range recvs {
					mset := u.prog.MethodSets.MethodSet(rt)
					for i := 0; i < mset.Len(); i++ {
						sel := mset.At(i)
						fn := u.prog.MethodValue(sel)
						if got := hasMethodValue(sel, free); got != (fn != nil) {
							t.Errorf("hasMethodValue(%s) = %v; MethodValue gives %v", sel, got, fn)
						}
						if fn != nil {
							made++
						} else {
							none++
						}
					}
				}
				wantVia := map[token.Pos]bool{}
				wantMethods := map[string][]*ssa.Function{}
				for _, t := range rtypes {
					if types.IsInterface(t) {
						continue
					}
					mset := u.prog.MethodSets.MethodSet(t)
					for i := 0; i < mset.Len(); i++ {
						sel := mset.At(i)
						if fn := u.prog.MethodValue(sel); fn != nil {
							wantVia[sel.Obj().Pos()] = true
							wantMethods[sel.Obj().Id()] = append(wantMethods[sel.Obj().Id()], fn)
						}
					}
				}
				if len(wantMethods) == 0 {
					t.Fatal("no methods of runtime types in the fixture")
				}
				for pos := range wantVia {
					if !r.viaIface[pos] {
						t.Errorf("viaIface lacks %s", u.fset.Position(pos))
					}
				}
				for pos := range r.viaIface {
					if !wantVia[pos] {
						t.Errorf("viaIface has %s, which no method value has", u.fset.Position(pos))
					}
				}
				for id, want := range wantMethods {
					// The runtime types come in the order of a map: both
					// lists follow one call of RuntimeTypes each.
					got := slices.Clone(r.methodsOf(id))
					byName := func(a, b *ssa.Function) int {
						if c := strings.Compare(a.String(), b.String()); c != 0 {
							return c
						}
						return strings.Compare(a.Synthetic, b.Synthetic)
					}
					slices.SortFunc(got, byName)
					slices.SortFunc(want, byName)
					if !slices.Equal(got, want) {
						t.Errorf("methodsOf(%s) = %v, want %v", id, got, want)
					}
				}
				for id := range r.sels {
					if _, ok := wantMethods[id]; !ok {
						t.Errorf("methodsOf(%s) = %v, want none", id, r.methodsOf(id))
					}
				}
			}
		})
	}
	if made == 0 || none == 0 {
		t.Errorf("%d selections with a method value and %d without; want some of each", made, none)
	}
}
