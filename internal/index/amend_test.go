package index_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestRefreshAmends edits the amend fixture in the ways an agent does and
// checks, for each edit, that Refresh amends the snapshot when the edit
// allows it (and indexes whole when it does not), and that the amended
// snapshot holds exactly what a whole index of the same files holds:
// packages, files, symbols, references, call edges and implementations.
// Only effect rows differ: an amend drops those of the packages it
// re-derived.
func TestRefreshAmends(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	ctx := context.Background()
	edits := []struct {
		name    string
		edit    func(t *testing.T, root string)
		dirs    []string // amended; nil: indexed whole
		whole   string   // part of the reason for a whole index
		checked bool     // checked again in memory (live.Cache.TakeChecked)
	}{
		{"body of a package in the middle", func(t *testing.T, root string) {
			replace(t, root, "geo/geo.go", "func Sum() float64 {\n",
				"func Sum() float64 {\n\tif Pkg > 3 {\n\t\treturn Area(shape.Square{S: 1})\n\t}\n\t_ = shape.Describe(shape.Square{})\n")
		}, []string{"geo"}, "", false},
		{"lines inserted above a function", func(t *testing.T, root string) {
			replace(t, root, "geo/geo.go", "// Sum adds", "// One\n// Two\n// Three\n\n// Sum adds")
		}, []string{"geo"}, "", true},
		{"a test file", func(t *testing.T, root string) {
			replace(t, root, "geo/geo_test.go", "if Sum() == 0 {", "if Sum()+Area(nil) == 0 {")
		}, []string{"geo"}, "", true},
		{"a build constraint", func(t *testing.T, root string) {
			replace(t, root, "geo/geo_test.go", "package geo", "//go:build !nothing\n\npackage geo")
		}, []string{"geo"}, "", false},
		{"a body again, after a load", func(t *testing.T, root string) {
			replace(t, root, "geo/geo.go", "return f()", "x := f()\n\treturn x")
		}, []string{"geo"}, "", true},
		{"a leaf and a library at once", func(t *testing.T, root string) {
			replace(t, root, "cmd/app/main.go", "geo.Apply(func() int { return 1 })", "geo.Apply(func() int { return 7 }), geo.Area(shape.Square{})")
			replace(t, root, "cmd/app/main.go", "\"example.com/amend/geo\"", "\"example.com/amend/geo\"\n\t\"example.com/amend/shape\"")
			replace(t, root, "shape/shape.go", "t := 0.0", "t := 0.0\n\t_ = len(ss)")
		}, []string{"cmd/app", "shape"}, "", false},
		{"the root package, beside go.mod", func(t *testing.T, root string) {
			replace(t, root, "amend.go", `os.Getenv("V")`, `os.Getenv("W")`)
		}, []string{"."}, "", false},
		{"a new function, used by an importer", func(t *testing.T, root string) {
			replace(t, root, "geo/geo.go", "func helper()", "// New is new.\nfunc New() int { return 3 }\n\nfunc helper()")
			replace(t, root, "cmd/app/main.go", "geo.Sum(),", "geo.Sum(), geo.New(),")
		}, []string{"cmd/app", "geo"}, "", false},
		{"a new file", func(t *testing.T, root string) {
			writeTestFile(t, root, "geo/more.go", "package geo\n\nfunc more() int { return helper() }\n")
		}, []string{"cmd/app", "geo"}, "", false},
		{"a deleted file", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "geo/more.go")); err != nil {
				t.Fatal(err)
			}
		}, []string{"cmd/app", "geo"}, "", false},
		{"a function removed that an importer uses", func(t *testing.T, root string) {
			replace(t, root, "geo/geo.go", "// New is new.\nfunc New() int { return 3 }\n", "")
		}, []string{"cmd/app", "geo"}, "", false},
		{"a new method", func(t *testing.T, root string) {
			replace(t, root, "shape/shape.go", "// Circle is a Shape.", "// Perimeter of a square.\nfunc (s Square) Perimeter() float64 { return 4 * s.S }\n\n// Circle is a Shape.")
		}, nil, "types or methods", false},
		{"go.mod", func(t *testing.T, root string) {
			replace(t, root, "go.mod", "go 1.24", "go 1.25")
		}, nil, "go.mod", false},
		{"a new package", func(t *testing.T, root string) {
			writeTestFile(t, root, "extra/extra.go", "package extra\n\nfunc X() {}\n")
		}, nil, "extra is new", false},
	}

	root := txtartest.Write(t, "testdata/amend.txtar")
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "amended.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	cache := live.New(0)
	for i, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			e.edit(t, root)
			res, err := index.Refresh(ctx, st, root, index.Options{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if res.Rechecked != e.checked {
				t.Errorf("checked again in memory: %v, want %v", res.Rechecked, e.checked)
			}
			if !slices.Equal(res.Amended, e.dirs) || e.dirs == nil && !strings.Contains(res.Whole, e.whole) {
				t.Fatalf("Refresh amended %q (whole: %q), want %q (whole: %q)", res.Amended, res.Whole, e.dirs, e.whole)
			}
			got := dumpSnapshot(t, st)
			if got.amended != strings.Join(e.dirs, ",") {
				t.Errorf("snapshot says amended %q, want %q", got.amended, e.dirs)
			}

			whole, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), fmt.Sprintf("whole%d.db", i)))
			if err != nil {
				t.Fatal(err)
			}
			defer whole.Close()
			if _, err := index.Index(ctx, whole, root, index.Options{}); err != nil {
				t.Fatal(err)
			}
			want := dumpSnapshot(t, whole)
			for _, part := range []struct {
				name      string
				got, want []string
			}{
				{"packages", got.packages, want.packages},
				{"files", got.files, want.files},
				{"symbols", got.symbols, want.symbols},
				{"references", got.refs, want.refs},
				{"static call edges", got.edges, want.edges},
				{"implementations", got.impls, want.impls},
			} {
				if !slices.Equal(part.got, part.want) {
					t.Errorf("%s differ from a whole index:\n%s", part.name, diffLines(part.got, part.want))
				}
			}
			// The amended packages' effect rows are computed again, from
			// their own bodies and the stored rows of what they call:
			// the same certain effects as a whole index finds (witnesses
			// may take another, longer path). Possible and open records
			// come from calls through interfaces and function values,
			// which are not compared (see above).
			inDirs := func(l string) bool {
				return strings.Contains(l, " certain=true") && !strings.Contains(l, " open ") &&
					slices.Contains(e.dirs, path.Dir(l[:strings.IndexByte(l, ':')]))
			}
			gotFx := slices.DeleteFunc(slices.Clone(got.effects), func(l string) bool { return !inDirs(l) })
			wantFx := slices.DeleteFunc(slices.Clone(want.effects), func(l string) bool { return !inDirs(l) })
			if len(e.dirs) > 0 && len(wantFx) == 0 {
				t.Errorf("the fixture has no certain effect in %v to compare", e.dirs)
			}
			if !slices.Equal(gotFx, wantFx) {
				t.Errorf("effects of the amended packages differ from a whole index:\n%s", diffLines(gotFx, wantFx))
			}
		})
	}
}

// snapshotDump is a snapshot's records as sorted lines.
type snapshotDump struct {
	amended                                      string
	packages, files, symbols, refs, edges, impls []string
	effects                                      []string // function, effect, certain, direct
}

func dumpSnapshot(t *testing.T, st graph.Store) snapshotDump {
	t.Helper()
	ctx := context.Background()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	if err != nil || len(repos) != 1 {
		t.Fatalf("repositories %v, %v", repos, err)
	}
	repo := repos[0].Name
	var d snapshotDump
	d.amended = strings.Join(repos[0].Snapshot.Amended, ",")
	pkgs, err := r.Packages(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		d.packages = append(d.packages, fmt.Sprintf("%+v", p))
	}
	files, err := r.Files(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		d.files = append(d.files, fmt.Sprintf("%s %s %s %v %v", f.Path, f.Package, f.Hash, f.Test, f.Ignored))
	}
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
	if err != nil {
		t.Fatal(err)
	}
	var keys, funcs, ifaces []string
	byKey := map[string]string{}
	for _, s := range syms {
		s.Repository = ""
		d.symbols = append(d.symbols, fmt.Sprintf("%+v", s))
		keys = append(keys, s.Key)
		byKey[s.Key] = s.Path + ":" + s.QualifiedName
		if s.Kind.IsFunction() {
			funcs = append(funcs, s.Key)
		}
		if s.Kind == graph.KindInterface || s.Kind == graph.KindType {
			ifaces = append(ifaces, s.Key)
		}
	}
	refs, _, err := r.Refs(ctx, graph.RefQuery{Targets: keys, IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		d.refs = append(d.refs, fmt.Sprintf("%s <- %s:%d:%d-%d in %s %s test=%v", byKey[ref.Target], ref.Path, ref.Line, ref.Col,
			ref.EndCol, byKey[ref.Enclosing], ref.Kind, ref.TestOnly))
	}
	edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callers: funcs})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		if e.Coverage == graph.CoverageCandidate || e.Coverage == graph.CoverageUnresolved {
			// Through interfaces and function values: VTA's answer
			// depends on the whole program, which an amend does not
			// load, so these are not compared (the snapshot says so).
			continue
		}
		d.edges = append(d.edges, fmt.Sprintf("%s -> %s%s at %s:%d:%d %s %s go=%v defer=%v", byKey[e.Caller], byKey[e.Callee],
			e.CalleeName, e.Path, e.Line, e.Col, e.Coverage, e.Via, e.Go, e.Defer))
	}
	for _, k := range ifaces {
		impls, err := r.Implementations(ctx, k, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range impls {
			d.impls = append(d.impls, fmt.Sprintf("%s > %s ptr=%v", byKey[im.Interface], byKey[im.Type], im.Pointer))
		}
	}
	recs, err := r.EffectRecords(ctx, funcs)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		d.effects = append(d.effects, fmt.Sprintf("%s %s certain=%v direct=%v", byKey[rec.Function], rec.Effect, rec.Certain, rec.Direct))
	}
	for _, l := range [][]string{d.packages, d.files, d.symbols, d.refs, d.edges, d.impls, d.effects} {
		slices.Sort(l)
	}
	return d
}

// diffLines lists the lines only in got (+) and only in want (-).
func diffLines(got, want []string) string {
	var b strings.Builder
	for _, l := range got {
		if !slices.Contains(want, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	for _, l := range want {
		if !slices.Contains(got, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if b.Len() == 0 {
		return "(same lines, other counts)"
	}
	return b.String()
}

// replace replaces the first old in the file with new, failing when the
// file does not hold old.
func replace(t *testing.T, root, name, old, new string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(name))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeTestFile(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRefreshOtherFormat: a snapshot whose records another build wrote
// (graph.Snapshot.Format) is indexed whole by Refresh, even for an edit
// it would amend, since an amend would keep the other records; the new
// snapshot is of this build's format.
func TestRefreshOtherFormat(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	ctx := context.Background()
	root := txtartest.Write(t, "testdata/amend.txtar")
	dbPath := filepath.Join(t.TempDir(), "old.db")
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	// What an older build left: the same snapshot, of format 0.
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE snapshots SET format = 0`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if sts, err := graph.Repositories(ctx, st); err != nil || len(sts) != 1 || sts[0].Snapshot.Format != 0 {
		t.Fatalf("repositories = %+v, %v; want one snapshot of format 0", sts, err)
	}
	// The edit the amend test amends first.
	replace(t, root, "geo/geo.go", "func Sum() float64 {\n", "func Sum() float64 {\n\t_ = shape.Describe(shape.Square{})\n")
	res, err := index.Refresh(ctx, st, root, index.Options{Cache: live.New(0)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Amended != nil || !strings.Contains(res.Whole, "format 0") {
		t.Errorf("Refresh amended %q (whole: %q), want a whole index for the format", res.Amended, res.Whole)
	}
	sts, err := graph.Repositories(ctx, st)
	if err != nil || len(sts) != 1 || sts[0].Snapshot.Format != graph.IndexFormat || sts[0].Snapshot.Amended != nil {
		t.Errorf("repositories after Refresh = %+v, %v; want a whole snapshot of format %d", sts, err, graph.IndexFormat)
	}
}
