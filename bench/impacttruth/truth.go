// Package impacttruth measures which tests run each function of a Go
// module: the truth get_impact's test selection is scored against.
//
// For each package with tests it builds the test binary once with
// coverage of every package of the module (go test -c -cover
// -coverpkg=MODULE/...), runs every test, example and fuzz target alone
// (-test.run '^Name$') and every benchmark once (-test.benchtime 1x),
// each with its own coverage profile, and maps the blocks that ran to the
// function and method declarations containing them. Code run while a test
// binary starts (init functions, package variables) counts for every test
// of that binary, as it does for a developer who runs one.
//
// It runs the module's tests: use it on a copy of a pinned module in a
// temporary directory, never on code nobody vetted.
package impacttruth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/sextant-dev/sextant/internal/syntax"
	"github.com/sextant-dev/sextant/internal/testrec"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Truth is what the tests of a module run.
type Truth struct {
	Module   string
	Dir      string
	Packages map[string]*Package // by import path
	// Funcs maps each function or method that some test runs, spelled
	// "import/path.Name" or "import/path.Type.Method", to the tests that
	// run it, spelled "import/path.TestName" (the path of the package
	// directory the test is in), sorted.
	Funcs map[string][]string
	// Decls are the function and method declarations of the module's
	// non-test files, with their lines, by the same names as Funcs.
	Decls   map[string]Decl
	Tests   int           // tests, benchmarks, examples and fuzz targets run
	Failed  []string      // of those, the ones whose run failed (their coverage still counts)
	Elapsed time.Duration // the whole measurement
}

// Package is one package of the module.
type Package struct {
	Path    string
	Dir     string   // relative to the module directory, forward slashes
	Tests   []string // names of its tests, benchmarks, examples and fuzz targets
	Imports []string // module packages its files and test files import directly
}

// Decl is one function or method declaration.
type Decl struct {
	Package   string // import path
	Path      string // file, relative to the module directory
	Name      string // qualified name: Name or Type.Method
	StartLine int
	EndLine   int
}

// Options tune Build.
type Options struct {
	// Packages limits the packages whose tests run (import paths); nil
	// runs them all. Coverage still spans the whole module.
	Packages []string
	// Workers run tests in parallel (default 2).
	Workers int
	// TestTimeout bounds one test's run (default 2 minutes).
	TestTimeout time.Duration
	// Log, when set, hears progress.
	Log func(format string, args ...any)
}

// listed is what go list says of a package.
type listed struct {
	ImportPath, Dir, Name              string
	GoFiles, CgoFiles                  []string
	TestGoFiles, XTestGoFiles          []string
	Imports, TestImports, XTestImports []string
	Module                             *struct{ Path, Dir string }
}

// Build measures the truth of the module in dir.
func Build(ctx context.Context, dir string, opt Options) (*Truth, error) {
	start := time.Now()
	if opt.Workers <= 0 {
		opt.Workers = 2
	}
	if opt.TestTimeout <= 0 {
		opt.TestTimeout = 2 * time.Minute
	}
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	pkgs, module, err := list(ctx, dir)
	if err != nil {
		return nil, err
	}
	t := &Truth{Module: module, Dir: dir, Packages: map[string]*Package{}, Funcs: map[string][]string{}, Decls: map[string]Decl{}}
	fset := token.NewFileSet()
	fileDecls := map[string][]Decl{} // by profile file name (import path/file.go)
	for _, p := range pkgs {
		rel, _ := filepath.Rel(dir, p.Dir)
		rel = filepath.ToSlash(rel)
		pk := &Package{Path: p.ImportPath, Dir: rel}
		seen := map[string]bool{}
		for _, list := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, imp := range list {
				if (imp == module || strings.HasPrefix(imp, module+"/")) && imp != p.ImportPath && !seen[imp] {
					seen[imp] = true
					pk.Imports = append(pk.Imports, imp)
				}
			}
		}
		sort.Strings(pk.Imports)
		t.Packages[p.ImportPath] = pk
		for _, name := range append(append([]string{}, p.GoFiles...), p.CgoFiles...) {
			ds, err := declsOf(fset, p.ImportPath, filepath.Join(p.Dir, name), path(rel, name))
			if err != nil {
				return nil, err
			}
			fileDecls[p.ImportPath+"/"+name] = ds
			for _, d := range ds {
				t.Decls[d.Package+"."+d.Name] = d
			}
		}
	}
	want := map[string]bool{}
	for _, p := range opt.Packages {
		want[p] = true
	}
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("impacttruth-%d", os.Getpid()))
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	runs := map[string]map[string]bool{} // func -> tests
	var mu sync.Mutex
	for _, p := range pkgs {
		if len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 || (len(want) > 0 && !want[p.ImportPath]) {
			continue
		}
		// Named as go test names it: a test may look at its own name
		// (cobra's commands read os.Args unless it is cobra.test).
		exeDir := filepath.Join(bin, strings.ReplaceAll(p.ImportPath, "/", "_"))
		if err := os.MkdirAll(exeDir, 0o700); err != nil {
			return nil, err
		}
		exe := filepath.Join(exeDir, testrec.BinaryName(p.ImportPath))
		bstart := time.Now()
		build := exec.CommandContext(ctx, "go", "test", "-c", "-cover", "-covermode=set", "-coverpkg="+module+"/...", "-o", exe, ".")
		build.Dir = p.Dir
		if out, err := build.CombinedOutput(); err != nil {
			logf("%s: test build failed, skipped: %v\n%s", p.ImportPath, err, out)
			continue
		}
		names, err := listTests(ctx, exe, p.Dir)
		if err != nil {
			logf("%s: listing tests: %v", p.ImportPath, err)
			continue
		}
		t.Packages[p.ImportPath].Tests = names
		logf("%s: built in %s, %d tests", p.ImportPath, time.Since(bstart).Round(time.Millisecond), len(names))
		work := make(chan string)
		var wg sync.WaitGroup
		for w := 0; w < opt.Workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				prof := filepath.Join(bin, fmt.Sprintf("w%d.cov", w))
				for name := range work {
					ok, blocks := runOne(ctx, exe, p.Dir, name, prof, opt.TestTimeout)
					test := p.ImportPath + "." + name
					mu.Lock()
					t.Tests++
					if !ok {
						t.Failed = append(t.Failed, test)
					}
					for _, b := range blocks {
						for _, d := range fileDecls[b.file] {
							if b.line >= d.StartLine && b.line <= d.EndLine {
								id := d.Package + "." + d.Name
								if runs[id] == nil {
									runs[id] = map[string]bool{}
								}
								runs[id][test] = true
							}
						}
					}
					mu.Unlock()
				}
			}(w)
		}
		for _, n := range names {
			work <- n
		}
		close(work)
		wg.Wait()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	for id, tests := range runs {
		list := make([]string, 0, len(tests))
		for k := range tests {
			list = append(list, k)
		}
		sort.Strings(list)
		t.Funcs[id] = list
	}
	sort.Strings(t.Failed)
	t.Elapsed = time.Since(start)
	return t, nil
}

func path(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// list runs go list on the module in dir.
func list(ctx context.Context, dir string) ([]listed, string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-e", "-json=ImportPath,Dir,Name,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Imports,TestImports,XTestImports,Module", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	module := ""
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, "", err
		}
		if p.Module != nil && module == "" && p.Module.Dir == dir {
			module = p.Module.Path
		}
		pkgs = append(pkgs, p)
	}
	if module == "" && len(pkgs) > 0 && pkgs[0].Module != nil {
		module = pkgs[0].Module.Path
	}
	return pkgs, module, nil
}

// listTests asks a test binary for its tests, benchmarks, examples and
// fuzz targets.
func listTests(ctx context.Context, exe, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, exe, "-test.list", ".*")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "ok ") && token.IsIdentifier(l) {
			names = append(names, l)
		}
	}
	return names, nil
}

type block struct {
	file string
	line int
}

// runOne runs one test alone with a coverage profile and returns the
// blocks that ran.
func runOne(ctx context.Context, exe, dir, name, prof string, timeout time.Duration) (bool, []block) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	os.Remove(prof)
	args := []string{"-test.run", "^" + name + "$", "-test.coverprofile", prof, "-test.count", "1", "-test.timeout", timeout.String()}
	if strings.HasPrefix(name, "Benchmark") {
		args = []string{"-test.run", "^$", "-test.bench", "^" + name + "$", "-test.benchtime", "1x", "-test.coverprofile", prof, "-test.timeout", timeout.String()}
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	cmd.Stdin = nil
	err := cmd.Run()
	blocks, perr := readProfile(prof)
	return err == nil && perr == nil, blocks
}

// readProfile reads the blocks of a coverage profile that ran.
func readProfile(name string) ([]block, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []block
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "mode:") {
			continue
		}
		// file.go:L1.C1,L2.C2 N COUNT
		colon := strings.LastIndex(l, ":")
		if colon < 0 {
			continue
		}
		fields := strings.Fields(l[colon+1:])
		if len(fields) != 3 || fields[2] == "0" {
			continue
		}
		ln, err := strconv.Atoi(strings.SplitN(fields[0], ".", 2)[0])
		if err != nil {
			continue
		}
		out = append(out, block{file: l[:colon], line: ln})
	}
	return out, sc.Err()
}

// declsOf lists the function and method declarations of one file.
func declsOf(fset *token.FileSet, pkg, file, rel string) ([]Decl, error) {
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []Decl
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			name = syntax.ReceiverBase(fd.Recv.List[0].Type) + "." + name
		} else if name == "init" {
			continue // several per package; no test names them
		}
		out = append(out, Decl{Package: pkg, Path: rel, Name: name,
			StartLine: fset.Position(fd.Pos()).Line, EndLine: fset.Position(fd.End()).Line})
	}
	return out, nil
}
