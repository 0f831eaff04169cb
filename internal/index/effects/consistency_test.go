package effects_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestWitnessesAreEdges checks that a snapshot's rows follow from its own
// edges: every transitive record's first step is a call edge from the
// function to Next at that site (exact when the record is certain), and a
// direct record caused by a call outside the graph is an edge to that
// callee at that site, unless the Collector decided it (io values, cgo).
func TestWitnessesAreEdges(t *testing.T) {
	ix := indexDir(t, txtartest.Write(t, "testdata/fixture.txtar"))
	checkWitnesses(t, ix.r, ix.keys())
}

func (ix *indexed) keys() []string {
	var keys []string
	for _, s := range ix.funcs {
		keys = append(keys, s.Key)
	}
	return keys
}

func checkWitnesses(t *testing.T, r graph.Reader, keys []string) {
	t.Helper()
	ctx := context.Background()
	recs, err := r.EffectRecords(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callers: keys})
	if err != nil {
		t.Fatal(err)
	}
	type site struct {
		caller, callee, path string
		line, col            int
	}
	exact, all := map[site]bool{}, map[site]bool{}
	for _, e := range edges {
		callee := e.Callee
		if callee == "" {
			callee = e.CalleeName
		}
		s := site{e.Caller, callee, e.Path, e.Line, e.Col}
		all[s] = true
		if e.Coverage == graph.CoverageExact || e.Coverage == graph.CoveragePackageLevel {
			exact[s] = true
		}
	}
	checked := 0
	for _, rec := range recs {
		switch {
		case rec.Next != "":
			s := site{rec.Function, rec.Next, rec.Path, rec.Line, rec.Col}
			if !all[s] || (rec.Certain && !exact[s]) {
				t.Errorf("%s %s (certain %v): first step %s:%d:%d → %s is not such an edge of the snapshot",
					rec.Function, rec.Effect, rec.Certain, rec.Path, rec.Line, rec.Col, rec.Next)
			}
			checked++
		case rec.Direct && rec.Callee != "" && !strings.Contains(rec.Detail, " on ") && !strings.HasPrefix(rec.Callee, "C."):
			if !all[site{rec.Function, rec.Callee, rec.Path, rec.Line, rec.Col}] {
				t.Errorf("%s %s: direct cause %s at %s:%d:%d is no edge of the snapshot", rec.Function, rec.Effect,
					rec.Callee, rec.Path, rec.Line, rec.Col)
			}
			checked++
		case !rec.Direct && rec.Effect != graph.EffectPure:
			t.Errorf("%s %s: transitive record without a next step", rec.Function, rec.Effect)
		}
	}
	if checked == 0 {
		t.Fatal("no witness step checked")
	}
}

// TestReindexFollowsEdges edits the fixture and indexes it again into the
// same store: the new snapshot's rows follow its new edges (Startup loses
// fs with ReadConfig's file read, and gains net through a new call), and
// stay consistent with them.
func TestReindexFollowsEdges(t *testing.T) {
	ctx := context.Background()
	dir := txtartest.Write(t, "testdata/fixture.txtar")
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	row := func(qn string) string {
		t.Helper()
		if _, err := index.Index(ctx, st, dir, index.Options{}); err != nil {
			t.Fatal(err)
		}
		r, err := st.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		syms, err := r.LookupSymbols(ctx, graph.Lookup{QualifiedName: qn})
		if err != nil || len(syms) != 1 {
			t.Fatalf("looking up %s: %v, %d found", qn, err, len(syms))
		}
		recs, err := r.EffectRecords(ctx, []string{syms[0].Key})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, s := range mustFuncs(t, r) {
			keys = append(keys, s.Key)
		}
		checkWitnesses(t, r, keys)
		return describe(recs)
	}
	if got := row("Startup"); got != "fs" {
		t.Fatalf("Startup before the edit = %q, want fs", got)
	}
	path := filepath.Join(dir, "direct.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), `func ReadConfig() ([]byte, error) { return os.ReadFile("config.json") }`,
		`func ReadConfig() ([]byte, error) { _, err := Dial(); return nil, err }`, 1)
	if edited == string(src) {
		t.Fatal("edit did not apply")
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := row("Startup"); got != "net" {
		t.Errorf("Startup after the edit = %q, want net", got)
	}
}

func mustFuncs(t *testing.T, r graph.Reader) []graph.Symbol {
	t.Helper()
	syms, _, err := r.FindSymbols(context.Background(), graph.SymbolQuery{Mode: graph.MatchSubstring,
		Kinds: []graph.Kind{graph.KindFunc, graph.KindMethod}})
	if err != nil {
		t.Fatal(err)
	}
	return syms
}
