package scipindex_test

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/scip"
)

// keyDigests holds, by graph.IndexFormat, the digest of the stable keys
// this build writes for the TypeScript and Python declarations of the
// index of TestIndexFormatKeys (their SCIP symbols name a package, demo,
// which the keys name too). The entry of a format never changes:
// should the keys change (what identifies a declaration, how it is
// hashed), an older build's snapshot no longer joins with this build's
// records, so bump graph.IndexFormat (a snapshot of another format is
// indexed whole) and add the new digest under it.
var keyDigests = map[int]string{
	1: "typescript:acdf564e35353f5b python:778efbdb642c9201",
}

// TestIndexFormatKeys holds graph.IndexFormat to the stable keys of
// TypeScript and Python declarations: another key for the same index
// needs another format.
func TestIndexFormatKeys(t *testing.T) {
	at := func(l, c1, c2 int32) scip.Range {
		return scip.Range{StartLine: l, StartChar: c1, EndLine: l, EndChar: c2}
	}
	def := func(sym string, r scip.Range, end int32) scip.Occurrence {
		return scip.Occurrence{Symbol: sym, SymbolRoles: scip.RoleDefinition, Range: r, HasEnclosing: true,
			EnclosingRange: scip.Range{StartLine: r.StartLine, EndLine: end, EndChar: 1}}
	}
	var digests []string
	for _, lang := range []struct {
		name, path, src string
		occs            []scip.Occurrence
	}{
		{"typescript", "src/shapes.ts",
			"export class Square {\n  area(): number { return 1; }\n}\nexport function make(): Square { return new Square(); }\n",
			[]scip.Occurrence{
				def("scip-typescript npm demo 1.0.0 src/`shapes.ts`/Square#", at(0, 13, 19), 2),
				def("scip-typescript npm demo 1.0.0 src/`shapes.ts`/Square#area().", at(1, 2, 6), 1),
				def("scip-typescript npm demo 1.0.0 src/`shapes.ts`/make().", at(3, 16, 20), 3),
			}},
		{"python", "pkg/m.py",
			"class Greeter:\n    def hello(self):\n        return 1\ndef main():\n    Greeter().hello()\n",
			[]scip.Occurrence{
				def("scip-python python demo 0.1 `pkg.m`/Greeter#", at(0, 6, 13), 2),
				def("scip-python python demo 0.1 `pkg.m`/Greeter#hello().", at(1, 8, 13), 2),
				def("scip-python python demo 0.1 `pkg.m`/main().", at(3, 4, 8), 4),
			}},
	} {
		root := t.TempDir()
		writeTree(t, root, map[string]string{lang.path: lang.src})
		index := scip.AppendDocument(nil, &scip.Document{RelativePath: lang.path, Language: lang.name, Occurrences: lang.occs})
		im, err := importIndex(t, root, ".", index, scip.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, s := range im.byKind {
			lines = append(lines, fmt.Sprintf("%s %s %s", s.Key, s.QualifiedName, s.Kind))
		}
		if len(lines) != len(lang.occs) {
			t.Fatalf("%s: %d declarations imported, want %d: %v", lang.name, len(lines), len(lang.occs), lines)
		}
		slices.Sort(lines)
		sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		digests = append(digests, fmt.Sprintf("%s:%x", lang.name, sum[:8]))
	}
	got := strings.Join(digests, " ")
	if want := keyDigests[graph.IndexFormat]; got != want {
		t.Errorf("the stable keys of the declarations have digests %s, format %d's are %q: "+
			"an older build's records would not join with these; bump graph.IndexFormat and add %q under it",
			got, graph.IndexFormat, want, got)
	}
}
