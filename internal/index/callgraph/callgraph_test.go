package callgraph

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// loadUnits loads every unit under dir the way the indexer does and
// returns the packages of each.
func loadUnits(t testing.TB, dir string) [][]*packages.Package {
	t.Helper()
	plan, err := load.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var units [][]*packages.Package
	for _, u := range plan.Units {
		ps, err := load.Load(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		units = append(units, ps)
	}
	return units
}

func under(dir string) func(string) bool {
	prefix := dir + string(filepath.Separator)
	return func(name string) bool { return strings.HasPrefix(name, prefix) }
}

// hermetic makes the go command of a test see the fixture alone, as
// built for linux/amd64, with no network.
func hermetic(t *testing.T) {
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
}

func TestGolden(t *testing.T) {
	hermetic(t)
	archives, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(archives) == 0 {
		t.Fatal("no fixtures in testdata")
	}
	for _, archive := range archives {
		name := strings.TrimSuffix(filepath.Base(archive), ".txtar")
		t.Run(name, func(t *testing.T) {
			dir := txtartest.Write(t, archive)
			units := loadUnits(t, dir)
			var out bytes.Buffer
			for _, mode := range []struct {
				alg Algorithm
				max int
			}{{VTA, 0}, {CHA, -1}} {
				fmt.Fprintf(&out, "== %s\n", mode.alg)
				for _, pkgs := range units {
					res, err := Build(context.Background(), pkgs, Options{InRepo: under(dir), MaxVTACalls: mode.max})
					if err != nil {
						t.Fatal(err)
					}
					if res.Algorithm != mode.alg {
						t.Errorf("algorithm %s, want %s", res.Algorithm, mode.alg)
					}
					checkEdges(t, dir, res)
					render(&out, dir, res)
				}
			}
			got := out.String()
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/index/callgraph -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("edges differ from %s (run go test ./internal/index/callgraph -update and review the diff):\n%s",
					golden, lineDiff(string(want), got))
			}
		})
	}
}

// checkEdges asserts what holds whatever the golden file says: positions
// point at the identifiers they name, and the classes are consistent.
func checkEdges(t *testing.T, dir string, res *Result) {
	t.Helper()
	files := map[string][]string{}
	identAt := func(p Pos) string {
		lines, ok := files[p.Filename]
		if !ok {
			b, err := os.ReadFile(p.Filename)
			if err != nil {
				t.Fatal(err)
			}
			lines = strings.Split(string(b), "\n")
			files[p.Filename] = lines
		}
		line := lines[p.Line-1][p.Col-1:]
		end := strings.IndexFunc(line, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		})
		if end < 0 {
			end = len(line)
		}
		return line[:end]
	}
	last := func(name string) string { return name[strings.LastIndex(name, ".")+1:] }
	seen := map[Edge]bool{}
	for _, e := range res.Edges {
		if seen[e] {
			t.Errorf("duplicate edge %+v", e)
		}
		seen[e] = true
		if !e.Caller.Pos.IsValid() || !strings.HasPrefix(e.Caller.Pos.Filename, dir) {
			t.Errorf("caller outside the repository: %+v", e)
			continue
		}
		if got := identAt(e.Caller.Pos); got != last(e.Caller.Name) {
			t.Errorf("caller %s is declared at %s, which names %q", e.Caller.Name, e.Caller.Pos, got)
		}
		if e.Callee.Pos.IsValid() {
			if got := identAt(e.Callee.Pos); got != last(e.Callee.Name) {
				t.Errorf("callee %s is declared at %s, which names %q", e.Callee.Name, e.Callee.Pos, got)
			}
		}
		switch e.Coverage {
		case graph.CoverageUnresolved:
			if e.Callee != (Func{}) || e.Via == graph.ViaStatic {
				t.Errorf("unresolved edge with a callee or a static call: %+v", e)
			}
		case graph.CoverageExact:
			if e.Via != graph.ViaStatic {
				t.Errorf("exact edge not static: %+v", e)
			}
		case graph.CoverageCandidate:
			if e.Via == graph.ViaStatic {
				t.Errorf("candidate edge static: %+v", e)
			}
		}
		if (e.By == "") != (e.Via == graph.ViaStatic) {
			t.Errorf("edge resolved by %q: %+v", e.By, e)
		}
		if e.Callee.Name == "" && e.Coverage != graph.CoverageUnresolved {
			t.Errorf("edge without a callee: %+v", e)
		}
		if e.Via == graph.ViaStatic && !e.Literal && e.Site.IsValid() {
			if got := identAt(e.Site); got != last(e.Callee.Name) && got != "func" {
				t.Errorf("site %s of a call of %s names %q", e.Site, e.Callee.Name, got)
			}
		}
		if e.Via == graph.ViaInterface {
			if got := identAt(e.Site); got != last(e.Dispatch.Name) {
				t.Errorf("site %s of a call of %s names %q", e.Site, e.Dispatch.Name, got)
			}
		}
	}
}

// render writes res readably, one edge a line:
//
//	caller -> callee [coverage via go|defer dispatch] at file:line:col
func render(w *bytes.Buffer, dir string, res *Result) {
	short := func(f Func) string {
		if f.Name == "" {
			return "?"
		}
		return trimModule(f.Name)
	}
	rel := func(p Pos) string {
		r, err := filepath.Rel(dir, p.Filename)
		if err != nil {
			r = p.Filename
		}
		return fmt.Sprintf("%s:%d:%d", filepath.ToSlash(r), p.Line, p.Col)
	}
	paths := make([]string, 0, len(res.Packages))
	for p := range res.Packages {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		f := res.Packages[p]
		var attrs []string
		if f.Built {
			attrs = append(attrs, "built")
		}
		if f.TypeErrors {
			attrs = append(attrs, "type_errors")
		}
		if f.Reflection {
			attrs = append(attrs, "reflection")
		}
		attrs = append(attrs, fmt.Sprintf("dynamic=%d unresolved=%d", f.DynamicCalls, f.UnresolvedCalls))
		fmt.Fprintf(w, "package %s: %s\n", trimModule(p), strings.Join(attrs, " "))
	}
	for _, e := range res.Edges {
		callee := short(e.Callee)
		if e.Literal {
			callee += " (literal)"
		}
		if e.Callee.Name != "" && !e.Callee.Pos.IsValid() {
			callee += " (outside)"
		}
		if e.Elided > 0 {
			callee = fmt.Sprintf("%s (%d outside elided)", callee, e.Elided)
		}
		class := []string{string(e.Coverage), string(e.Via)}
		if e.Go {
			class = append(class, "go")
		}
		if e.Defer {
			class = append(class, "defer")
		}
		if e.Dispatch.Name != "" {
			class = append(class, "through "+short(e.Dispatch))
		}
		if e.By != "" && e.By != res.Algorithm {
			class = append(class, "by "+string(e.By))
		}
		fmt.Fprintf(w, "%s -> %s [%s] at %s\n", short(e.Caller), callee, strings.Join(class, " "), rel(e.Site))
	}
}

// trimModule drops the fixture's module path ("example.com/cg/") from
// the front of a name.
func trimModule(name string) string {
	if rest, ok := strings.CutPrefix(name, "example.com/"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[i+1:]
		}
	}
	return name
}

// lineDiff shows the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			m[l]++
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if g[l] == 0 {
			fmt.Fprintf(&b, "-%s\n", l)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if w[l] == 0 {
			fmt.Fprintf(&b, "+%s\n", l)
		}
	}
	return b.String()
}

// TestStartReleases checks that Start reads everything it needs before
// it returns: the indexer releases the packages' syntax and types while
// the build goes on.
func TestStartReleases(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, filepath.Join("testdata", "calls.txtar"))
	units := loadUnits(t, dir)
	for _, mode := range []int{0, -1} {
		opts := Options{InRepo: under(dir), MaxVTACalls: mode}
		want, err := Build(context.Background(), units[0], opts)
		if err != nil {
			t.Fatal(err)
		}
		pending := Start(context.Background(), units[0], opts)
		var saved []packages.Package
		for _, p := range units[0] {
			saved = append(saved, *p)
			p.Syntax, p.TypesInfo, p.Types, p.Imports = nil, nil, nil, nil
		}
		got, err := pending.Wait()
		for i, p := range units[0] {
			*p = saved[i]
		}
		if err != nil {
			t.Fatal(err)
		}
		var w, g bytes.Buffer
		render(&w, dir, want)
		render(&g, dir, got)
		if w.String() != g.String() {
			t.Errorf("MaxVTACalls %d: edges after releasing differ:\n%s", mode, lineDiff(w.String(), g.String()))
		}
	}
}

func TestBuildNothing(t *testing.T) {
	res, err := Build(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Edges) != 0 || len(res.Packages) != 0 {
		t.Errorf("edges from nothing: %+v", res)
	}
}

func TestBuildCancelled(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, filepath.Join("testdata", "calls.txtar"))
	units := loadUnits(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, units[0], Options{}); err == nil {
		t.Error("Build with a cancelled context succeeded")
	}
}
