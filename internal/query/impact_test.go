package query

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"golang.org/x/tools/txtar"
)

// impactRepo is the impact fixture as a git repository: the files of
// testdata/impact.txtar committed, then the files under edit/ written over
// them (and committed too when commit is set), indexed into a real SQLite
// store by a Service that refreshes on each call.
type impactRepo struct {
	dir  string
	svc  *Service
	diff string // git diff of the change, old to new
}

func newImpactRepo(t *testing.T, commit bool) *impactRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	ar, err := txtar.ParseFile("testdata/impact.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(edit bool) {
		for _, f := range ar.Files {
			name, isEdit := strings.CutPrefix(f.Name, "edit/")
			if isEdit != edit {
				continue
			}
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_AUTHOR_DATE=2026-12-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-12-01T00:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	write(false)
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "before")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := index.Index(ctx, st, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	write(true)
	r := &impactRepo{dir: dir}
	r.diff = git("diff", "--no-ext-diff", "--no-color", "HEAD")
	if commit {
		git("commit", "-q", "-am", "after")
	}
	refresh := func(ctx context.Context, root string, _ func(Progress)) error {
		_, err := index.Refresh(ctx, st, root, index.Options{})
		return err
	}
	if r.svc, err = New(st, []string{dir}, refresh); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *impactRepo) impact(t *testing.T, args string) *GetImpactOutput {
	t.Helper()
	tl, _ := LookupTool("get_impact")
	a, err := tl.Call(context.Background(), r.svc, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("get_impact %s: %v", args, err)
	}
	return a.(*GetImpactOutput)
}

// impactSummary is what the diff test compares: the changes, the breaking
// changes with what they break, and the tests named, in a form that does
// not depend on the mode.
func impactSummary(o *GetImpactOutput) string {
	var b strings.Builder
	for _, c := range o.Changed {
		fmt.Fprintf(&b, "changed %s %s %s\n", c.Kind, c.QualifiedName, c.Change)
	}
	for _, br := range o.Breaking {
		fmt.Fprintf(&b, "breaking %s %s\n", br.QualifiedName, br.Change)
		for _, s := range br.Broken {
			fmt.Fprintf(&b, "  breaks %s %s:%d\n", s.QualifiedName, s.Path, s.Line)
		}
	}
	for _, tt := range o.Results {
		fmt.Fprintf(&b, "test %s %s\n", tt.Dir, tt.Name)
	}
	for _, c := range o.Commands {
		fmt.Fprintf(&b, "run %s\n", c.Command)
	}
	return b.String()
}

// TestImpactDiff changes a body, a signature, an interface method and an
// exported constant, and asks get_impact about the change as the working
// tree against HEAD, against a base revision, and as diff text (applied,
// and not yet applied): each names the same changed declarations,
// breaking changes and tests, and the text of each is golden
// (testdata/impact.golden, -update rewrites it).
func TestImpactDiff(t *testing.T) {
	want := `changed const Sides body
changed interface Shape signature
changed interface_method Shape.Perimeter added
changed func Scale signature
changed func Grow body
breaking Shape interface
  breaks Circle app/app.go:7
  breaks TestTotal app/app_test.go:10
  breaks Square shape/shape.go:14
breaking Scale signature
  breaks Double app/app.go:22
  breaks TestScale shape/shape_test.go:12
  breaks BenchmarkScale shape/shape_test.go:31
test app TestBigger
test app TestDouble
test app TestTotal
test shape BenchmarkScale
test shape TestArea
test shape TestGrow
test shape TestScale
test shape TestSides
run go test -run '^(TestBigger|TestDouble|TestTotal)$' ./app
run go test -run '^(TestArea|TestGrow|TestScale|TestSides)$' ./shape
run go test -run '^$' -bench '^(BenchmarkScale)$' ./shape
`
	var golden strings.Builder
	check := func(name string, o *GetImpactOutput) {
		t.Helper()
		if got := impactSummary(o); got != want {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", name, got, want)
		}
		fmt.Fprintf(&golden, "== %s\n%s", name, o.Text())
	}
	wt := newImpactRepo(t, false)
	check("working tree", wt.impact(t, `{"diff":true}`))
	check("diff_text applied", wt.impact(t, mustJSON(map[string]any{"diff_text": wt.diff})))
	cmds := wt.impact(t, `{"diff":true,"format":"commands"}`)
	fmt.Fprintf(&golden, "== format commands\n%s", cmds.Text())

	based := newImpactRepo(t, true)
	check("base", based.impact(t, `{"base":"HEAD~1"}`))
	if o := based.impact(t, `{"diff":true}`); len(o.Changed) != 0 || len(o.Results) != 0 {
		t.Errorf("the working tree against HEAD after the commit changes nothing, got %s", impactSummary(o))
	}

	// The same diff, not applied yet: the disk and the index hold the
	// old side. Every use of the old Scale may break, and the
	// implementations of the old Shape all stop satisfying it.
	old := newImpactRepo(t, false)
	ar, err := txtar.ParseFile("testdata/impact.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "shape/shape.go" {
			if err := os.WriteFile(filepath.Join(old.dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	o := old.impact(t, mustJSON(map[string]any{"diff_text": old.diff}))
	// The type checker has not seen the new side, so the conversion of
	// Square to Shape in TestTotal is not known to break, and Square is
	// where the old file declares it.
	wantOld := strings.Replace(strings.Replace(want, "  breaks TestTotal app/app_test.go:10\n", "", 1), "shape/shape.go:14", "shape/shape.go:13", 1)
	if got := impactSummary(o); got != wantOld {
		t.Errorf("diff_text not applied:\n got:\n%s\nwant:\n%s", got, wantOld)
	}
	fmt.Fprintf(&golden, "== diff_text not applied\n%s", o.Text())

	const file = "testdata/impact.golden"
	got := strings.ReplaceAll(golden.String(), shortCommit(based.commit(t, "HEAD~1")), "<before>")
	got = strings.ReplaceAll(got, shortCommit(wt.commit(t, "HEAD")), "<before>")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(data) != got {
		t.Errorf("get_impact text differs from %s (go test -update rewrites it):\n%s", file, got)
	}
}

func (r *impactRepo) commit(t *testing.T, rev string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", rev)
	cmd.Dir = r.dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestImpactInitialisation: a package's initialisation runs in every test
// binary that links it, so the code it runs reaches all their tests; but
// a literal a variable stores, a function value a variable takes, and an
// initialiser of a _test.go file (which runs in its own package's binary
// alone) reach only the tests that run them. Tests a static path reaches
// are listed before those reached only through an interface.
func TestImpactInitialisation(t *testing.T) {
	platformNeutral(t)
	f := newFixture(t, "testdata/impactinit.txtar")
	tests := func(name string) string {
		t.Helper()
		o := ok[*GetImpactOutput](t, f, "get_impact", fmt.Sprintf(`{"qualified_name":%q,"path":"lib/lib.go","limit":100}`, name))
		var got []string
		for _, tt := range o.Results {
			got = append(got, tt.Dir+"."+tt.Name+":"+tt.Coverage)
		}
		return strings.Join(got, " ")
	}
	for _, tc := range []struct{ name, want string }{
		// Initialising lib runs Eager, in lib's test binary and other's.
		{"Eager", "lib.TestTotal:exact lib.TestArea:package_level lib.TestUse:package_level lib.TestValued:package_level other.TestPlain:package_level"},
		// Stored runs where registry's Run is called; Valued where
		// ValuedForTest is; Computed when lib's test binary starts.
		{"Stored", "lib.TestUse:exact"},
		{"Valued", "lib.TestValued:exact"},
		{"Computed", "lib.TestValued:exact lib.TestArea:package_level lib.TestTotal:package_level lib.TestUse:package_level"},
		{"Square.Area", "lib.TestArea:exact lib.TestTotal:candidate"},
	} {
		if got := tests(tc.name); got != tc.want {
			t.Errorf("tests named for a change to %s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// shortCommit is a commit id as the text of get_impact abbreviates it.
func shortCommit(id string) string { return id[:min(len(id), 12)] }
