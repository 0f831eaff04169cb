package scipindex

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/scip"
)

// Uses across projects. A workspace's packages are projects of their
// own, each indexed by its own run, and a package's index writes a use of
// another package's declaration with that package's symbol
// (`npm @ws/geo 1.0.0 src/`index.ts`/scale().`), which its own import
// cannot key: the declaration is in the other project's index. A Linker
// is handed to the import of every project of one snapshot; it keeps the
// declarations each import keys and the uses, overrides and calls each
// cannot, and Write joins them once every project is imported. Only
// symbols of the packages the Linker is told of are kept, so that the
// uses of libraries (react, numpy), which no project declares, cost
// nothing.
type Linker struct {
	// Lookup, when set, finds the symbols with these keys in the snapshot
	// being amended: the declarations of the projects not imported again.
	Lookup func(ctx context.Context, keys []string) ([]graph.Symbol, error)

	repo     string             // the repository's name, in every key
	packages map[string]bool    // package names of the projects (package.json's name, the Python project's)
	defs     map[string]linkDef // SCIP symbol → its declaration, over every import
	// byModule holds the Python declarations by package, module and
	// name, whatever their version and a src/ layout: another project's
	// use of them names the copy the environment has installed.
	byModule map[string]linkDef
	refs     []linkRef
	impls    [][2]string // (implementation's key, overridden SCIP symbol)
}

// linkDef is a declaration a project's import keyed.
type linkDef struct {
	key   string
	kind  graph.Kind
	impls []string // keys of its implementations and overrides in its own project
	// open says its overrides are not known (a method Lookup found): a
	// call of it is a candidate.
	open bool
}

// linkRef is a use whose target its import could not key.
type linkRef struct {
	target string // SCIP symbol
	ref    graph.Ref
	// caller is the key of the function or method the use is in, when the
	// use is a call that makes an edge ("" otherwise); name is the
	// callee's name, for an edge to a target no project declares.
	caller, name string
}

// NewLinker returns a Linker for the projects of one snapshot of repo,
// named by their package names.
func NewLinker(repo string, packages []string) *Linker {
	l := &Linker{repo: repo, packages: map[string]bool{}, defs: map[string]linkDef{}, byModule: map[string]linkDef{}}
	for _, p := range packages {
		if p != "" && p != "." {
			l.packages[p] = true
		}
	}
	return l
}

// wants reports whether sym is a global symbol of one of the projects'
// packages that an import could key: not a parameter, whose name is its
// function's qualified name.
func (l *Linker) wants(sym string) bool {
	if l == nil || len(l.packages) == 0 || scip.IsLocalSymbol(sym) {
		return false
	}
	p, err := scip.ParseSymbol(sym)
	if err != nil || !l.packages[p.Package.Name] || len(p.Descriptors) == 0 {
		return false
	}
	switch p.Descriptors[len(p.Descriptors)-1].Suffix {
	case scip.SuffixParameter, scip.SuffixTypeParameter:
		return false
	}
	return true
}

// Write writes the uses, overrides and calls that join one project to
// another's declarations, and, for a use no project declares, the call
// edge by name the import would have written; its Result counts them.
func (l *Linker) Write(ctx context.Context, w graph.SnapshotWriter) (Result, error) {
	if l == nil {
		return Result{}, nil
	}
	if err := l.lookup(ctx); err != nil {
		return Result{}, err
	}
	var rs []graph.Ref
	var es []graph.CallEdge
	for _, u := range l.refs {
		d, ok := l.defs[u.target]
		if !ok {
			d, ok = l.byModule[moduleKey(u.target)]
		}
		if ok {
			r := u.ref
			r.Target = d.key
			rs = append(rs, r)
		}
		if u.caller == "" {
			continue
		}
		site := graph.CallEdge{Caller: u.caller, Path: u.ref.Path, Line: u.ref.Line, Col: u.ref.Col}
		switch {
		case !ok:
			site.CalleeName, site.Coverage, site.Via = u.name, graph.CoverageExact, graph.ViaStatic
			es = append(es, site)
		case d.kind.IsFunction(): // a call of a value: a type's constructor is its own symbol
			es = append(es, calls(site, d.key, d.kind, d.impls, d.open)...)
		}
	}
	var is []graph.Implements
	seen := map[[2]string]bool{}
	for _, pr := range l.impls {
		d, ok := l.defs[pr[1]]
		if !ok || d.key == pr[0] || seen[[2]string{pr[0], d.key}] {
			continue
		}
		seen[[2]string{pr[0], d.key}] = true
		is = append(is, graph.Implements{Type: pr[0], Interface: d.key})
	}
	if err := w.AddRefs(ctx, rs); err != nil {
		return Result{}, fmt.Errorf("writing references across projects: %w", err)
	}
	if err := w.AddCallEdges(ctx, es); err != nil {
		return Result{}, fmt.Errorf("writing call edges across projects: %w", err)
	}
	if err := w.AddImplements(ctx, is); err != nil {
		return Result{}, fmt.Errorf("writing implementations across projects: %w", err)
	}
	return Result{Refs: len(rs), CallEdges: len(es), Implements: len(is)}, nil
}

// calls are the edges of a call at site of the function or method key:
// exact when nothing can stand for it, else (an interface method, a
// method with implementations or overrides, or one whose overrides are
// not known: open) a candidate for the method itself when it has a body
// and for each of impls.
func calls(site graph.CallEdge, key string, kind graph.Kind, impls []string, open bool) []graph.CallEdge {
	if kind != graph.KindInterfaceMethod && len(impls) == 0 && !open {
		site.Callee, site.Coverage, site.Via = key, graph.CoverageExact, graph.ViaStatic
		return []graph.CallEdge{site}
	}
	callees := impls
	if kind != graph.KindInterfaceMethod || len(callees) == 0 {
		callees = append([]string{key}, callees...)
	}
	out := make([]graph.CallEdge, len(callees))
	for i, c := range callees {
		out[i] = site
		out[i].Callee, out[i].Coverage, out[i].Via = c, graph.CoverageCandidate, graph.ViaInterface
	}
	return out
}

// linkKinds are the kinds an import gives a declaration, and linkLangs
// the languages; a symbol's key is one of their combinations.
var (
	linkKinds = []graph.Kind{graph.KindFunc, graph.KindMethod, graph.KindInterfaceMethod, graph.KindType,
		graph.KindInterface, graph.KindVar, graph.KindConst, graph.KindField}
	linkLangs = []string{graph.LanguageTypeScript, graph.LanguageJavaScript, graph.LanguagePython}
)

// lookup finds, with Lookup, the declarations the uses name that no
// import keyed: each symbol's key for every language and kind an import
// could have given it, of which the snapshot has at most one.
func (l *Linker) lookup(ctx context.Context) error {
	if l.Lookup == nil || l.repo == "" {
		return nil
	}
	bySym := map[string][]string{} // SCIP symbol → its candidate keys
	for _, sym := range l.unkeyed() {
		p, err := scip.ParseSymbol(sym)
		if err != nil {
			continue
		}
		mod, qname, _ := names(p)
		if qname == "" {
			continue
		}
		for _, lang := range linkLangs {
			for _, k := range linkKinds {
				bySym[sym] = append(bySym[sym], symbolKey(lang, l.repo, p.Package.Name, mod, qname, k))
			}
		}
		if p.Scheme == "scip-python" && !strings.HasPrefix(mod, "src.") {
			// The installed copy of a package the project lays out under
			// src/, as byModule joins it in a whole index.
			for _, k := range linkKinds {
				bySym[sym] = append(bySym[sym], symbolKey(graph.LanguagePython, l.repo, p.Package.Name, "src."+mod, qname, k))
			}
		}
	}
	var keys []string
	for _, ks := range bySym {
		keys = append(keys, ks...)
	}
	if len(keys) == 0 {
		return nil
	}
	syms, err := l.Lookup(ctx, keys)
	if err != nil {
		return fmt.Errorf("reading the declarations of the other projects: %w", err)
	}
	found := map[string]graph.Symbol{}
	for _, s := range syms {
		found[s.Key] = s
	}
	for sym, ks := range bySym {
		for _, k := range ks {
			if s, ok := found[k]; ok {
				l.defs[sym] = linkDef{key: k, kind: s.Kind, open: s.Kind == graph.KindMethod}
				break
			}
		}
	}
	return nil
}

// unkeyed are the SCIP symbols the kept uses and overrides name that no
// import keyed, each once.
func (l *Linker) unkeyed() []string {
	seen := map[string]bool{}
	var out []string
	add := func(sym string) {
		if _, ok := l.defs[sym]; !ok && !seen[sym] {
			seen[sym] = true
			out = append(out, sym)
		}
	}
	for _, u := range l.refs {
		add(u.target)
	}
	for _, pr := range l.impls {
		add(pr[1])
	}
	return out
}

// add keeps the declaration ld of d, a definition an import keyed.
func (l *Linker) add(d *def, ld linkDef) {
	l.defs[d.symbol] = ld
	if d.lang == "python" {
		if k := moduleKey(d.symbol); k != "" {
			l.byModule[k] = ld
		}
	}
}

// moduleKey is a Python symbol's package, module (under src/ or not: see
// srcLayout) and descriptors, without its version; "" for another.
func moduleKey(sym string) string {
	if !strings.HasPrefix(sym, "scip-python ") {
		return ""
	}
	p, err := scip.ParseSymbol(sym)
	if err != nil || len(p.Descriptors) == 0 || p.Descriptors[0].Suffix != scip.SuffixNamespace {
		return ""
	}
	return p.Package.Name + " " + srcKey(p.Scheme, strings.TrimPrefix(p.Descriptors[0].Name, "src."), p.Descriptors[1:])
}

// calleeName is the name a call edge gives a callee no project declares:
// its package and qualified name.
func calleeName(sym string) string {
	p, err := scip.ParseSymbol(sym)
	if err != nil {
		return ""
	}
	_, qname, _ := names(p)
	if qname == "" {
		return ""
	}
	return strings.TrimPrefix(p.Package.Name+"."+qname, ".")
}

// symbolKey is the stable key of a declaration of package pkg (its
// package.json's name, the Python project's): two packages of a
// workspace laid out alike (each a src/index.ts exporting init) declare
// the same module and name, and their keys differ by the package.
func symbolKey(lang, repo, pkg, mod, qname string, kind graph.Kind) string {
	if pkg != "" && pkg != "." {
		mod = pkg + ":" + mod
	}
	return graph.StableKey(graph.Identity{Language: lang, Repository: repo, PackagePath: mod, QualifiedName: qname, Kind: kind})
}
