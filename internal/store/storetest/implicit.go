package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// testImplicitRefs writes plain and implicit uses of one method (see
// graph.Ref.Implicit) and reads each kind back by its own question: a
// query by Targets reads the plain uses alone, one by Implicit the
// implicit ones alone, one by both the two merged in order, a plain use
// before an implicit one at the same position. Every Target read back is
// the method's stable key, and UseCounts counts the plain uses only.
func testImplicitRefs(t *testing.T, s graph.Store) {
	ctx := context.Background()
	repo := ensure(t, s, "im")
	const pkgPath = "example.com/im"
	typ := sym("im", pkgPath, "im", "im.go", "Buffer", graph.KindType, 3)
	write := sym("im", pkgPath, "im", "im.go", "Buffer.Write", graph.KindMethod, 5, child(typ, "*Buffer"))
	other := sym("im", pkgPath, "im", "im.go", "Buffer.Close", graph.KindMethod, 9, child(typ, "*Buffer"))
	use := func(path string, line, col int, implicit bool) graph.Ref {
		return graph.Ref{Target: write.Key, Path: path, Line: line, Col: col, EndCol: col + 5,
			Enclosing: other.Key, Kind: graph.RefCall, TestOnly: path == "im_test.go", Implicit: implicit}
	}
	// Written out of order, the implicit uses first.
	refs := []graph.Ref{
		use("im.go", 20, 4, true),
		use("im_test.go", 6, 2, true),
		use("im.go", 12, 3, true),
		use("im.go", 12, 3, false), // the same position, plain
		use("im.go", 30, 7, false),
	}
	w := begin(t, s, repo)
	defer w.Abort()
	pkg := graph.Package{Path: pkgPath, Name: "im", ModulePath: pkgPath, Dir: "."}
	files := []graph.File{{Path: "im.go", Package: pkgPath}, {Path: "im_test.go", Package: pkgPath, Test: true}}
	if err := w.AddPackage(ctx, pkg, files, []graph.Symbol{typ, write, other}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.AddRefs(ctx, refs); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	r := read(t, s)

	// render shows a use as path:line:col, with "+implicit" for an
	// implicit one, checking that it reads back as written.
	written := map[string]graph.Ref{}
	render := func(ref graph.Ref) string {
		pos := fmt.Sprintf("%s:%d:%d", ref.Path, ref.Line, ref.Col)
		if ref.Implicit {
			pos += "+implicit"
		}
		return pos
	}
	for _, ref := range refs {
		ref.Repository = "im"
		written[render(ref)] = ref
	}
	tests := []struct {
		name  string
		q     graph.RefQuery
		want  []string
		total int
	}{
		{"plain uses by Targets", graph.RefQuery{Targets: []string{write.Key}, IncludeTests: true},
			[]string{"im.go:12:3", "im.go:30:7"}, 2},
		{"implicit uses by Implicit", graph.RefQuery{Implicit: []string{write.Key}, IncludeTests: true},
			[]string{"im.go:12:3+implicit", "im.go:20:4+implicit", "im_test.go:6:2+implicit"}, 3},
		{"implicit uses without tests", graph.RefQuery{Implicit: []string{write.Key}},
			[]string{"im.go:12:3+implicit", "im.go:20:4+implicit"}, 2},
		{"both, plain first at one position", graph.RefQuery{Targets: []string{write.Key},
			Implicit: []string{write.Key}},
			[]string{"im.go:12:3", "im.go:12:3+implicit", "im.go:20:4+implicit", "im.go:30:7"}, 4},
		{"both, paged", graph.RefQuery{Targets: []string{write.Key}, Implicit: []string{write.Key},
			Offset: 1, Limit: 2}, []string{"im.go:12:3+implicit", "im.go:20:4+implicit"}, 4},
		{"both, by kind", graph.RefQuery{Targets: []string{write.Key}, Implicit: []string{write.Key},
			Kinds: []graph.RefKind{graph.RefRead}}, nil, 0},
		{"implicit uses of a method that has none", graph.RefQuery{Implicit: []string{other.Key}}, nil, 0},
		{"plain uses of another key, implicit of this one", graph.RefQuery{Targets: []string{other.Key},
			Implicit: []string{write.Key}}, []string{"im.go:12:3+implicit", "im.go:20:4+implicit"}, 2},
		{"implicit keys beyond one IN list", graph.RefQuery{Implicit: append(fakeKeys(700), write.Key)},
			[]string{"im.go:12:3+implicit", "im.go:20:4+implicit"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total, err := r.Refs(ctx, tt.q)
			if err != nil {
				t.Fatalf("Refs: %v", err)
			}
			var shown []string
			for _, ref := range got {
				shown = append(shown, render(ref))
				if !graph.ValidKey(ref.Target) {
					t.Errorf("Refs: target %q of %s is not a stable key", ref.Target, render(ref))
				}
				if want, ok := written[render(ref)]; !ok || ref != want {
					t.Errorf("Refs: got %+v, wrote %+v", ref, want)
				}
			}
			if !slices.Equal(shown, tt.want) || total != tt.total {
				t.Errorf("Refs\n got %v (total %d)\nwant %v (total %d)", shown, total, tt.want, tt.total)
			}
		})
	}

	// An implicit use is no use of the method for the counts.
	got, err := r.UseCounts(ctx, "im")
	want := []graph.UseCount{{Target: write.Key, Package: pkgPath, Refs: 2, Calls: 2}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("UseCounts = %+v, %v; want %+v", got, err, want)
	}
}
