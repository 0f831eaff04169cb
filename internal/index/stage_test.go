package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/filecache"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// currentSymbols reads every symbol of the current snapshots with r.
func currentSymbols(t *testing.T, r graph.Reader) []graph.Symbol {
	t.Helper()
	syms, _, err := r.FindSymbols(context.Background(), graph.SymbolQuery{Name: "", Mode: graph.MatchSubstring})
	if err != nil {
		t.Fatal(err)
	}
	return syms
}

// symbolLines renders where every symbol of the current snapshots is.
func symbolLines(t *testing.T, st graph.Store) []string {
	t.Helper()
	r, err := st.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms := currentSymbols(t, r)
	var out []string
	for _, s := range syms {
		out = append(out, fmt.Sprintf("%s %s %s %s:%d-%d exported=%v test=%v", s.Key, s.Kind, s.QualifiedName, s.Path, s.StartLine, s.EndLine, s.Exported, s.TestOnly))
	}
	slices.Sort(out)
	return out
}

func stageOf(t *testing.T, st graph.Store) (string, bool) {
	t.Helper()
	ctx := context.Background()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(repos) != 1 {
		return "", false
	}
	return repos[0].Snapshot.Stage, true
}

// A staged first index publishes the symbols from syntax before it
// type-checks anything, as a snapshot of stage syntax, and then the
// complete snapshot, with a types stage between them that has every
// reference and no call edge; the symbols of all are the same. The types it
// checked reach the type cache when the caller keeps them. A second
// index of the repository publishes no syntax stage: the complete
// snapshot there keeps serving until the new one replaces it.
func TestStagedIndex(t *testing.T) {
	hermetic(t)
	typeCache := t.TempDir()
	t.Setenv(load.TypeCacheEnv, typeCache)
	dir := txtartest.Write(t, "testdata/kinds.txtar")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	var early []string
	sawStage := false
	var typesRefs, typesEdges int
	progress := func(p Progress) {
		if p.Phase == PhaseSyntax && p.Done == 1 {
			stage, ok := stageOf(t, st)
			if !ok || stage != graph.StageSyntax {
				t.Errorf("after the syntax stage the snapshot's stage is %q (found %v), want %q", stage, ok, graph.StageSyntax)
			}
			early = symbolLines(t, st)
			sawStage = true
		}
		if p.Phase == PhaseLoad && !sawStage {
			t.Errorf("load began before the syntax stage was published")
		}
		if p.Phase == PhaseTypes && p.Done == 1 {
			if stage, ok := stageOf(t, st); !ok || stage != graph.StageTypes {
				t.Errorf("after the types stage the snapshot's stage is %q (found %v), want %q", stage, ok, graph.StageTypes)
			}
			typesRefs, typesEdges = xrefTotals(t, st)
		}
	}
	typesRefs, typesEdges = -1, -1
	res, err := Index(ctx, st, dir, Options{Staged: true, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if !sawStage {
		t.Fatal("no syntax stage was reported")
	}
	// The types stage has every reference and no call edge yet.
	refs, edges := xrefTotals(t, st)
	if typesRefs != refs || refs == 0 || typesEdges != 0 || edges == 0 {
		t.Errorf("the types stage has %d references and %d call edges, the complete snapshot %d and %d; want the same references, and edges only in the complete one",
			typesRefs, typesEdges, refs, edges)
	}
	if n := typeCacheLen(t, typeCache); n != 0 {
		t.Errorf("the type cache has %d entries before the caller keeps the types", n)
	}
	res.KeepTypes()
	if n := typeCacheLen(t, typeCache); n == 0 {
		t.Errorf("the type cache is empty after KeepTypes")
	}
	if stage, _ := stageOf(t, st); stage != "" {
		t.Errorf("the complete snapshot has stage %q", stage)
	}
	full := symbolLines(t, st)
	if len(full) == 0 {
		t.Fatal("no symbols")
	}
	// One difference by design: syntax cannot tell that a type defined
	// as another package's type (type R io.Reader) is an interface.
	i := slices.IndexFunc(early, func(l string) bool { return strings.Contains(l, " type R kinds.go:112-112 ") })
	j := slices.IndexFunc(full, func(l string) bool { return strings.Contains(l, " interface R kinds.go:112-112 ") })
	if i < 0 || j < 0 {
		t.Errorf("type R: syntax has it at %d, complete at %d", i, j)
	} else {
		early = slices.Delete(early, i, i+1)
		full = slices.Delete(slices.Clone(full), j, j+1)
	}
	if !slices.Equal(early, full) {
		t.Errorf("the syntax stage's symbols differ from the complete snapshot's:\nsyntax:\n%q\ncomplete:\n%q", early, full)
	}

	sawStage = false
	progress = func(p Progress) {
		if p.Phase == PhaseSyntax {
			t.Errorf("a second index published a syntax stage")
		}
	}
	if _, err := Index(ctx, st, dir, Options{Staged: true, Progress: progress}); err != nil {
		t.Fatal(err)
	}
}

// typeCacheLen returns how many entries the type cache in dir holds.
func typeCacheLen(t *testing.T, dir string) int {
	t.Helper()
	c, err := filecache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c.Len()
}

// xrefTotals counts the references to and the call edges out of every
// symbol of the current snapshots.
func xrefTotals(t *testing.T, st graph.Store) (refs, edges int) {
	t.Helper()
	ctx := context.Background()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var keys []string
	for _, s := range currentSymbols(t, r) {
		keys = append(keys, s.Key)
	}
	if _, refs, err = r.Refs(ctx, graph.RefQuery{Targets: keys, IncludeTests: true}); err != nil {
		t.Fatal(err)
	}
	es, err := r.CallEdges(ctx, graph.EdgeQuery{Callers: keys})
	if err != nil {
		t.Fatal(err)
	}
	return refs, len(es)
}
