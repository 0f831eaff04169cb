package query

import (
	"context"
	"github.com/sextant-dev/sextant/internal/blind"
	"path"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// impactRun is one get_impact call: the change, then what it reaches.
type impactRun struct {
	v   *session.View
	in  GetImpactInput
	req impactRequest

	repo     graph.RepositoryStatus
	g        *impactGraph // the session's cache of what this reads of the repository
	pkgs     []graph.Package
	base     string // the commit compared with
	indexNew bool   // the index describes the new side of the change (false: a diff not applied yet)
	changed  []*changedDecl
	notes    []string

	seeds   []graph.Symbol    // the changed declarations the index has, and the code a breaking change breaks
	seedVia map[string]string // viaBreaks for the latter
	walk    *impactWalk
	broken  []BreakingChange
	tests   []ImpactTest
	cmds    []TestCommand
	c       blind.Spots
}

// changes finds what the change touches, and the index's symbol for each
// declaration.
func (a *impactRun) changes(ctx context.Context) error {
	var files []fileChange
	switch a.req.mode {
	case "symbol":
		sym, err := resolve(ctx, a.v, a.req.sel)
		if err != nil {
			return err
		}
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
	case "lines":
		loc, err := a.v.Locate("file", a.in.File, a.in.Repository)
		if err != nil {
			return err
		}
		if !strings.HasSuffix(loc.Rel, ".go") {
			return invalid("file", "must be a Go file (got %s)", loc.Rel)
		}
		content, err := session.ReadFile(loc.Repo.Root, loc.Rel)
		if err != nil {
			return session.FileError("file", loc.Rel, err)
		}
		a.repo, a.indexNew = loc.Repo, true
		a.changed = declsOnLines(loc.Rel, content, a.req.from, a.req.to)
		if len(a.changed) == 0 {
			a.notes = append(a.notes, "no declaration spans lines "+a.in.Lines+" of "+loc.Rel+" (imports, comments or blank lines)")
		}
	default:
		rp, err := a.v.Repo(a.in.Repository)
		if err != nil {
			return err
		}
		if !a.v.Session().IsRoot(rp.Root) {
			return graph.Errorf(graph.CodeOutsideRoots, "repository %s (%s) is not under this server's roots, so its files are not read", rp.Name, rp.Root)
		}
		a.repo = rp
		if a.req.mode == "diff_text" {
			files, a.indexNew, err = textChanges(rp.Root, a.in.DiffText)
		} else {
			files, a.base, err = gitChanges(ctx, rp.Root, a.in.Base)
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

func (a *impactRun) loadPackages(ctx context.Context) error {
	if a.g != nil {
		return nil
	}
	g, err := impactGraphOf(ctx, a.v, a.repo.Name)
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
func (a *impactRun) find(ctx context.Context, c *changedDecl) error {
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
func (a *impactRun) initsOf(ctx context.Context, c *changedDecl) ([]graph.Symbol, error) {
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
func (a *impactRun) fill(c *changedDecl) {
	if c.found {
		c.StableKey, c.Package = c.sym.Key, c.sym.PackagePath
	}
	name := c.QualifiedName
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	c.Exported = isExportedName(name) && !c.test && c.pkgName != "main"
}

// BlindDepth: depth stopped the walk before it ran out of code to reach.
const BlindDepth = "depth"

// reach walks from the seeds, and names what the walk cannot see.
func (a *impactRun) reach(ctx context.Context) error {
	a.walk = newImpactWalk(a.v, a.g, a.repo.Name, a.repo.Root, a.in.Depth)
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
		a.c.Add(BlindDepth, "the walk stopped at depth %d with more callers and users to follow; omit depth to walk until the tests", a.in.Depth)
	}
	if w.stopped {
		a.c.Add(blind.MaxNodes, "the walk stopped at %d declarations; give a smaller change", maxImpactNodes)
	}
	var methods, values []string
	for _, k := range w.order {
		n := w.nodes[k]
		switch {
		case n.test != "":
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
	for _, c := range a.changed {
		if !c.found && c.Change != ChangeRemoved {
			a.c.Add(blind.Outside, "%s is not in the index (a file the index does not build on this platform, or not indexed yet), so nothing is walked from it", c.QualifiedName)
		}
	}
	return nil
}
