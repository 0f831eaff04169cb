package effects_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/index/effects"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// indexed is a repository indexed into a real SQLite store.
type indexed struct {
	r     graph.Reader
	funcs map[string]graph.Symbol // by qualified name
	names map[string]string       // key → qualified name
	full  map[string]graph.Symbol // by import path + "." + qualified name
}

// indexDir indexes dir with the real indexer and returns a reader of it.
func indexDir(t *testing.T, dir string) *indexed {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := index.Index(ctx, st, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "", Mode: graph.MatchSubstring,
		Kinds: []graph.Kind{graph.KindFunc, graph.KindMethod}})
	if err != nil {
		t.Fatal(err)
	}
	ix := &indexed{r: r, funcs: map[string]graph.Symbol{}, names: map[string]string{}, full: map[string]graph.Symbol{}}
	for _, s := range syms {
		if s.TestOnly {
			continue
		}
		ix.funcs[s.QualifiedName] = s
		ix.names[s.Key] = s.QualifiedName
		ix.full[s.PackagePath+"."+s.QualifiedName] = s
	}
	return ix
}

// rows returns the records of every function, by qualified name.
func (ix *indexed) rows(t *testing.T) map[string][]graph.EffectRecord {
	t.Helper()
	keys := make([]string, 0, len(ix.funcs))
	for _, s := range ix.funcs {
		keys = append(keys, s.Key)
	}
	recs, err := ix.r.EffectRecords(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]graph.EffectRecord{}
	for _, r := range recs {
		out[ix.names[r.Function]] = append(out[ix.names[r.Function]], r)
	}
	return out
}

// witness renders the witness path of rec by following Next.
func (ix *indexed) witness(t *testing.T, rec graph.EffectRecord) string {
	t.Helper()
	var steps []string
	for range 32 {
		step := fmt.Sprintf("%s %s:%d:%d", ix.names[rec.Function], rec.Path, rec.Line, rec.Col)
		if rec.Next == "" {
			if rec.Callee != "" {
				step += " → " + rec.Callee
			}
			steps = append(steps, step+" ("+rec.Detail+")")
			return strings.Join(steps, " → ")
		}
		steps = append(steps, step)
		recs, err := ix.r.EffectRecords(context.Background(), []string{rec.Next})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(recs, func(r graph.EffectRecord) bool { return r.Effect == rec.Effect })
		if i < 0 {
			t.Fatalf("witness of %s %s: next %s has no %s record", ix.names[rec.Function], rec.Effect, rec.Next, rec.Effect)
		}
		rec = recs[i]
	}
	t.Fatalf("witness of %s %s does not end", ix.names[rec.Function], rec.Effect)
	return ""
}

func render(t *testing.T, ix *indexed) string {
	rows := ix.rows(t)
	names := make([]string, 0, len(ix.funcs))
	for n := range ix.funcs {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		recs, ok := rows[n]
		if !ok {
			fmt.Fprintf(&b, "%s: not analysed\n", n)
			continue
		}
		fmt.Fprintf(&b, "%s:\n", n)
		for _, r := range recs {
			if r.Effect == graph.EffectPure {
				b.WriteString("  pure\n")
				continue
			}
			how := "transitive"
			if r.Direct {
				how = "direct"
			}
			cert := "possible"
			if r.Certain {
				cert = "certain"
			}
			fmt.Fprintf(&b, "  %s %s %s: %s\n", r.Effect, how, cert, ix.witness(t, r))
		}
	}
	return b.String()
}

// TestGolden indexes each testdata/*.txtar module and compares every
// function's effect row, witnesses included, with its .golden file.
func TestGolden(t *testing.T) {
	archives, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, archive := range archives {
		name := strings.TrimSuffix(filepath.Base(archive), ".txtar")
		t.Run(name, func(t *testing.T) {
			ix := indexDir(t, txtartest.Write(t, archive))
			got := render(t, ix)
			golden := strings.TrimSuffix(archive, ".txtar") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/index/effects -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("rows differ from %s (run with -update and review the diff):\ngot:\n%s", golden, got)
			}
		})
	}
}

// TestTaxonomyDocumented keeps docs/effects.md and Taxonomy alike: every
// effect with the same sentence, in order, and every effect of
// graph.AllEffects in the taxonomy.
func TestTaxonomyDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/effects.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, line)
		}
	}
	if len(rows) != len(effects.Taxonomy) {
		t.Fatalf("docs/effects.md has %d effect rows, Taxonomy %d", len(rows), len(effects.Taxonomy))
	}
	for i, in := range effects.Taxonomy {
		want := fmt.Sprintf("| `%s` | %s |", in.Effect, in.Sentence)
		if !strings.HasPrefix(rows[i], want) {
			t.Errorf("docs/effects.md row %d = %q; want it to start %q", i+1, rows[i], want)
		}
	}
	for i, e := range graph.AllEffects {
		if effects.Taxonomy[i].Effect != e || !effects.Valid(e) {
			t.Errorf("Taxonomy[%d] = %s; want %s (graph.AllEffects order)", i, effects.Taxonomy[i].Effect, e)
		}
	}
}

// TestCgo checks what a package calling into C gets: nothing analysed.
// The cgo effect needs the package as cgo rewrites it, and Sextant runs
// no C toolchain (a preamble could make it read any file or allocate
// without bound), so the package is checked with import "C" taken on
// trust, its calls into C have no type, and it builds no SSA. The C
// compiler is at hand here, and must not be run.
func TestCgo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc): that it is not run was NOT checked")
	}
	t.Setenv("CGO_ENABLED", "1")
	ix := indexDir(t, txtartest.Write(t, "testdata/cgo/cgo.txtar"))
	got := render(t, ix)
	want := `Add: not analysed
Plain: not analysed
`
	if got != want {
		t.Errorf("cgo rows:\n%s\nwant:\n%s", got, want)
	}
}
