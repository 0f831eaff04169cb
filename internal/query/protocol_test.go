package query

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// protocolCalls are the calls whose text renderings protocol.golden holds.
var protocolCalls = []toolCall{
	{"get_repository_overview", `{}`},
	{"get_repository_overview", `{"budget":300}`},
	{"get_repository_overview", `{"section":"layers"}`},
	{"get_repository_overview", `{"section":"nope"}`},
	{"get_repository_overview", `{"repository":"nope"}`},
	{"explain_type", `{"qualified_name":"Store"}`},
	{"explain_type", `{"qualified_name":"Cache"}`},
	{"explain_type", `{"qualified_name":"Counter"}`},
	{"explain_type", `{"qualified_name":"Point"}`},
	{"explain_type", `{"file":"api/api.go","name":"store.Store","budget":300}`},
	{"explain_type", `{"qualified_name":"Clamp"}`},
	{"explain_type", `{"qualified_name":"Stor"}`},
}

// TestProtocolGolden renders get_repository_overview and explain_type on
// testdata/protocol.txtar and compares them with testdata/protocol.golden
// (-update rewrites it).
func TestProtocolGolden(t *testing.T) {
	f := newFixture(t, "testdata/protocol.txtar")
	checkGolden(t, f, protocolCalls, "testdata/protocol.golden", func(s string) string { return strings.ReplaceAll(s, f.dir, "$ROOT") })
}

// TestOverviewEntryPoints checks that the entry points are the packages
// with the most references from outside themselves, counted here from
// the index's references one by one.
func TestOverviewEntryPoints(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/protocol.txtar")
	got := checkEntryPoints(t, f)
	if len(got) == 0 || got[0] != "example.com/proto/store" {
		t.Errorf("first entry point %v, want example.com/proto/store", got)
	}
}

// TestOverviewEntryPointsCorpus is TestOverviewEntryPoints on a corpus
// already indexed (x/tools, prometheus), run when
// SEXTANT_OVERVIEW_CORPUS=ROOT:DB names its root and database:
//
//	SEXTANT_OVERVIEW_CORPUS=$PWD/prometheus:/tmp/prom.db go test ./internal/query -run OverviewEntryPointsCorpus
//
// The default overview fits its budget, and its entry points are the
// packages the index says are used most from outside themselves.
func TestOverviewEntryPointsCorpus(t *testing.T) {
	spec := os.Getenv("SEXTANT_OVERVIEW_CORPUS")
	if spec == "" {
		t.Skip("SEXTANT_OVERVIEW_CORPUS is not set")
	}
	root, db, _ := strings.Cut(spec, ":")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := New(st, []string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	f := &fixture{dir: root, store: st, svc: svc}
	got := checkEntryPoints(t, f)
	ov := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview", `{}`)
	text := ov.Text()
	if len(text) > defaultOverviewBudget*4 {
		t.Errorf("overview text is %d bytes, over its budget of %d tokens", len(text), defaultOverviewBudget)
	}
	t.Logf("entry points %v; default overview %d bytes (budget %d tokens), %d sections cut", got, len(text), defaultOverviewBudget, len(ov.Omitted))
}

// checkEntryPoints checks the overview's entry points against a count of
// the index's references by package, one by one: the packages with the
// most uses from files of other packages, in that order, each with its
// count.
func checkEntryPoints(t *testing.T, f *fixture) []string {
	t.Helper()
	ctx := context.Background()
	r, err := f.store.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
	if err != nil {
		t.Fatal(err)
	}
	pkgOf := map[string]string{}
	keys := make([]string, len(syms))
	for i, s := range syms {
		keys[i], pkgOf[s.Key] = s.Key, s.PackagePath
	}
	files, err := r.Files(ctx, syms[0].Repository)
	if err != nil {
		t.Fatal(err)
	}
	filePkg := map[string]string{}
	for _, fl := range files {
		filePkg[fl.Path] = fl.Package
	}
	refs, _, err := r.Refs(ctx, graph.RefQuery{Targets: keys})
	if err != nil {
		t.Fatal(err)
	}
	outside := map[string]int{}
	for _, ref := range refs {
		if p := pkgOf[ref.Target]; filePkg[ref.Path] != p {
			outside[p]++
		}
	}
	var want []string
	for p, n := range outside {
		if n > 0 {
			want = append(want, p)
		}
	}
	slices.SortFunc(want, func(a, b string) int { return cmp.Or(outside[b]-outside[a], strings.Compare(a, b)) })

	ov := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview", `{"section":"entry_points"}`)
	var got []string
	for _, p := range ov.EntryPoints {
		got = append(got, p.Path)
		if p.ExternalUses != outside[p.Path] {
			t.Errorf("%s: external_uses %d, the index has %d", p.Path, p.ExternalUses, outside[p.Path])
		}
	}
	if len(got) == 0 || len(got) > len(want) || !slices.Equal(got, want[:len(got)]) {
		t.Errorf("entry points %v, want the first of %v (by references from outside: %v)", got, want, outside)
	}
	return got
}

// TestOverviewContinuation pages a section the budget cut with the
// cursors the answers give, and checks the pages add up to the section.
func TestOverviewContinuation(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/protocol.txtar")
	whole := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview", `{"budget":8000,"section":"most_referenced"}`)
	if whole.Truncated || len(whole.MostReferenced) < 10 {
		t.Fatalf("whole section: %d rows, truncated %v", len(whole.MostReferenced), whole.Truncated)
	}
	first := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview", `{}`)
	if len(first.Text()) > defaultOverviewBudget*4 {
		t.Errorf("overview text is %d bytes, over its budget of %d tokens", len(first.Text()), defaultOverviewBudget)
	}
	var cursor string
	for _, om := range first.Omitted {
		if om.Section == "most_referenced" {
			cursor = om.Cursor
		}
	}
	if cursor == "" {
		t.Fatalf("most_referenced not cut in %+v", first.Omitted)
	}
	if _, err := f.call(t, "get_repository_overview", `{"section":"api","cursor":"`+cursor+`"}`); graph.CodeOf(err) != graph.CodeCursorInvalid {
		t.Errorf("a cursor of another section: %v, want CURSOR_INVALID", err)
	}
	got := slices.Clone(first.MostReferenced)
	for cursor != "" {
		page := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview",
			fmt.Sprintf(`{"budget":300,"section":"most_referenced","cursor":%q}`, cursor))
		if len(page.MostReferenced) == 0 {
			t.Fatal("a page without rows")
		}
		got = append(got, page.MostReferenced...)
		cursor = ""
		for _, om := range page.Omitted {
			cursor = om.Cursor
		}
	}
	if !slices.Equal(got, whole.MostReferenced) {
		t.Errorf("pages give %d rows, the whole section %d", len(got), len(whole.MostReferenced))
	}
}
