package impact

import (
	"context"
	"path"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// The kinds of change a Request names.
const (
	ModeSymbol      = "symbol"       // a declaration, as it is
	ModeLines       = "lines"        // the declarations on lines of a file
	ModeWorkingTree = "working_tree" // the working tree against HEAD
	ModeBase        = "base"         // the working tree against a commit
	ModeDiffText    = "diff_text"    // a unified diff, applied or not
)

// Request is a checked get_impact call: what changed, how far to walk,
// and how to page and render the answer.
type Request struct {
	Mode       string       // one of the Mode constants
	Symbol     graph.Symbol // ModeSymbol: the changed declaration, resolved
	Repository string       // the repository File or the diff is in ("": the root's)
	File       string       // ModeLines: the changed file, as given
	Lines      string       // ModeLines: the lines, as given
	From, To   int          // ModeLines: the lines
	Base       string       // ModeBase: the commit compared with
	DiffText   string       // ModeDiffText: the diff
	Depth      int          // most steps from a change; 0: to the tests
	Format     string       // text or commands
	Budget     int          // tokens of text
	Limit      int          // rows a page
	Cursor     string       // where the page starts
	Query      string       // the fingerprint of the call the cursor belongs to
}

// Run answers req in the pinned view v: the changes, what they break,
// what they reach and the tests reaching them, paged and fitted to the
// budget.
func Run(ctx context.Context, v *session.View, req Request) (*Output, error) {
	a := &run{v: v, req: req, seedVia: map[string]string{}}
	if err := a.changes(ctx); err != nil {
		return nil, err
	}
	if err := a.breaking(ctx); err != nil {
		return nil, err
	}
	if err := a.reach(ctx); err != nil {
		return nil, err
	}
	var err error
	if a.rec, err = readRecording(ctx, a); err != nil {
		return nil, err
	}
	if err := a.collectTests(ctx); err != nil {
		return nil, err
	}
	return a.answer(ctx)
}

// run is one get_impact call: the change, then what it reaches.
type run struct {
	v   *session.View
	req Request

	repo     graph.RepositoryStatus
	g        *cache // the session's cache of what this reads of the repository
	pkgs     []graph.Package
	base     string // the commit compared with
	indexNew bool   // the index describes the new side of the change (false: a diff not applied yet)
	changed  []*changedDecl
	notes    []string

	seeds   []graph.Symbol    // the changed declarations the index has, and the code a breaking change breaks
	seedVia map[string]string // viaBreaks for the latter
	walk    *walker
	broken  []BreakingChange
	tests   []Test
	cmds    []TestCommand
	c       blind.Spots
	rec     *recordedRun // the test recording, when the store has one for the repository
}

// changes finds what the change touches, and the index's symbol for each
// declaration.
func (a *run) changes(ctx context.Context) error {
	var files []fileChange
	switch a.req.Mode {
	case ModeSymbol:
		sym := a.req.Symbol
		rp, err := a.v.Repo(sym.Repository)
		if err != nil {
			return err
		}
		a.repo = rp
		a.indexNew = true
		c := &changedDecl{dir: path.Dir(sym.Path), pkgName: sym.PackageName, test: sym.TestOnly, sym: sym, found: true}
		c.QualifiedName, c.Kind, c.Path, c.Line, c.EndLine, c.Change = sym.QualifiedName, string(sym.Kind), sym.Path, sym.StartLine, sym.EndLine, ChangeBody
		a.changed = []*changedDecl{c}
		a.fill(c)
		a.seeds = append(a.seeds, sym)
		return a.loadPackages(ctx)
	case ModeLines:
		loc, err := a.v.Locate("file", a.req.File, a.req.Repository)
		if err != nil {
			return err
		}
		if !strings.HasSuffix(loc.Rel, ".go") && !scriptSource(loc.Rel) {
			return answer.Invalid("file", "must be a Go, TypeScript, JavaScript or Python file (got %s)", loc.Rel)
		}
		content, err := session.ReadFile(loc.Repo.Root, loc.Rel)
		if err != nil {
			return session.FileError("file", loc.Rel, err)
		}
		a.repo, a.indexNew = loc.Repo, true
		a.changed = declsOnLines(loc.Rel, content, a.req.From, a.req.To)
		if len(a.changed) == 0 {
			a.notes = append(a.notes, "no declaration spans lines "+a.req.Lines+" of "+loc.Rel+" (imports, comments or blank lines)")
		}
	default:
		rp, err := a.v.Repo(a.req.Repository)
		if err != nil {
			return err
		}
		if !a.v.Session().IsRoot(rp.Root) {
			return graph.Errorf(graph.CodeOutsideRoots, "repository %s (%s) is not under this server's roots, so its files are not read", rp.Name, rp.Root)
		}
		a.repo = rp
		if a.req.Mode == ModeDiffText {
			files, a.indexNew, err = textChanges(rp.Root, a.req.DiffText)
		} else {
			files, a.base, err = gitChanges(ctx, rp.Root, a.req.Base)
			a.indexNew = true
		}
		if err != nil {
			return err
		}
		if err := a.loadPackages(ctx); err != nil {
			return err
		}
		var unparsable []string
		a.changed, unparsable = compareFiles(files, a.g.parseVersion)
		if len(unparsable) > 0 {
			a.c.Add(blind.Syntax, "%s does not parse, so the declarations the parser lost are not reported as removed or added, nor what uses them",
				blind.ListSome(unparsable, 3))
		}
		if len(files) == 0 {
			a.notes = append(a.notes, "no Go file differs")
		} else if len(a.changed) == 0 && len(unparsable) == 0 {
			a.notes = append(a.notes, "the Go files that differ change no declaration (comments, layout or imports only)")
		}
	}
	a.v.Use(a.repo.Name)
	if err := a.loadPackages(ctx); err != nil {
		return err
	}
	for _, c := range a.changed {
		if err := a.find(ctx, c); err != nil {
			return err
		}
		a.fill(c)
		if c.found {
			a.seeds = append(a.seeds, c.sym)
		}
	}
	return nil
}

func (a *run) loadPackages(ctx context.Context) error {
	if a.g != nil {
		return nil
	}
	g, err := cacheOf(ctx, a.v, a.repo.Name)
	if err != nil {
		return err
	}
	if err := g.loadPackages(ctx, a.v.Reader()); err != nil {
		return err
	}
	a.g, a.pkgs = g, g.pkgs
	return nil
}

// packageOf returns the import path of the package whose files in dir
// have the package clause name (a _test.go file with name p_test is the
// external test package).
func packageOf(pkgs []graph.Package, dir, name string) string {
	for _, p := range pkgs {
		if p.Dir == dir && p.Name == name {
			return p.Path
		}
	}
	return ""
}

// find looks up the index's symbol of a changed declaration: the one of
// its package and test variant with its qualified name, in its file for
// an init function.
func (a *run) find(ctx context.Context, c *changedDecl) error {
	if scriptSource(c.Path) {
		return findScript(ctx, a.v.Reader(), a.repo.Name, c)
	}
	c.Package = packageOf(a.pkgs, c.dir, c.pkgName)
	if c.Package == "" {
		return nil
	}
	qn := c.QualifiedName
	if qn == "init" || strings.HasPrefix(qn, "init#") {
		qn = "" // numbered across the package: matched by file and line below
	}
	syms, err := a.v.Reader().LookupSymbols(ctx, graph.Lookup{QualifiedName: qn, PackagePath: c.Package, Repository: a.repo.Name})
	if qn == "" {
		syms, err = a.initsOf(ctx, c)
	}
	if err != nil {
		return graph.Wrap(graph.CodeInternal, err, "looking up "+c.QualifiedName)
	}
	for _, s := range syms {
		if s.TestOnly != c.test || string(s.Kind) != c.Kind && !graph.SameKindFamily(graph.Kind(c.Kind), s.Kind) {
			continue
		}
		c.sym, c.found = s, true
		if s.Path == c.Path {
			break // the same file wins over one the declaration moved from
		}
	}
	return nil
}

// initsOf returns the init functions of the file of c whose lines
// overlap c's.
func (a *run) initsOf(ctx context.Context, c *changedDecl) ([]graph.Symbol, error) {
	syms, _, err := a.v.Reader().FindSymbols(ctx, graph.SymbolQuery{Name: "init", Mode: graph.MatchPrefix, Kinds: []graph.Kind{graph.KindFunc},
		Repositories: []string{a.repo.Name}, PathPrefix: c.Path})
	if err != nil {
		return nil, err
	}
	var out []graph.Symbol
	for _, s := range syms {
		if s.Path == c.Path && (s.Name == "init") && s.StartLine <= c.EndLine && s.EndLine >= c.Line {
			out = append(out, s)
		}
	}
	return out, nil
}

// fill copies the symbol's key and exportedness into the row.
func (a *run) fill(c *changedDecl) {
	if c.found {
		c.StableKey, c.Package = c.sym.Key, c.sym.PackagePath
	}
	name := c.QualifiedName
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	c.Exported = isExportedName(name) && !c.test && c.pkgName != "main"
	if scriptSource(c.Path) {
		c.Exported = c.found && c.sym.Exported
	}
}

// reach walks from the seeds, and names what the walk cannot see.
func (a *run) reach(ctx context.Context) error {
	a.walk = newWalker(a.v, a.g, a.repo.Name, a.repo.Root, a.req.Depth)
	if err := a.walk.walk(ctx, a.seeds, a.seedVia); err != nil {
		return err
	}
	w := a.walk
	a.c.AddAmended(a.repo)
	facts, err := a.v.Facts(ctx, a.repo.Name)
	if err != nil {
		return err
	}
	a.c.AddTypeErrors(facts, "calls and uses")
	if w.cut {
		a.c.Add(blind.Depth, "the walk stopped at depth %d with more callers and users to follow; omit depth to walk until the tests", a.req.Depth)
	}
	if w.stopped {
		a.c.Add(blind.MaxNodes, "the walk stopped at %d declarations; give a smaller change", maxNodes)
	}
	var methods, values, others []string
	for _, k := range w.order {
		n := w.nodes[k]
		switch {
		case n.test != "":
		case !n.sym.IsGo():
			if n.sym.Kind == graph.KindMethod || n.sym.Kind == graph.KindInterfaceMethod {
				others = append(others, n.sym.QualifiedName)
			}
		case n.sym.Kind == graph.KindMethod || n.sym.Kind == graph.KindInterfaceMethod:
			methods = append(methods, n.sym.QualifiedName)
		case n.sym.Kind == graph.KindFunc && n.via == viaReference:
			values = append(values, n.sym.QualifiedName)
		}
	}
	dynamic := append(append([]string{}, methods...), values...)
	if facts.Unresolved > 0 && len(dynamic) > 0 {
		a.c.Add(blind.Unresolved, "%d dynamic call site(s) in %s have no resolved callee and may call %s",
			facts.Unresolved, a.repo.Name, blind.ListSome(dynamic, 3))
	}
	if len(methods) > 0 {
		refl, err := facts.Reflectors(ctx, func(ctx context.Context) (map[string]bool, error) { return blind.FindReflectors(ctx, a.v, a.repo.Name) })
		if err != nil {
			return err
		}
		if len(refl) > 0 {
			a.c.Add(blind.Reflection, "%d function(s) call through reflection (reflect.Value.Call, Method, MethodByName, text/template), which may run %s",
				len(refl), blind.ListSome(methods, 3))
		}
		a.c.Add(blind.Outside, "code outside the index (the standard library, dependencies) may call %s back through an interface value it was given (fmt calls String, sort calls Less)", blind.ListSome(methods, 3))
	}
	if len(others) > 0 {
		a.c.Add(blind.Outside, "code outside the index (libraries, frameworks, the runtime) may call %s on an object it was given", blind.ListSome(others, 3))
	}
	for _, c := range a.changed {
		if !c.found && c.Change != ChangeRemoved {
			a.c.Add(blind.Outside, "%s is not in the index (a file the index does not build on this platform, or not indexed yet), so nothing is walked from it", c.QualifiedName)
		}
	}
	return nil
}
