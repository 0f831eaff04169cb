package impact

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// The kinds of test function go test runs.
const (
	testKindTest      = "test"
	testKindBenchmark = "benchmark"
	testKindExample   = "example"
	testKindFuzz      = "fuzz"
	testKindMain      = "main" // TestMain: runs around every test of its package
)

// testEntryKind says which kind of test function the testing framework
// runs s as, or "" when it is none: a package-level function of a
// _test.go file named Test, Benchmark, Example or Fuzz followed by
// nothing or a character that is not a lower-case letter, taking what
// that kind takes.
func testEntryKind(s *graph.Symbol) string {
	if graph.LanguageOf(s.Path) == graph.LanguagePython {
		return pytestKind(s)
	}
	if s.Kind != graph.KindFunc || !strings.HasSuffix(s.Path, "_test.go") {
		return ""
	}
	for _, k := range []struct{ prefix, kind, param string }{
		{"Test", testKindTest, "testing.T)"}, {"Benchmark", testKindBenchmark, "testing.B)"},
		{"Fuzz", testKindFuzz, "testing.F)"}, {"Example", testKindExample, "()"},
	} {
		rest, ok := strings.CutPrefix(s.Name, k.prefix)
		if !ok || blind.IsLowerStart(rest) {
			continue
		}
		if s.Name == "TestMain" {
			if strings.Contains(s.Signature, "testing.M)") {
				return testKindMain
			}
			return ""
		}
		if s.Signature != "" && !strings.Contains(s.Signature, k.param) {
			return ""
		}
		return k.kind
	}
	return ""
}

// collectTests lists the tests the change runs: those the walk reached,
// or with a recording that speaks for some of the change, those it saw
// run it and those the static reach finds for the rest (recordedRun.merge);
// then the go test lines that run them.
func (a *run) collectTests(ctx context.Context) error {
	tests, err := a.walk.tests(ctx)
	if err != nil {
		return err
	}
	if a.rec != nil && len(a.rec.keys) > 0 {
		if tests, err = a.rec.merge(ctx, a, tests); err != nil {
			return err
		}
	} else {
		for i := range tests {
			tests[i].Source = SourceStatic
		}
	}
	a.tests = tests
	// The tests a recording or a static path reaches come first: the
	// others are reached only through a call through an interface or
	// function value, or through initialisation, and may not run the
	// change at all.
	sort.SliceStable(a.tests, func(i, j int) bool {
		x, y := a.tests[i], a.tests[j]
		if rx, ry := coverageRank(graph.Coverage(x.Coverage)), coverageRank(graph.Coverage(y.Coverage)); rx != ry {
			return rx < ry
		}
		if x.Dir != y.Dir {
			return x.Dir < y.Dir
		}
		return x.Name < y.Name
	})
	cmds, err := testCommands(ctx, a.g, a.v.Reader(), a.repo.Modules, a.tests)
	a.cmds = append(a.cmds, cmds...)
	a.cmds = append(a.cmds, scriptCommands(ctx, a.g, a.repo.Root, a.tests)...)
	return err
}

// tests lists the tests the walk reached: directly, through a TestMain,
// and through package initialisation, which runs in every test binary
// that links the package.
func (w *walker) tests(ctx context.Context) ([]Test, error) {
	var tests []Test
	found := map[string]*Test{}   // by dir + name
	fromOf := map[string]string{} // by dir + name: the reached key the test's way in goes through
	add := func(t Test, from string) {
		k := t.Dir + "\x00" + t.Name
		if !strings.HasSuffix(t.Path, ".go") {
			k = t.Path + "\x00" + t.Name // a runner names a test within its file
		}
		if old, ok := found[k]; ok && (old.Via != viaInit || t.Via == viaInit) {
			return // the first (nearest) way in is kept; a direct one beats init
		}
		found[k] = &t
		fromOf[k] = from
	}
	var mains []*reached
	for _, k := range w.order {
		n := w.nodes[k]
		kind := n.test
		switch kind {
		case "":
			continue
		case testKindMain:
			mains = append(mains, n)
			continue
		}
		name := n.sym.Name
		if !n.sym.IsGo() {
			name = n.sym.QualifiedName // pytest's Class.test_x
		}
		add(Test{Name: name, Kind: kind, Package: n.sym.PackagePath, Dir: path.Dir(n.sym.Path),
			Path: n.sym.Path, Line: n.sym.StartLine, Depth: n.depth, Coverage: string(n.coverage), Via: n.via, Reach: w.reach(k)}, k)
	}
	// A TestMain runs every test of its package's binary around it.
	for _, m := range mains {
		all, err := w.g.tests.in(ctx, w.v.Reader(), w.g.repo, path.Dir(m.sym.Path))
		if err != nil {
			return nil, err
		}
		for _, t := range all {
			t.Depth, t.Coverage, t.Via = m.depth+1, string(m.coverage), viaTestMain
			t.Reach = append([]string{t.Name}, w.reach(m.sym.Key)...)
			add(t, m.sym.Key)
		}
	}
	var files []graph.File // read once a fixture of pytest is reached
	listFiles := func() ([]graph.File, error) {
		if files != nil {
			return files, nil
		}
		fs, err := w.v.Reader().Files(ctx, w.repo)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading files")
		}
		files = append(fs, graph.File{})[:len(fs)]
		return files, nil
	}
	if err := collectScriptTests(ctx, w, w.g, w.root, listFiles, add); err != nil {
		return nil, err
	}
	// Uses at file level run at initialisation when they are calls of a
	// reached function.
	for p, target := range w.fileLevel {
		if n := w.nodes[target]; n != nil && n.sym.Kind.IsFunction() {
			if f, err := w.v.Reader().File(ctx, w.repo, p); err == nil && f.Package != "" {
				if f.Test {
					if d := path.Dir(p); w.testInit[d] == "" {
						w.testInit[d] = target
					}
				} else if _, ok := w.initPkgs[f.Package]; !ok {
					w.initPkgs[f.Package] = target
				}
			}
		}
	}
	// The test binaries whose initialisation runs reached code, each to
	// the reached key that is run.
	type initRun struct{ what, key string } // what is initialised, and the reached key it runs
	initBy := map[string]initRun{}
	if len(w.initPkgs) > 0 {
		dirs, err := w.g.linkers(ctx, w.v, w.root, sortedKeys(w.initPkgs))
		if err != nil {
			return nil, err
		}
		for d, why := range dirs {
			initBy[d] = initRun{why, w.initPkgs[why]}
		}
	}
	for d, k := range w.testInit {
		if _, ok := initBy[d]; !ok {
			initBy[d] = initRun{"the test files of " + d, k}
		}
	}
	for _, d := range sortedKeys(initBy) {
		run := initBy[d]
		n := w.nodes[run.key]
		all, err := w.g.tests.in(ctx, w.v.Reader(), w.g.repo, d)
		if err != nil {
			return nil, err
		}
		for _, t := range all {
			t.Coverage, t.Via = string(graph.CoveragePackageLevel), viaInit
			t.Depth = 1
			t.Reach = []string{t.Name, "(initialisation of " + run.what + ")"}
			from := ""
			if n != nil {
				t.Depth = n.depth + 1
				t.Reach = append(t.Reach, w.reach(n.sym.Key)...)
			}
			add(t, from)
		}
	}
	// A test can run only code its test binary links: drop the tests
	// that a call through an interface or function value reached from a
	// package directory whose binary does not link the changed code.
	links := map[string]map[string]string{} // package of a change -> directories linking it
	for k, t := range found {
		if seed := w.seedOf(fromOf[k]); seed.PackagePath != "" && seed.IsGo() {
			l, ok := links[seed.PackagePath]
			if !ok {
				var err error
				if l, err = w.g.linkersOf(ctx, w.v, w.root, seed.PackagePath); err != nil {
					return nil, err
				}
				links[seed.PackagePath] = l
			}
			if _, ok := l[t.Dir]; !ok {
				continue
			}
		}
		tests = append(tests, *t)
	}
	return tests, nil
}

// linkers returns the package directories whose test binaries link one of
// the packages: the packages themselves and every package importing them,
// directly or not, with its tests (external test packages included), each
// to the package of paths it links.
func (g *cache) linkers(ctx context.Context, v *session.View, root string, paths []string) (map[string]string, error) {
	out := map[string]string{}
	why := map[string]string{}
	queue := append([]string{}, paths...)
	for _, p := range paths {
		why[p] = p
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if d, ok := g.dirOf[p]; ok {
			if _, seen := out[d]; !seen {
				out[d] = why[p]
			}
		}
		for _, r := range g.imports[p] {
			d := path.Dir(r.Path)
			if _, seen := out[d]; !seen {
				out[d] = why[p]
			}
			if r.TestOnly {
				continue // test packages are imported by nothing
			}
			for _, q := range g.pkgDirs[d] {
				if !q.TestOnly && !strings.HasSuffix(q.Path, "_test") {
					if _, seen := why[q.Path]; !seen {
						why[q.Path] = why[p]
						queue = append(queue, q.Path)
					}
				}
			}
		}
	}
	// The index may lack the imports of a test file whose import is
	// built again for that test (an external test importing a package
	// that imports the one under test): read the test files' imports.
	byDir, err := g.testImports(ctx, v, root)
	if err != nil {
		return nil, err
	}
	for d, imps := range byDir {
		if _, ok := out[d]; ok {
			continue
		}
		for _, imp := range imps {
			if w, ok := why[imp]; ok {
				out[d] = w
				break
			}
		}
	}
	return out, nil
}

// testCommands writes one go test line per Go package directory for its tests,
// examples and fuzz targets (their seed corpora), and one for its
// benchmarks. A directory all of whose tests are named runs whole.
func testCommands(ctx context.Context, g *cache, r graph.Reader, modules []graph.Module, tests []Test) ([]TestCommand, error) {
	var cmds []TestCommand
	byDir := map[string][]Test{}
	for _, t := range tests {
		if strings.HasSuffix(t.Path, ".go") { // scriptCommands writes the others
			byDir[t.Dir] = append(byDir[t.Dir], t)
		}
	}
	for _, d := range sortedKeys(byDir) {
		var run, bench []string
		for _, t := range byDir[d] {
			if t.Kind == testKindBenchmark {
				bench = append(bench, t.Name)
			} else {
				run = append(run, t.Name)
			}
		}
		goCmd, pkg := goPackageArg(modules, d)
		if len(run) > 0 {
			cmd := goCmd + " -run '^(" + strings.Join(run, "|") + ")$' " + pkg
			if len(run) > 10 {
				all, err := g.tests.in(ctx, r, g.repo, d)
				if err != nil {
					return nil, err
				}
				n := 0
				for _, t := range all {
					if t.Kind != testKindBenchmark {
						n++
					}
				}
				if n == len(run) {
					cmd = goCmd + " " + pkg
				}
			}
			cmds = append(cmds, TestCommand{Dir: d, Command: cmd, Tests: len(run)})
		}
		if len(bench) > 0 {
			cmds = append(cmds, TestCommand{Dir: d, Command: goCmd + " -run '^$' -bench '^(" + strings.Join(bench, "|") + ")$' " + pkg, Tests: len(bench)})
		}
	}
	return cmds, nil
}

// goPackageArg spells go test and dir for a command run from the
// repository root: go test ./dir, or go -C mod test ./rel for a
// directory of a module nested in the repository.
func goPackageArg(modules []graph.Module, dir string) (string, string) {
	mod := "."
	for _, m := range modules {
		if m.Dir != "." && (dir == m.Dir || strings.HasPrefix(dir, m.Dir+"/")) && len(m.Dir) > len(mod) {
			mod = m.Dir
		}
	}
	rel := dir
	cmd := "go test"
	if mod != "." {
		rel = strings.TrimPrefix(strings.TrimPrefix(dir, mod), "/")
		cmd = fmt.Sprintf("go -C %s test", mod)
	}
	if rel == "" || rel == "." {
		return cmd, "."
	}
	return cmd, "./" + rel
}
