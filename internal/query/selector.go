package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// selector names one symbol the way get_symbol takes it, in one of three
// forms: a stable key; a qualified name narrowed by repository and a path
// prefix; or a file and a name resolved as that file's source would. Every
// tool that works on one symbol (get_symbol, find_references, get_callers,
// get_callees, find_implementations) resolves it through view.resolve, so
// they all accept and reject the same things with the same messages.
type selector struct {
	StableKey     string
	QualifiedName string
	Repository    string
	Path          string // repo-relative path prefix narrowing QualifiedName
	File          string
	Name          string
	// PathField is the parameter that carries Path ("path" unless the tool
	// uses path for something else), so messages name what the caller sent.
	PathField string

	pathPrefix string // Path, checked and cleaned by validate
}

// SymbolSelector is the six parameters that select one symbol, in three
// forms: a stable key; a qualified name narrowed by repository and a path
// prefix; or a file and a name resolved as that file's source would. Every
// tool that selects a symbol embeds it, or its parts when it names the
// path prefix otherwise (find_references) or takes no file (read_source),
// so the parameters are declared once; a tool that says them in its own
// words gives those words in paramDocs. The CLI's flags and the MCP input
// schema take its fields as the tool's own, in this order.
type SymbolSelector struct {
	SymbolID
	Path string `json:"path,omitempty" jsonschema:"path prefix to narrow by"`
	FileName
}

// SymbolID is the selector's key or qualified name, with the repository
// that narrows the name.
type SymbolID struct {
	StableKey     string `json:"stable_key,omitempty" jsonschema:"key from an earlier answer; alone"`
	QualifiedName string `json:"qualified_name,omitempty" jsonschema:"Name, Type.Method or pkg.Name"`
	Repository    string `json:"repository,omitempty" jsonschema:"repository name to narrow by"`
}

// FileName is the selector's third form: a name resolved as the file's
// source resolves it.
type FileName struct {
	File string `json:"file,omitempty" jsonschema:"Go file whose code resolves name"`
	Name string `json:"name,omitempty" jsonschema:"with file: Name or pkg.Name"`
}

func (in SymbolSelector) selector() selector {
	return selector{StableKey: in.StableKey, QualifiedName: in.QualifiedName, Repository: in.Repository,
		Path: in.Path, File: in.File, Name: in.Name}
}

func (s *selector) pathField() string {
	if s.PathField == "" {
		return "path"
	}
	return s.PathField
}

// validate checks the selector's shape before anything is read: no
// padding, exactly one form, no narrowing that does not apply.
func (s *selector) validate() error {
	pf := s.pathField()
	if err := checkSelectors("stable_key", s.StableKey, "qualified_name", s.QualifiedName,
		"repository", s.Repository, pf, s.Path, "file", s.File, "name", s.Name); err != nil {
		return err
	}
	switch {
	case s.StableKey != "" && (s.QualifiedName != "" || s.File != "" || s.Name != ""):
		return invalid("stable_key", "use stable_key alone; a key already names one symbol")
	case s.StableKey != "" && (s.Repository != "" || s.Path != ""):
		return invalid("stable_key", "repository and %s do not narrow a stable_key; drop them", pf)
	case s.QualifiedName != "" && (s.File != "" || s.Name != ""):
		return invalid("qualified_name", "give either qualified_name or file + name, not both")
	case s.File != "" && s.Name == "":
		return invalid("name", "is required with file")
	case s.Name != "" && s.File == "":
		return invalid("file", "is required with name; to search by name alone use qualified_name or find_symbol")
	case s.File != "" && s.Path != "":
		return invalid(pf, "does not narrow a file selector; drop it")
	case s.StableKey == "" && s.QualifiedName == "" && s.File == "":
		return invalid("stable_key", "give one selector: stable_key, qualified_name, or file + name")
	}
	prefix, err := cleanPathPrefix(pf, s.Path)
	if err != nil {
		return err
	}
	s.pathPrefix = prefix
	if s.StableKey != "" && !graph.ValidKey(s.StableKey) {
		return invalid("stable_key", "%q is not a stable key (32 characters A-Z, 2-7)", s.StableKey)
	}
	return nil
}

// resolve returns the one symbol a validated selector names, or the coded
// error that says why there is none (SYMBOL_NOT_FOUND with suggestions,
// AMBIGUOUS_SYMBOL with candidates, REPOSITORY_NOT_FOUND, FILE_NOT_FOUND,
// OUTSIDE_ROOTS, PARSE_ERROR). It marks the symbol's repository as used.
func resolve(ctx context.Context, v *session.View, sel selector) (graph.Symbol, error) {
	if sel.Repository != "" {
		if _, err := v.Repo(sel.Repository); err != nil {
			return graph.Symbol{}, err
		}
	}
	var (
		sym graph.Symbol
		err error
	)
	switch {
	case sel.StableKey != "":
		sym, err = v.Reader().SymbolByKey(ctx, sel.StableKey)
		if err != nil {
			return sym, notFoundOr(err, graph.Errorf(graph.CodeSymbolNotFound,
				"no symbol has key %s in the current snapshots; keys survive edits but not renames or deletions: find it again with find_symbol", sel.StableKey))
		}
	case sel.QualifiedName != "":
		sym, err = resolveQualified(ctx, v, sel.QualifiedName, sel.Repository, sel.pathPrefix, sel.pathField())
	default:
		sym, err = resolveInFile(ctx, v, sel.File, sel.Name, sel.Repository)
	}
	if err != nil {
		return sym, err
	}
	v.Use(sym.Repository)
	return sym, nil
}

func notFoundOr(err error, notFound *graph.Error) error {
	if errors.Is(err, graph.ErrNotFound) {
		return notFound
	}
	return graph.Wrap(graph.CodeInternal, err, "reading the index")
}

// resolveQualified reads a qualified name in every way it can be meant:
// as written, with a leading package name, or with a leading import path.
func resolveQualified(ctx context.Context, v *session.View, qn, repo, pathPrefix, pathField string) (graph.Symbol, error) {
	results, err := lookupAll(ctx, v.Reader().Symbols, qualifiedLookups(qn, repo, pathPrefix))
	if err != nil {
		return graph.Symbol{}, graph.Wrap(graph.CodeInternal, err, "looking up "+qn)
	}
	seen := map[string]bool{}
	var found []graph.Symbol
	for _, syms := range results {
		for _, s := range syms {
			if !seen[s.Key] && v.InScope(s.Repository) {
				seen[s.Key] = true
				found = append(found, s)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return graph.Symbol{}, notFound(ctx, v, qn, repo, pathPrefix, pathField)
	}
	return graph.Symbol{}, ambiguous(qn, found, pathField)
}

// qualifiedLookups returns the lookups of the ways a qualified name can be
// meant (see resolveQualified).
func qualifiedLookups(qn, repo, pathPrefix string) []graph.Lookup {
	lookups := []graph.Lookup{{QualifiedName: qn}}
	if i := strings.LastIndex(qn, "/"); i >= 0 {
		if j := strings.Index(qn[i:], "."); j > 0 {
			lookups = append(lookups, graph.Lookup{PackagePath: qn[:i+j], QualifiedName: qn[i+j+1:]})
		}
	} else if j := strings.Index(qn, "."); j > 0 {
		lookups = append(lookups, graph.Lookup{PackageName: qn[:j], QualifiedName: qn[j+1:]})
	}
	for i := range lookups {
		lookups[i].Repository, lookups[i].PathPrefix = repo, pathPrefix
	}
	return lookups
}

// multiLookup is a graph.Symbols that answers several lookups in one request to
// its store (the postgres store, where each request is a round trip).
type multiLookup interface {
	LookupSymbolsAll(ctx context.Context, ls []graph.Lookup) ([][]graph.Symbol, error)
}

// lookupAll answers LookupSymbols for each lookup, at once when the
// reader can.
func lookupAll(ctx context.Context, r graph.Symbols, ls []graph.Lookup) ([][]graph.Symbol, error) {
	if m, ok := r.(multiLookup); ok {
		return m.LookupSymbolsAll(ctx, ls)
	}
	out := make([][]graph.Symbol, len(ls))
	for i, l := range ls {
		if l.QualifiedName == "" {
			continue
		}
		syms, err := r.LookupSymbols(ctx, l)
		if err != nil {
			return nil, err
		}
		out[i] = syms
	}
	return out, nil
}

// ambiguous lists the candidates so the caller can narrow: by repository
// and path (sent as pathField) while they differ there, by stable key once
// nothing else is left.
func ambiguous(qn string, found []graph.Symbol, pathField string) *graph.Error {
	slices.SortFunc(found, func(a, b graph.Symbol) int {
		return cmp.Or(strings.Compare(a.Repository, b.Repository), strings.Compare(a.Path, b.Path), cmp.Compare(a.StartLine, b.StartLine))
	})
	places := map[string]bool{}
	for _, s := range found {
		places[s.Repository+" "+s.Path] = true
	}
	var cands []string
	if len(places) == len(found) {
		for _, s := range found {
			cands = append(cands, fmt.Sprintf("%s %s:%d-%d (%s %s)", s.Repository, s.Path, s.StartLine, s.EndLine, s.Kind, s.PackagePath))
		}
		return graph.Errorf(graph.CodeAmbiguousSymbol, "%d symbols are named %s; narrow with repository and %s, or prefix the name with its package", len(found), qn, pathField).
			WithData("candidates", cands)
	}
	for _, s := range found {
		cands = append(cands, fmt.Sprintf("%s (%s %s %s:%d-%d)", s.Key, s.Kind, s.Repository, s.Path, s.StartLine, s.EndLine))
	}
	return graph.Errorf(graph.CodeAmbiguousSymbol, "%d symbols are named %s in the same file; select one by stable_key", len(found), qn).
		WithData("candidates", cands)
}

// notFound builds SYMBOL_NOT_FOUND with close names and, when the search
// was narrowed, where it looked and how to widen it.
func notFound(ctx context.Context, v *session.View, qn, repo, pathPrefix, pathField string) error {
	last := qn
	if i := strings.LastIndexAny(last, "./"); i >= 0 && i+1 < len(last) {
		last = last[i+1:]
	}
	var suggestions []string
	seen := map[string]bool{}
	for _, mode := range []graph.MatchMode{graph.MatchFuzzy, graph.MatchSubstring} {
		syms, _, err := v.Reader().FindSymbols(ctx, graph.SymbolQuery{Name: last, Mode: mode, Limit: 8, Repositories: v.Scope()})
		if err != nil {
			break
		}
		for _, s := range syms {
			label := s.QualifiedName + " (" + s.Repository + " " + s.Path + ")"
			if !seen[label] && len(suggestions) < 8 {
				seen[label] = true
				suggestions = append(suggestions, label)
			}
		}
	}
	msg := fmt.Sprintf("no symbol named %s", qn)
	if repo != "" || pathPrefix != "" {
		where := []string{}
		if repo != "" {
			where = append(where, "repository "+repo)
		}
		if pathPrefix != "" {
			where = append(where, "files under "+pathPrefix)
		}
		msg += " in " + strings.Join(where, ", ") + "; drop repository or " + pathField + " to look everywhere"
	}
	if len(suggestions) > 0 {
		msg += "; close names are in data.suggestions"
	} else {
		msg += "; try find_symbol with mode substring"
	}
	e := graph.Errorf(graph.CodeSymbolNotFound, "%s", msg)
	if len(suggestions) > 0 {
		e.WithData("suggestions", suggestions)
	}
	return e
}

// resolveInFile resolves name the way the file's own source would: a
// declaration of the file's package, or pkg.Name through its imports.
func resolveInFile(ctx context.Context, v *session.View, file, name, repository string) (graph.Symbol, error) {
	loc, err := v.Locate("file", file, repository)
	if err != nil {
		return graph.Symbol{}, err
	}
	src, err := session.ReadFile(loc.Repo.Root, loc.Rel)
	if err != nil {
		return graph.Symbol{}, err
	}
	v.Use(loc.Repo.Name)
	if lang := graph.LanguageOf(loc.Rel); lang != "" && lang != graph.LanguageGo {
		return resolveInIndexedFile(ctx, v, loc, name)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, loc.Rel, src, parser.ImportsOnly|parser.SkipObjectResolution)
	if f == nil || f.Name == nil || !f.Package.IsValid() {
		return graph.Symbol{}, graph.Errorf(graph.CodeParseError, "%s does not parse as Go: %v", loc.Rel, err).WithData("field", "file")
	}
	pkgPath, err := packageOfFile(ctx, v, loc, f.Name.Name)
	if err != nil {
		return graph.Symbol{}, err
	}
	lookup := func(pkg, qn string) ([]graph.Symbol, error) {
		return v.Reader().LookupSymbols(ctx, graph.Lookup{PackagePath: pkg, QualifiedName: qn})
	}
	// A local declaration wins, as it would in the compiler.
	if pkgPath != "" {
		syms, err := lookup(pkgPath, name)
		if err != nil {
			return graph.Symbol{}, graph.Wrap(graph.CodeInternal, err, "looking up "+name)
		}
		if len(syms) == 1 {
			return syms[0], nil
		}
		if len(syms) > 1 {
			return graph.Symbol{}, ambiguous(name, syms, "path")
		}
	}
	if i := strings.Index(name, "."); i > 0 {
		qual, rest := name[:i], name[i+1:]
		for _, imp := range f.Imports {
			ipath, _ := strconv.Unquote(imp.Path.Value)
			local := ""
			if imp.Name != nil {
				local = imp.Name.Name
			}
			if local != qual && !(local == "" && importName(ctx, v, loc.Repo.Name, ipath) == qual) {
				continue
			}
			syms, err := lookup(ipath, rest)
			if err != nil {
				return graph.Symbol{}, graph.Wrap(graph.CodeInternal, err, "looking up "+name)
			}
			switch len(syms) {
			case 1:
				return syms[0], nil
			case 0:
				if !indexedPackage(ctx, v, ipath) {
					return graph.Symbol{}, graph.Errorf(graph.CodeSymbolNotFound,
						"%s refers to package %s, which is outside the indexed repositories", name, ipath)
				}
				return graph.Symbol{}, notFound(ctx, v, ipath+"."+rest, "", "", "path")
			}
			return graph.Symbol{}, ambiguous(name, syms, "path")
		}
	}
	// Dot imports bring names in unqualified.
	for _, imp := range f.Imports {
		if imp.Name != nil && imp.Name.Name == "." {
			ipath, _ := strconv.Unquote(imp.Path.Value)
			if syms, err := lookup(ipath, name); err == nil && len(syms) == 1 {
				return syms[0], nil
			}
		}
	}
	return graph.Symbol{}, graph.Errorf(graph.CodeSymbolNotFound,
		"%s does not resolve in %s: it is neither declared in package %s nor reached through the file's imports", name, loc.Rel, f.Name.Name).
		WithData("suggestions", suggest(ctx, v, name))
}

func suggest(ctx context.Context, v *session.View, name string) []string {
	err := notFound(ctx, v, name, "", "", "path")
	if e, ok := asError(err); ok {
		if s, ok := e.Data["suggestions"].([]string); ok {
			return s
		}
	}
	return nil
}

// packageOfFile returns the import path of the package the file belongs
// to: from the snapshot when it knows the file, else by its directory.
func packageOfFile(ctx context.Context, v *session.View, loc session.Located, pkgName string) (string, error) {
	if f, err := v.Reader().File(ctx, loc.Repo.Name, loc.Rel); err == nil && f.Package != "" {
		return f.Package, nil
	}
	pkgs, err := v.Reader().Packages(ctx, loc.Repo.Name)
	if err != nil {
		return "", graph.Wrap(graph.CodeInternal, err, "reading packages")
	}
	dir := path.Dir(loc.Rel)
	for _, p := range pkgs {
		if p.Dir == dir && p.Name == pkgName {
			return p.Path, nil
		}
	}
	return "", nil
}

// importName is the package name an import path brings in when the import
// has no explicit name: the indexed package's name, else the last element.
func importName(ctx context.Context, v *session.View, repo, ipath string) string {
	for _, r := range v.Repos() {
		if p, err := v.Reader().Package(ctx, r.Name, ipath); err == nil {
			return p.Name
		}
	}
	base := path.Base(ipath)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(ipath)) // gopkg.in/yaml.v3 style major suffixes
	}
	if i := strings.IndexAny(base, ".-"); i > 0 {
		base = base[:i]
	}
	return base
}

func indexedPackage(ctx context.Context, v *session.View, ipath string) bool {
	for _, r := range v.Repos() {
		if _, err := v.Reader().Package(ctx, r.Name, ipath); err == nil {
			return true
		}
	}
	return false
}

// checkSelector rejects a selector with surrounding whitespace or a NUL
// (see answer.CheckSelector); checkSelectors checks (field, value) pairs.
var (
	checkSelector  = answer.CheckSelector
	checkSelectors = answer.CheckSelectors
)

// cleanPathPrefix checks a repo-relative path (prefix): no absolute path,
// no .. segment, forward slashes; a trailing slash is kept, as it narrows.
func cleanPathPrefix(field, p string) (string, error) {
	if p == "" {
		return "", nil
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return "", graph.Errorf(graph.CodeOutsideRoots, "%s must be repo-relative with forward slashes (got %q)", field, p).WithData("field", field)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", graph.Errorf(graph.CodeOutsideRoots, "%s may not contain .. (got %q)", field, p).WithData("field", field)
		}
	}
	return strings.TrimPrefix(p, "./"), nil
}

// openSymbol checks sel, pins a fresh view for one request and resolves
// sel in it: the prologue of every tool about one symbol. The caller
// closes the view (on an error there is none to close).
func openSymbol(ctx context.Context, s *Service, sel selector, progress func(Progress)) (*session.View, graph.Symbol, error) {
	if err := sel.validate(); err != nil { // again, if the tool checked it first: it is cheap
		return nil, graph.Symbol{}, err
	}
	// The first read of the view: a store may make it in the round trip
	// that pins the view.
	switch {
	case sel.StableKey != "":
		ctx = graph.WithSymbolAhead(ctx, sel.StableKey)
	case sel.QualifiedName != "":
		ctx = graph.WithLookupsAhead(ctx, qualifiedLookups(sel.QualifiedName, sel.Repository, sel.pathPrefix))
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, graph.Symbol{}, err
	}
	sym, err := resolve(ctx, v, sel)
	if err != nil {
		v.Close()
		return nil, graph.Symbol{}, err
	}
	return v, sym, nil
}

// openTyped is openSymbol for the answers that are whole once the types
// are checked (references, implementations): it waits for the types
// stage of a first index, not for its call graph.
func openTyped(ctx context.Context, s *Service, sel selector, progress func(Progress)) (*session.View, graph.Symbol, error) {
	return openSymbol(session.WithStage(ctx, graph.StageTypes), s, sel, progress)
}

// openUses is openTyped for find_references: before the first index of
// the symbol's root reaches its types stage, the symbol is found in the
// syntax stage and its package and the packages depending on it that
// spell its name are checked on their own (session.Session.OpenChecked),
// which holds every use of it, the way gopls checks only the packages a
// question needs.
// checked is the number of packages that check holds when the view reads
// it, 0 when the view reads the index. A method, whose uses count those
// of the interface methods it is related to (relatedMethods), which any
// package may declare, waits for the types stage.
func openUses(ctx context.Context, s *Service, sel selector, progress func(Progress)) (_ *session.View, _ graph.Symbol, checked int, _ error) {
	v, sym, err := openSymbol(session.WithSyntax(ctx), s, sel, progress)
	if err != nil {
		return nil, sym, 0, err
	}
	rp, err := v.Repo(sym.Repository)
	if err != nil {
		v.Close()
		return nil, sym, 0, err
	}
	if graph.StageReached(rp.Snapshot.Stage, graph.StageTypes) {
		return v, sym, 0, nil
	}
	v.Close()
	if sym.Kind == graph.KindMethod || sym.Kind == graph.KindInterfaceMethod {
		v, sym, err := openTyped(ctx, s, sel, progress)
		return v, sym, 0, err
	}
	ident := sym.Name // every use spells it, but an import's
	if sym.Kind == graph.KindPackage {
		ident = ""
	}
	v, checked, err = s.sess.OpenChecked(ctx, rp, sym.PackagePath, ident, progress)
	if err != nil {
		return nil, sym, 0, err
	}
	// By key: the symbol found in the syntax stage, whatever the
	// selector would find among the packages checked.
	typed, err := resolve(ctx, v, selector{StableKey: sym.Key})
	if err != nil {
		v.Close()
		return nil, sym, 0, err
	}
	return v, typed, checked, nil
}

// typeErrorSpots starts the blind spots of an answer read from the types
// of repo: its packages that did not type-check hide what.
func typeErrorSpots(ctx context.Context, v *session.View, repo, what string) (blind.Spots, error) {
	facts, err := v.Facts(ctx, repo)
	if err != nil {
		return blind.Spots{}, err
	}
	var c blind.Spots
	c.AddTypeErrors(facts, what)
	return c, nil
}

// openPath opens a view and locates the path parameter in it (a file or
// directory of repository, or of the root it is in), as openSymbol does a
// symbol; the caller closes the view.
func openPath(ctx context.Context, s *Service, path, repository string, progress func(Progress)) (*session.View, session.Located, error) {
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, session.Located{}, err
	}
	loc, err := v.Locate("path", path, repository)
	if err != nil {
		v.Close()
		return nil, session.Located{}, err
	}
	v.Use(loc.Repo.Name)
	return v, loc, nil
}

// resolveInIndexedFile resolves name among the declarations the index
// holds for a file of a language it reads through SCIP (TypeScript,
// JavaScript, Python): Sextant parses only Go, so the file's own
// declarations, by qualified name, are what it can resolve there.
func resolveInIndexedFile(ctx context.Context, v *session.View, loc session.Located, name string) (graph.Symbol, error) {
	syms, err := v.Reader().LookupSymbols(ctx, graph.Lookup{Repository: loc.Repo.Name, PathPrefix: loc.Rel, QualifiedName: name})
	if err != nil {
		return graph.Symbol{}, graph.Wrap(graph.CodeInternal, err, "looking up "+name)
	}
	var found []graph.Symbol
	for _, s := range syms {
		if s.Path == loc.Rel {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return graph.Symbol{}, graph.Errorf(graph.CodeSymbolNotFound,
			"%s is not declared in %s as indexed (of a %s file, its own declarations resolve)", name, loc.Rel, graph.LanguageName(graph.LanguageOf(loc.Rel))).
			WithData("suggestions", suggest(ctx, v, name))
	}
	return graph.Symbol{}, ambiguous(name, found, "file")
}
