package impact

import (
	"context"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/outline"
	"github.com/sextant-dev/sextant/internal/session"
)

// The tests of TypeScript, JavaScript and Python are their runners':
// pytest collects test* functions and the test* methods of Test* classes
// (unittest's TestCase classes among them) from test_*.py and *_test.py
// files; jest and vitest run the it and test blocks, inside describe
// blocks, of *.test.*, *.spec.* and __tests__ files. A Python test is a
// symbol the walk reaches and stops at; a block is not a symbol, so the
// uses at file level in a test file (which is where a block's code is)
// are placed in their blocks by the file's syntax (outline.ScriptTests).

// The test runners a command line is written for.
const (
	runnerPytest = "pytest"
	runnerJest   = "jest"
	runnerVitest = "vitest"
)

// scriptTestFile reports whether p is a test file of a language read
// through SCIP.
func scriptTestFile(p string) bool { return !strings.HasSuffix(p, ".go") && graph.TestFile(p) }

// pytestKind is testEntryKind for a Python symbol: test for a test*
// function of a test file, or a test* method of its Test* class.
func pytestKind(s *graph.Symbol) string {
	if !graph.PytestFile(s.Path) || !strings.HasPrefix(s.Name, "test") {
		return ""
	}
	class, _, method := strings.Cut(s.QualifiedName, ".")
	switch {
	case !method && s.Kind == graph.KindFunc:
		return testKindTest
	case method && s.Kind == graph.KindMethod && strings.HasPrefix(class, "Test") && !strings.Contains(s.QualifiedName[len(class)+1:], "."):
		return testKindTest
	}
	return ""
}

// unittestClass reports whether a class's first line makes it a
// unittest.TestCase, which pytest collects whatever its name:
// class GeometryTests(unittest.TestCase), or a TestCase of its own
// (IsolatedAsyncioTestCase, django's TestCase).
func unittestClass(sig string) bool {
	_, bases, ok := strings.Cut(sig, "(")
	return ok && strings.Contains(bases, "TestCase")
}

// scriptTest is one test of a test file as its syntax has it: a Python
// test (Class.test_x, or test_x), or a jest or vitest block.
type scriptTest struct {
	name          string // Class.test_x, or the describe names and the block's, joined by " > "
	names         []string
	each          []bool // js: which of names is a table's, with placeholders
	line, endLine int
	blocks        []int  // js: the block and the describes around it, innermost first
	params        string // Python: the def's parameters, which name the fixtures it takes
}

// scriptTestsOf returns the tests of the test file p, read from the disk
// under root (nil when it cannot be read), kept for the calls that
// follow. A js file's blocks come too, for placing uses in them.
func (g *cache) scriptTestsOf(ctx context.Context, root, p string) ([]scriptTest, []outline.TestBlock) {
	g.mu.Lock()
	kept, ok := g.scriptTests[p]
	g.mu.Unlock()
	if ok {
		return kept.tests, kept.blocks
	}
	var k keptScriptTests
	if src, err := session.ReadFile(root, p); err == nil {
		lines := strings.Split(string(src), "\n")
		if graph.PytestFile(p) {
			if f, err := outline.ParseScript(ctx, p, src, graph.LanguagePython); err == nil {
				for _, e := range f.Entries {
					if e.Kind == "func" && strings.HasPrefix(e.Name, "test") {
						k.tests = append(k.tests, scriptTest{name: e.Name, names: []string{e.Name}, line: e.StartLine, endLine: e.EndLine,
							params: defParams(lines, e.StartLine, e.EndLine)})
					}
					if e.Kind != "type" || !strings.HasPrefix(e.Name, "Test") && !unittestClass(e.Signature) {
						continue
					}
					for _, m := range e.Members {
						if m.Kind == "method" && strings.HasPrefix(m.Name, "test") {
							k.tests = append(k.tests, scriptTest{name: e.Name + "." + m.Name, names: []string{e.Name, m.Name}, line: m.StartLine, endLine: m.EndLine,
								params: defParams(lines, m.StartLine, m.EndLine)})
						}
					}
				}
			}
		} else {
			k.blocks = outline.ScriptTests(src)
			for i, b := range k.blocks {
				if b.Suite {
					continue
				}
				t := scriptTest{line: b.Line, endLine: b.EndLine}
				skipped := false
				for j := i; j >= 0; j = k.blocks[j].Parent {
					t.blocks = append(t.blocks, j)
					t.names = append([]string{k.blocks[j].Name}, t.names...)
					t.each = append([]bool{k.blocks[j].Each}, t.each...)
					skipped = skipped || k.blocks[j].Skipped
				}
				if !skipped {
					t.name = strings.Join(t.names, " > ")
					k.tests = append(k.tests, t)
				}
			}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.scriptTests == nil {
		g.scriptTests = map[string]keptScriptTests{}
	}
	g.scriptTests[p] = k
	return k.tests, k.blocks
}

// defParams is the parameter list of the def on lines from to to
// (1-based), decorators before it skipped: the text between its
// parentheses.
func defParams(lines []string, from, to int) string {
	var b strings.Builder
	depth, opened := 0, false
	for l := max(from, 1); l <= min(to, len(lines)); l++ {
		s := lines[l-1]
		if !opened {
			i := strings.Index(s, "def ")
			if i < 0 {
				continue
			}
			j := strings.IndexByte(s[i:], '(')
			if j < 0 {
				continue
			}
			s, opened = s[i+j:], true
		}
		for _, c := range s {
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth--; depth == 0 {
					return b.String()
				}
			}
			if depth > 0 && !(depth == 1 && c == '(') {
				b.WriteRune(c)
			}
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// pytestFixture reports whether the Python function on lines from its
// first (decorators included) is a pytest fixture, and one every test in
// its scope uses (autouse).
func pytestFixture(lines []string, first int) (fixture, autouse bool) {
	for l := max(first, 1); l <= len(lines); l++ {
		s := strings.TrimSpace(lines[l-1])
		if !strings.HasPrefix(s, "@") {
			break
		}
		if strings.Contains(s, "fixture") {
			fixture, autouse = true, autouse || strings.Contains(s, "autouse=True")
		}
	}
	return fixture, autouse
}

// keptScriptTests is what scriptTestsOf read of one file.
type keptScriptTests struct {
	tests  []scriptTest
	blocks []outline.TestBlock
}

// testsAt returns the tests of a file that run its line: the innermost
// block holding the line, or every test of the describe holding it, or
// of the file when nothing does (code run as the file loads). whole says
// the line is outside every test.
func testsAt(tests []scriptTest, blocks []outline.TestBlock, line int) (out []scriptTest, whole bool) {
	inner := -1
	for i, b := range blocks {
		if b.Line <= line && line <= b.EndLine {
			inner = i // blocks are outer before inner
		}
	}
	if inner < 0 {
		return tests, true
	}
	if blocks[inner].Skipped {
		return nil, false
	}
	for _, t := range tests {
		if slices.Contains(t.blocks, inner) {
			out = append(out, t)
		}
	}
	return out, blocks[inner].Suite
}

// collectScriptTests adds the tests of TypeScript, JavaScript and Python
// that the walk reached: the js blocks holding a use at file level of a
// reached declaration, and every test of a test file whose module-level
// code uses one (a Python test function or method is a reached node,
// added with Go's).
func collectScriptTests(ctx context.Context, w *walker, g *cache, root string, files func() ([]graph.File, error), add func(Test, string)) error {
	for _, p := range sortedKeys(w.scriptUses) {
		if !scriptTestFile(p) {
			continue
		}
		tests, blocks := g.scriptTestsOf(ctx, root, p)
		for _, u := range w.scriptUses[p] {
			n := w.nodes[u.key]
			if n == nil {
				continue
			}
			at, whole := testsAt(tests, blocks, u.line)
			for _, st := range at {
				t := Test{Name: st.name, Kind: testKindTest, Package: path.Dir(p), Dir: path.Dir(p), Path: p, Line: st.line,
					Depth: n.depth + 1, Coverage: string(n.coverage), Via: u.via, Reach: append([]string{st.name}, w.reach(u.key)...)}
				if whole {
					t.Via = viaInit // the code of the file or a describe, run as it loads
				}
				add(t, u.key)
			}
		}
	}
	// A variable or constant of a test file's module level that a
	// change reaches runs as the file loads, for each of its tests; a
	// test method of a unittest class not named Test is a test too, which
	// its class's first line says (pytestKind has its name alone).
	for _, k := range w.order {
		n := w.nodes[k]
		s := n.sym
		if n.test == "" && s.Kind == graph.KindFunc && s.Parent == "" && (graph.PytestFile(s.Path) || path.Base(s.Path) == "conftest.py") {
			if err := fixtureTests(ctx, w, g, root, files, k, add); err != nil {
				return err
			}
			continue
		}
		if n.test == "" && s.Kind == graph.KindMethod && graph.PytestFile(s.Path) && strings.HasPrefix(s.Name, "test") {
			tests, _ := g.scriptTestsOf(ctx, root, s.Path)
			if slices.ContainsFunc(tests, func(st scriptTest) bool { return st.name == s.QualifiedName }) {
				n.test = testKindTest // not an affected declaration
				add(Test{Name: s.QualifiedName, Kind: testKindTest, Package: s.PackagePath, Dir: path.Dir(s.Path), Path: s.Path, Line: s.StartLine,
					Depth: n.depth, Coverage: string(n.coverage), Via: n.via, Reach: w.reach(k)}, k)
			}
			continue
		}
		if s.IsGo() || !scriptTestFile(s.Path) || s.Parent != "" || s.Kind != graph.KindVar && s.Kind != graph.KindConst {
			continue
		}
		tests, _ := g.scriptTestsOf(ctx, root, s.Path)
		for _, st := range tests {
			add(Test{Name: st.name, Kind: testKindTest, Package: path.Dir(s.Path), Dir: path.Dir(s.Path), Path: s.Path, Line: st.line,
				Depth: n.depth + 1, Coverage: string(n.coverage), Via: viaInit, Reach: append([]string{st.name}, w.reach(k)...)}, k)
		}
	}
	return nil
}

// fixtureTests adds the tests that take the pytest fixture key, when it
// is one: those of its scope (its file; a conftest.py's directory and
// below) that name it as a parameter, or all of them for an autouse
// fixture. A fixture taking it is not followed.
func fixtureTests(ctx context.Context, w *walker, g *cache, root string, listFiles func() ([]graph.File, error), key string, add func(Test, string)) error {
	n := w.nodes[key]
	s := n.sym
	src, err := session.ReadFile(root, s.Path)
	if err != nil {
		return nil // gone since the index: nothing to say of it
	}
	fixture, autouse := pytestFixture(strings.Split(string(src), "\n"), s.StartLine)
	if !fixture {
		return nil
	}
	files, err := listFiles()
	if err != nil {
		return err
	}
	name := regexp.MustCompile(`(^|[^\w])` + regexp.QuoteMeta(s.Name) + `([^\w]|$)`)
	scope := path.Dir(s.Path) + "/"
	for _, f := range files {
		if !graph.PytestFile(f.Path) || f.Path != s.Path && (path.Base(s.Path) != "conftest.py" || scope != "./" && !strings.HasPrefix(f.Path, scope)) {
			continue
		}
		tests, _ := g.scriptTestsOf(ctx, root, f.Path)
		for _, st := range tests {
			if !autouse && !name.MatchString(st.params) {
				continue
			}
			t := Test{Name: st.name, Kind: testKindTest, Package: path.Dir(f.Path), Dir: path.Dir(f.Path), Path: f.Path, Line: st.line,
				Depth: n.depth + 1, Coverage: string(n.coverage), Via: viaReference, Reach: append([]string{st.name}, w.reach(key)...)}
			if autouse {
				t.Via = viaInit
			}
			add(t, key)
		}
	}
	return nil
}

// scriptCommands writes the command lines that run exactly the tests of
// TypeScript, JavaScript and Python among tests, each from the directory
// of the project that runs it (a cd first, to run from the repository
// root): python -m pytest with the tests' node ids, one line a project;
// npx vitest run or npx jest with the file and a pattern of the tests'
// full names, one line a file. A runner the project does not name is
// assumed, and the line says so in a shell comment.
func scriptCommands(ctx context.Context, g *cache, root string, tests []Test) []TestCommand {
	type group struct {
		dir, runner, assumed string
		files                map[string][]Test
	}
	groups := map[string]*group{}
	var order []string
	for _, t := range tests {
		var dir, runner, assumed string
		key := t.Path
		switch {
		case graph.PytestFile(t.Path):
			dir, assumed = pythonProject(root, path.Dir(t.Path))
			runner, key = runnerPytest, dir
		case scriptTestFile(t.Path):
			dir, runner, assumed = jsRunner(root, t.Path)
		default:
			continue
		}
		gr := groups[key]
		if gr == nil {
			gr = &group{dir: dir, runner: runner, assumed: assumed, files: map[string][]Test{}}
			groups[key] = gr
			order = append(order, key)
		}
		gr.files[t.Path] = append(gr.files[t.Path], t)
	}
	sort.Strings(order)
	var cmds []TestCommand
	for _, key := range order {
		gr := groups[key]
		cd := ""
		if gr.dir != "." {
			cd = "cd " + shellArg(gr.dir) + " && "
		}
		rel := func(p string) string {
			if gr.dir == "." {
				return p
			}
			return strings.TrimPrefix(p, gr.dir+"/")
		}
		n := 0
		var args []string
		for _, p := range sortedKeys(gr.files) {
			ts := gr.files[p]
			n += len(ts)
			all, _ := g.scriptTestsOf(ctx, root, p)
			byLine := func(ts []Test) { sort.SliceStable(ts, func(i, j int) bool { return ts[i].Line < ts[j].Line }) }
			byLine(ts)
			var names []scriptTest
			for _, t := range ts {
				i := slices.IndexFunc(all, func(st scriptTest) bool { return st.name == t.Name })
				switch {
				case i >= 0:
					names = append(names, all[i])
				case gr.runner == runnerPytest:
					names = append(names, scriptTest{names: strings.Split(t.Name, ".")})
				default:
					names = append(names, scriptTest{names: strings.Split(t.Name, " > ")})
				}
			}
			every := len(ts) > 10 && len(ts) == len(all)
			switch gr.runner {
			case runnerPytest:
				if every {
					args = append(args, shellArg(rel(p)))
					continue
				}
				for _, nm := range names {
					args = append(args, shellArg(rel(p)+"::"+strings.Join(nm.names, "::")))
				}
			default:
				cmd := cd + "npx vitest run " + shellArg(rel(p))
				sep, prefix := "( > | )", " ?"
				if gr.runner == runnerJest {
					cmd, sep, prefix = cd+"npx jest --runTestsByPath "+shellArg(rel(p)), " ", ""
				}
				if !every {
					pats := make([]string, len(names))
					for i, nm := range names {
						q := make([]string, len(nm.names))
						for j, s := range nm.names {
							q[j] = regexp.QuoteMeta(s)
							if j < len(nm.each) && nm.each[j] {
								q[j] = tablePattern(s)
							}
						}
						pats[i] = strings.Join(q, sep)
					}
					cmd += " -t " + shellQuote("^"+prefix+"("+strings.Join(pats, "|")+")$")
				}
				cmds = append(cmds, TestCommand{Dir: path.Dir(p), Command: cmd + gr.assumed, Tests: len(ts)})
			}
		}
		if gr.runner == runnerPytest && len(args) > 0 {
			cmds = append(cmds, TestCommand{Dir: gr.dir, Command: cd + "python -m pytest " + strings.Join(args, " ") + gr.assumed, Tests: n})
		}
	}
	return cmds
}

// tablePlaceholder is a placeholder of a table's test name, which jest
// and vitest fill with each row's values: printf's (%s, %i, %p, %#), or a
// column of a template table ($a, $a.b).
var tablePlaceholder = regexp.MustCompile(`%[sdifjoOpc#$]|\$[A-Za-z_$][\w$]*(?:\.[\w$]+)*`)

// tablePattern is a pattern of the names a table's test name gives, its
// placeholders any text; %% is a %.
func tablePattern(name string) string {
	var b strings.Builder
	for i, part := range strings.Split(name, "%%") {
		if i > 0 {
			b.WriteString("%")
		}
		last := 0
		for _, m := range tablePlaceholder.FindAllStringIndex(part, -1) {
			b.WriteString(regexp.QuoteMeta(part[last:m[0]]) + ".*")
			last = m[1]
		}
		b.WriteString(regexp.QuoteMeta(part[last:]))
	}
	return b.String()
}

// pythonProject returns the directory pytest runs from for tests in dir:
// the nearest at or above it with a pyproject.toml, setup.cfg, setup.py,
// pytest.ini or tox.ini, else the repository's; and a shell comment when
// none of those names pytest.
func pythonProject(root, dir string) (string, string) {
	for d := dir; ; d = path.Dir(d) {
		found := false
		for _, f := range []string{"pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "setup.py"} {
			src, err := session.ReadFile(root, path.Join(d, f))
			if err != nil {
				continue
			}
			found = true
			if strings.Contains(string(src), "pytest") {
				return d, ""
			}
		}
		if found || d == "." {
			if _, err := session.ReadFile(root, path.Join(dir, "conftest.py")); err == nil {
				return d, "" // pytest's own file
			}
			return d, "  # pytest assumed: " + d + " names no test runner"
		}
	}
}

// jsRunner returns the directory and runner of a js test file: the
// runner its imports name (vitest, @jest/globals), or the one the nearest
// package.json at or above it names in its scripts or dependencies, run
// from that package.json's directory; jest when none does, said in a
// shell comment.
func jsRunner(root, p string) (dir, runner, assumed string) {
	if src, err := session.ReadFile(root, p); err == nil {
		switch s := string(src); {
		case strings.Contains(s, `"vitest"`) || strings.Contains(s, `'vitest'`):
			runner = runnerVitest
		case strings.Contains(s, `"@jest/globals"`) || strings.Contains(s, `'@jest/globals'`):
			runner = runnerJest
		}
	}
	nearest := ""
	for d := path.Dir(p); ; d = path.Dir(d) {
		if src, err := session.ReadFile(root, path.Join(d, "package.json")); err == nil {
			if nearest == "" {
				nearest = d
			}
			if r := packageRunner(src); r != "" && (runner == "" || r == runner) {
				return d, r, ""
			}
		}
		if d == "." {
			break
		}
	}
	if nearest == "" {
		nearest = "."
	}
	if runner != "" {
		return nearest, runner, ""
	}
	return nearest, runnerJest, "  # jest assumed: no package.json names jest or vitest"
}

// packageRunner is the test runner a package.json names: vitest or jest
// in its scripts or dependencies, "" for neither.
func packageRunner(src []byte) string {
	var pkg struct {
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if json.Unmarshal(src, &pkg) != nil {
		return ""
	}
	for _, r := range []string{runnerVitest, runnerJest} {
		if _, ok := pkg.DevDependencies[r]; ok {
			return r
		}
		if _, ok := pkg.Dependencies[r]; ok {
			return r
		}
		for _, s := range pkg.Scripts {
			if slices.Contains(strings.Fields(s), r) {
				return r
			}
		}
	}
	return ""
}

// shellArg quotes s for a POSIX shell when it holds more than letters,
// digits and ./_-:
func shellArg(s string) string {
	for _, c := range s {
		if !(c == '.' || c == '/' || c == '_' || c == '-' || c == ':' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return shellQuote(s)
		}
	}
	return s
}

// shellQuote quotes s in single quotes for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
