package impact

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// breaking finds the breaking API changes: exported declarations removed
// or re-signed, with the users in the index that no longer compile, and
// interfaces whose method set changed, with the types that stop
// satisfying them. The code that breaks is walked from too: its tests
// are the ones that stop building.
//
// When the index describes the new side (the working tree, or a diff
// already applied), the type checker's errors recorded for the snapshot
// say which users break; otherwise (a diff not applied yet) every use of
// the old declaration is one that may break.
func (a *run) breaking(ctx context.Context) error {
	var diags []graph.Diagnostic
	if a.indexNew {
		var err error
		if diags, err = a.v.Reader().Diagnostics(ctx, a.repo.Name, 0); err != nil {
			return graph.Wrap(graph.CodeInternal, err, "reading diagnostics")
		}
	}
	changedHere := map[string]bool{} // package + qualified name of every changed declaration
	for _, c := range a.changed {
		changedHere[c.Package+"."+c.QualifiedName] = true
	}
	for _, c := range a.changed {
		var b *BreakingChange
		var err error
		switch {
		case scriptSource(c.Path):
			continue // no type checker's errors say what breaks
		case c.Kind == string(graph.KindInterfaceMethod):
			b, err = a.interfaceBreak(ctx, c, changedHere, diags)
		case c.Kind == string(graph.KindInterface) && c.Change == ChangeSignature:
			continue // its methods' changes say what breaks
		case !c.Exported || c.Change == ChangeBody || c.Change == ChangeAdded:
			continue
		default:
			b, err = a.apiBreak(ctx, c, diags)
		}
		if err != nil {
			return err
		}
		if b != nil {
			a.broken = append(a.broken, *b)
		}
	}
	// What breaks is walked from too.
	files := map[string]fileVersion{}
	for _, b := range a.broken {
		for _, s := range b.Broken {
			if sym, ok := a.declAt(ctx, files, s.Path, s.Line, s.QualifiedName); ok {
				a.seeds = append(a.seeds, sym)
				a.seedVia[sym.Key] = viaBreaks
			}
		}
	}
	return nil
}

// apiBreak is the breaking change of an exported declaration removed or
// re-signed.
func (a *run) apiBreak(ctx context.Context, c *changedDecl, diags []graph.Diagnostic) (*BreakingChange, error) {
	b := &BreakingChange{QualifiedName: c.QualifiedName, Package: c.Package, Change: c.Change}
	if c.Change == ChangeRemoved {
		b.Detail = fmt.Sprintf("%s %s is removed", c.Kind, c.QualifiedName)
	} else {
		b.Detail = fmt.Sprintf("the signature of %s %s changed", c.Kind, c.QualifiedName)
		if c.new != nil && c.old != nil {
			b.Detail += ": " + shortTokens(tokensOf(c.old.sig)) + " → " + shortTokens(tokensOf(c.new.sig))
		}
	}
	name := c.QualifiedName
	member := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		member = name[i+1:]
	}
	if a.indexNew {
		// The type errors of the new side: for a removed declaration
		// those that name it as missing, for a re-signed one those at its
		// uses.
		needles := []string{"undefined: " + name, "undefined: " + c.pkgName + "." + name}
		if member != "" {
			needles = []string{"has no field or method " + member, "." + member + " undefined"}
		}
		sites := map[string]bool{}
		if c.found && c.Change == ChangeSignature {
			refs, _, err := a.v.Reader().Refs(ctx, graph.RefQuery{Targets: []string{c.sym.Key}, IncludeTests: true})
			if err != nil {
				return nil, graph.Wrap(graph.CodeInternal, err, "reading uses")
			}
			for _, r := range refs {
				sites[fmt.Sprintf("%s:%d", r.Path, r.Line)] = true
			}
		}
		seen := map[string]bool{}
		for _, d := range diags {
			if d.Kind != "type" || d.Path == "" {
				continue
			}
			hit := sites[fmt.Sprintf("%s:%d", d.Path, d.Line)]
			for _, n := range needles {
				hit = hit || c.Change == ChangeRemoved && strings.Contains(d.Message, n)
			}
			if at := fmt.Sprintf("%s:%d", d.Path, d.Line); hit && !seen[at] {
				seen[at] = true
				b.Broken = append(b.Broken, BrokenSite{Path: d.Path, Line: d.Line, Why: d.Message})
			}
		}
	} else if c.found {
		refs, _, err := a.v.Reader().Refs(ctx, graph.RefQuery{Targets: []string{c.sym.Key}, IncludeTests: true})
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading uses")
		}
		for _, r := range refs {
			if r.Kind == graph.RefImport {
				continue
			}
			why := "uses " + c.QualifiedName + ", which the change removes"
			if c.Change == ChangeSignature {
				why = "uses " + c.QualifiedName + " as it was declared before the change"
			}
			b.Broken = append(b.Broken, BrokenSite{Path: r.Path, Line: r.Line, Why: why})
		}
	}
	a.nameSites(ctx, b)
	return b, nil
}

// interfaceBreak is the breaking change of an interface method added,
// removed or re-signed: the types that satisfied the interface and no
// longer do.
func (a *run) interfaceBreak(ctx context.Context, c *changedDecl, changedHere map[string]bool, diags []graph.Diagnostic) (*BreakingChange, error) {
	iface := strings.SplitN(c.QualifiedName, ".", 2)[0]
	method := strings.TrimPrefix(c.QualifiedName, iface+".")
	b := &BreakingChange{QualifiedName: iface, Package: c.Package, Change: "interface",
		Detail: fmt.Sprintf("method %s of interface %s is %s", method, iface, map[string]string{ChangeAdded: "added", ChangeRemoved: "removed", ChangeSignature: "re-signed", ChangeBody: "changed"}[c.Change])}
	if c.Change == ChangeRemoved {
		// Every implementation still satisfies the smaller interface; its
		// callers through the interface break, as for a removed method.
		b.Detail += "; calls of it through the interface no longer compile"
		if c.found {
			refs, _, err := a.v.Reader().Refs(ctx, graph.RefQuery{Targets: []string{c.sym.Key}, Kinds: []graph.RefKind{graph.RefCall}, IncludeTests: true})
			if err != nil {
				return nil, graph.Wrap(graph.CodeInternal, err, "reading calls")
			}
			for _, r := range refs {
				b.Broken = append(b.Broken, BrokenSite{Path: r.Path, Line: r.Line, Why: "calls " + c.QualifiedName})
			}
		}
		a.nameSites(ctx, b)
		return b, nil
	}
	ifaces, err := a.v.Reader().LookupSymbols(ctx, graph.Lookup{QualifiedName: iface, PackagePath: c.Package, Repository: a.repo.Name})
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "looking up "+iface)
	}
	var isym graph.Symbol
	for _, s := range ifaces {
		if s.Kind == graph.KindInterface || s.Kind == graph.KindType {
			isym = s
		}
	}
	if isym.Key == "" {
		return b, nil
	}
	impls, err := a.v.Reader().Implementations(ctx, isym.Key, true)
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading implementations")
	}
	now := map[string]bool{}
	for _, im := range impls {
		now[im.Type] = true
	}
	var stopped []string // type keys
	if a.indexNew {
		// The types that had every method of the interface before the
		// change, by name, and do not satisfy it now.
		old := a.oldMethods(c, iface)
		cands, err := a.typesWithMethods(ctx, old)
		if err != nil {
			return nil, err
		}
		for _, t := range cands {
			if !now[t] && t != isym.Key {
				stopped = append(stopped, t)
			}
		}
	} else {
		// The implementations of the old interface, unless the change
		// gives them the method too.
		for _, im := range impls {
			stopped = append(stopped, im.Type)
		}
	}
	syms, err := a.v.Reader().SymbolsByKeys(ctx, graph.Dedupe(stopped))
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "reading types")
	}
	sort.Slice(syms, func(i, j int) bool {
		return syms[i].Path < syms[j].Path || syms[i].Path == syms[j].Path && syms[i].StartLine < syms[j].StartLine
	})
	for _, t := range syms {
		if !a.indexNew && changedHere[t.PackagePath+"."+t.QualifiedName+"."+method] {
			continue
		}
		why := fmt.Sprintf("%s no longer satisfies %s: ", t.QualifiedName, iface)
		if c.Change == ChangeAdded {
			why += "it has no method " + method
		} else {
			why += "its method " + method + " has the old signature"
		}
		b.Broken = append(b.Broken, BrokenSite{QualifiedName: t.QualifiedName, Path: t.Path, Line: t.StartLine, Why: why})
	}
	// Where such a type is used as the interface, the code no longer
	// compiles: the type checker's errors of the new side say where.
	seen := map[string]bool{}
	for _, d := range diags {
		at := fmt.Sprintf("%s:%d", d.Path, d.Line)
		if d.Kind == "type" && d.Path != "" && !seen[at] && strings.Contains(d.Message, "missing method "+method) {
			seen[at] = true
			b.Broken = append(b.Broken, BrokenSite{Path: d.Path, Line: d.Line, Why: d.Message})
		}
	}
	a.nameSites(ctx, b)
	return b, nil
}

// oldMethods is the method names of the interface before the change.
func (a *run) oldMethods(c *changedDecl, iface string) []string {
	for _, o := range a.changed {
		if o.Package == c.Package && o.QualifiedName == iface && o.old != nil {
			var names []string
			for _, m := range o.old.methods {
				names = append(names, strings.SplitN(m, "\x01", 2)[0])
			}
			return names
		}
	}
	return nil
}

// typesWithMethods returns the keys of the types of the repository that
// declare a method of every one of these names.
func (a *run) typesWithMethods(ctx context.Context, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var have map[string]int
	for i, n := range graph.Dedupe(names) {
		syms, _, err := a.v.Reader().FindSymbols(ctx, graph.SymbolQuery{Name: n, Mode: graph.MatchExact, Kinds: []graph.Kind{graph.KindMethod},
			Repositories: []string{a.repo.Name}})
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "finding methods")
		}
		next := map[string]int{}
		for _, s := range syms {
			if s.Parent == "" || s.Name != n {
				continue
			}
			if i == 0 || have[s.Parent] == i {
				next[s.Parent] = i + 1
			}
		}
		have = next
	}
	return sortedKeys(have), nil
}

// nameSites fills in the declaration enclosing each broken site, from the
// file on disk.
func (a *run) nameSites(ctx context.Context, b *BreakingChange) {
	files := map[string]fileVersion{}
	for i, s := range b.Broken {
		if s.QualifiedName != "" {
			continue
		}
		if d, ok := enclosingDecl(a.repo.Root, files, s.Path, s.Line, ""); ok {
			b.Broken[i].QualifiedName = d.QualifiedName
		}
	}
	sort.SliceStable(b.Broken, func(i, j int) bool {
		x, y := b.Broken[i], b.Broken[j]
		return x.Path < y.Path || x.Path == y.Path && x.Line < y.Line
	})
}

// enclosingDecl is the innermost declaration of the file on disk that
// spans line (and is called name, when name is given).
func enclosingDecl(root string, files map[string]fileVersion, p string, line int, name string) (versionDecl, bool) {
	fv, ok := files[p]
	if !ok {
		content, err := session.ReadFile(root, p)
		if err == nil {
			fv = parseVersion(p, content)
		}
		files[p] = fv
	}
	var best versionDecl
	found := false
	for _, d := range fv.decls {
		if d.Line <= line && line <= d.EndLine && (name == "" || d.QualifiedName == name) && (!found || d.EndLine-d.Line < best.EndLine-best.Line) {
			best, found = d, true
		}
	}
	return best, found
}

// declAt returns the index's symbol of the declaration that spans line of
// the file on disk (the one called name, when name is given).
func (a *run) declAt(ctx context.Context, files map[string]fileVersion, p string, line int, name string) (graph.Symbol, bool) {
	d, ok := enclosingDecl(a.repo.Root, files, p, line, name)
	if !ok {
		return graph.Symbol{}, false
	}
	c := &changedDecl{dir: path.Dir(p), pkgName: files[p].pkgName, test: strings.HasSuffix(p, "_test.go")}
	c.QualifiedName, c.Kind, c.Path, c.Line, c.EndLine = d.QualifiedName, string(d.Kind), p, d.Line, d.EndLine
	if err := a.find(ctx, c); err != nil || !c.found {
		return graph.Symbol{}, false
	}
	return c.sym, true
}

// shortTokens spells a token string for a detail line, cut to 80 bytes.
func shortTokens(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\x00", " ")), " ")
	return answer.CutUTF8(s, 80)
}
