package scip_test

import (
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/sextant-dev/sextant/internal/scip"
)

func TestParseSymbol(t *testing.T) {
	ns, typ, term, meth := scip.SuffixNamespace, scip.SuffixType, scip.SuffixTerm, scip.SuffixMethod
	for _, tc := range []struct {
		in   string
		want scip.Symbol
	}{
		{"local 3", scip.Symbol{Local: "3"}},
		{"scip-typescript npm . . src/`a.ts`/Square#area().", scip.Symbol{Scheme: "scip-typescript", Package: scip.Package{Manager: "npm"},
			Descriptors: []scip.Descriptor{{Name: "src", Suffix: ns}, {Name: "a.ts", Suffix: ns}, {Name: "Square", Suffix: typ}, {Name: "area", Suffix: meth}}}},
		{"scip-typescript npm . . src/`a.ts`/Square#`<constructor>`().(s)", scip.Symbol{Scheme: "scip-typescript", Package: scip.Package{Manager: "npm"},
			Descriptors: []scip.Descriptor{{Name: "src", Suffix: ns}, {Name: "a.ts", Suffix: ns}, {Name: "Square", Suffix: typ},
				{Name: "<constructor>", Suffix: meth}, {Name: "s", Suffix: scip.SuffixParameter}}}},
		{"scip-python python demo 0.1 `pkg.m`/__init__:", scip.Symbol{Scheme: "scip-python", Package: scip.Package{"python", "demo", "0.1"},
			Descriptors: []scip.Descriptor{{Name: "pkg.m", Suffix: ns}, {Name: "__init__", Suffix: scip.SuffixMeta}}}},
		{"rust-analyzer cargo std 1.0 macros/println!", scip.Symbol{Scheme: "rust-analyzer", Package: scip.Package{"cargo", "std", "1.0"},
			Descriptors: []scip.Descriptor{{Name: "macros", Suffix: ns}, {Name: "println", Suffix: scip.SuffixMacro}}}},
		{"a  b m  n p v T#[U]f(+1).x.", scip.Symbol{Scheme: "a b", Package: scip.Package{"m n", "p", "v"},
			Descriptors: []scip.Descriptor{{Name: "T", Suffix: typ}, {Name: "U", Suffix: scip.SuffixTypeParameter},
				{Name: "f", Disambiguator: "+1", Suffix: meth}, {Name: "x", Suffix: term}}}},
		{"s . . . `a``b`#", scip.Symbol{Scheme: "s", Descriptors: []scip.Descriptor{{Name: "a`b", Suffix: typ}}}},
		{"s . . . héllo.", scip.Symbol{Scheme: "s", Descriptors: []scip.Descriptor{{Name: "héllo", Suffix: term}}}},
	} {
		got, err := scip.ParseSymbol(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
		if again, err := scip.ParseSymbol(got.String()); err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%q: String %q parses to %+v, %v", tc.in, got.String(), again, err)
		}
	}
}

func TestParseSymbolErrors(t *testing.T) {
	for _, in := range []string{
		"", "local ", "local a b", "local", "s", "s a b c", "s a b c ", " a b c d#", "local a b c d#",
		"s a b c d", "s a b c d#e", "s a b c `d", "s a b c ``#", "s a b c d(x", "s a b c d(x)", "s a b c [d", "s a b c (d",
		"s a b c d%", "s a b c #",
	} {
		if s, err := scip.ParseSymbol(in); !errors.Is(err, scip.ErrSymbol) {
			t.Errorf("%q: %+v, %v; want ErrSymbol", in, s, err)
		}
	}
}

// FuzzParseSymbol: no input panics; a symbol that parses prints as a
// string that parses to the same symbol.
func FuzzParseSymbol(f *testing.F) {
	for _, p := range []string{"testdata/ts.scip", "testdata/py.scip"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		c, _, err := decodeAll(f, b, scip.Limits{})
		if err != nil {
			f.Fatal(err)
		}
		for _, d := range c.docs {
			for _, o := range d.Occurrences {
				f.Add(o.Symbol)
			}
		}
	}
	f.Add("a  b m  n p v T#[U]f(+1).x.")
	f.Add("s . . . `a``b`#")
	f.Fuzz(func(t *testing.T, s string) {
		sym, err := scip.ParseSymbol(s)
		if err != nil {
			return
		}
		again, err := scip.ParseSymbol(sym.String())
		if err != nil || !reflect.DeepEqual(again, sym) {
			t.Fatalf("%q parsed to %+v, printed %q, parsed again to %+v, %v", s, sym, sym.String(), again, err)
		}
	})
}
