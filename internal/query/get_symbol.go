package query

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
)

// GetSymbolInput is the input of get_symbol. Exactly one selector form is
// used: stable_key; qualified_name (narrowed by repository and path); or
// file + name.
type GetSymbolInput struct {
	StableKey      string `json:"stable_key,omitempty" jsonschema:"durable key from find_symbol or another answer; alone, without repository or path"`
	QualifiedName  string `json:"qualified_name,omitempty" jsonschema:"Name, Type.Method or Type.Field, optionally prefixed by package name (http.Server) or import path (net/http.Server)"`
	Repository     string `json:"repository,omitempty" jsonschema:"narrows qualified_name to one repository, by name; also picks the repository of a relative file"`
	Path           string `json:"path,omitempty" jsonschema:"narrows qualified_name to files whose repo-relative path starts with this prefix"`
	File           string `json:"file,omitempty" jsonschema:"a Go file (repo-relative or absolute inside a root); name is then resolved as this file's source would resolve it"`
	Name           string `json:"name,omitempty" jsonschema:"with file: a local name (Server, Server.Start) or pkg.Name through the file's imports"`
	ResponseFormat string `json:"response_format,omitempty" jsonschema:"concise (default) or detailed; detailed adds columns, the full doc and the canonical identity"`
}

// MemberRow is a method or field listed under a type.
type MemberRow struct {
	Name      string `json:"name" jsonschema:"member name"`
	Kind      string `json:"kind" jsonschema:"method, field or interface_method"`
	Signature string `json:"signature" jsonschema:"member signature"`
	StableKey string `json:"stable_key" jsonschema:"durable key of the member"`
	Path      string `json:"path" jsonschema:"repo-relative file"`
	StartLine int    `json:"start_line" jsonschema:"1-based first line"`
	EndLine   int    `json:"end_line" jsonschema:"1-based last line"`
	Exported  bool   `json:"exported" jsonschema:"whether the member is exported"`
}

// SymbolDetail is one symbol in full.
type SymbolDetail struct {
	StableKey      string      `json:"stable_key" jsonschema:"durable key of the symbol"`
	Repository     string      `json:"repository" jsonschema:"repository name"`
	RepositoryPath string      `json:"repository_path" jsonschema:"absolute root of the repository"`
	PackagePath    string      `json:"package_path" jsonschema:"import path of the package"`
	PackageName    string      `json:"package_name" jsonschema:"package name"`
	ModulePath     string      `json:"module_path" jsonschema:"module path"`
	Path           string      `json:"path" jsonschema:"repo-relative file"`
	Name           string      `json:"name" jsonschema:"declared name"`
	QualifiedName  string      `json:"qualified_name" jsonschema:"Name, Type.Method or Type.Field"`
	Kind           string      `json:"kind" jsonschema:"symbol kind"`
	Signature      string      `json:"signature" jsonschema:"declaration signature"`
	Doc            string      `json:"doc,omitempty" jsonschema:"doc comment"`
	Receiver       string      `json:"receiver,omitempty" jsonschema:"receiver type of a method, e.g. *Server"`
	Exported       bool        `json:"exported" jsonschema:"whether the name is exported"`
	TestOnly       bool        `json:"test_only" jsonschema:"declared in a _test.go file"`
	StartLine      int         `json:"start_line" jsonschema:"1-based first line"`
	EndLine        int         `json:"end_line" jsonschema:"1-based last line"`
	StartColumn    int         `json:"start_column,omitempty" jsonschema:"detailed only: 1-based column in characters"`
	EndColumn      int         `json:"end_column,omitempty" jsonschema:"detailed only: 1-based column in characters"`
	Methods        []MemberRow `json:"methods,omitempty" jsonschema:"for types and interfaces: declared methods"`
	Fields         []MemberRow `json:"fields,omitempty" jsonschema:"for struct types: fields, embedded ones included"`
	Identity       string      `json:"canonical_identity,omitempty" jsonschema:"detailed only: what the stable key hashes"`
}

// GetSymbolOutput is the answer of get_symbol: one symbol, total 1.
type GetSymbolOutput struct {
	Envelope
	Results *SymbolDetail `json:"results,omitempty" jsonschema:"the symbol"`
}

// maxConciseDoc bounds the doc comment of a concise answer.
const maxConciseDoc = 1200

// GetSymbol returns one symbol's detail.
func (s *Service) GetSymbol(ctx context.Context, in GetSymbolInput, progress func(Progress)) (*GetSymbolOutput, error) {
	format, err := parseFormat(in.ResponseFormat)
	if err != nil {
		return nil, err
	}
	if err := checkSelectors("stable_key", in.StableKey, "qualified_name", in.QualifiedName,
		"repository", in.Repository, "path", in.Path, "file", in.File, "name", in.Name); err != nil {
		return nil, err
	}
	switch {
	case in.StableKey != "" && (in.QualifiedName != "" || in.File != "" || in.Name != ""):
		return nil, invalid("stable_key", "use stable_key alone; a key already names one symbol")
	case in.StableKey != "" && (in.Repository != "" || in.Path != ""):
		return nil, invalid("stable_key", "repository and path do not narrow a stable_key; drop them")
	case in.QualifiedName != "" && (in.File != "" || in.Name != ""):
		return nil, invalid("qualified_name", "give either qualified_name or file + name, not both")
	case in.File != "" && in.Name == "":
		return nil, invalid("name", "is required with file")
	case in.Name != "" && in.File == "":
		return nil, invalid("file", "is required with name; to search by name alone use qualified_name or find_symbol")
	case in.File != "" && in.Path != "":
		return nil, invalid("path", "does not narrow a file selector; drop it")
	case in.StableKey == "" && in.QualifiedName == "" && in.File == "":
		return nil, invalid("stable_key", "give one selector: stable_key, qualified_name, or file + name")
	}
	pathPrefix, err := cleanPathPrefix("path", in.Path)
	if err != nil {
		return nil, err
	}
	if in.StableKey != "" && !graph.ValidKey(in.StableKey) {
		return nil, invalid("stable_key", "%q is not a stable key (32 characters A-Z, 2-7)", in.StableKey)
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.close()
	if in.Repository != "" {
		if _, err := v.repo(in.Repository); err != nil {
			return nil, err
		}
	}
	var sym graph.Symbol
	switch {
	case in.StableKey != "":
		sym, err = v.r.SymbolByKey(ctx, in.StableKey)
		if err != nil {
			return nil, notFoundOr(err, graph.Errorf(graph.CodeSymbolNotFound,
				"no symbol has key %s in the current snapshots; keys survive edits but not renames or deletions: find it again with find_symbol", in.StableKey))
		}
	case in.QualifiedName != "":
		sym, err = v.resolveQualified(ctx, in.QualifiedName, in.Repository, pathPrefix)
	default:
		sym, err = v.resolveInFile(ctx, in.File, in.Name, in.Repository)
	}
	if err != nil {
		return nil, err
	}
	v.use(sym.Repository)
	detail, err := v.detail(ctx, sym, format)
	if err != nil {
		return nil, err
	}
	out := &GetSymbolOutput{Results: detail}
	out.Envelope = v.envelope()
	out.page(1, 0, 1, "", "")
	return out, nil
}

func notFoundOr(err error, notFound *graph.Error) error {
	if errors.Is(err, graph.ErrNotFound) {
		return notFound
	}
	return graph.Wrap(graph.CodeInternal, err, "reading the index")
}

// resolveQualified reads a qualified name in every way it can be meant:
// as written, with a leading package name, or with a leading import path.
func (v *view) resolveQualified(ctx context.Context, qn, repo, pathPrefix string) (graph.Symbol, error) {
	lookups := []graph.Lookup{{QualifiedName: qn}}
	if i := strings.LastIndex(qn, "/"); i >= 0 {
		if j := strings.Index(qn[i:], "."); j > 0 {
			lookups = append(lookups, graph.Lookup{PackagePath: qn[:i+j], QualifiedName: qn[i+j+1:]})
		}
	} else if j := strings.Index(qn, "."); j > 0 {
		lookups = append(lookups, graph.Lookup{PackageName: qn[:j], QualifiedName: qn[j+1:]})
	}
	seen := map[string]bool{}
	var found []graph.Symbol
	for _, l := range lookups {
		if l.QualifiedName == "" {
			continue
		}
		l.Repository, l.PathPrefix = repo, pathPrefix
		syms, err := v.r.LookupSymbols(ctx, l)
		if err != nil {
			return graph.Symbol{}, graph.Wrap(graph.CodeInternal, err, "looking up "+qn)
		}
		for _, s := range syms {
			if !seen[s.Key] {
				seen[s.Key] = true
				found = append(found, s)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return graph.Symbol{}, v.notFound(ctx, qn, repo, pathPrefix)
	}
	return graph.Symbol{}, ambiguous(qn, found)
}

// ambiguous lists the candidates so the caller can narrow: by repository
// and path while they differ there, by stable key once nothing else is left.
func ambiguous(qn string, found []graph.Symbol) *graph.Error {
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.Repository != b.Repository {
			return a.Repository < b.Repository
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.StartLine < b.StartLine
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
		return graph.Errorf(graph.CodeAmbiguousSymbol, "%d symbols are named %s; narrow with repository and path, or prefix the name with its package", len(found), qn).
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
func (v *view) notFound(ctx context.Context, qn, repo, pathPrefix string) error {
	last := qn
	if i := strings.LastIndexAny(last, "./"); i >= 0 && i+1 < len(last) {
		last = last[i+1:]
	}
	var suggestions []string
	seen := map[string]bool{}
	for _, mode := range []graph.MatchMode{graph.MatchFuzzy, graph.MatchSubstring} {
		syms, _, err := v.r.FindSymbols(ctx, graph.SymbolQuery{Name: last, Mode: mode, Limit: 8})
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
		msg += " in " + strings.Join(where, ", ") + "; drop repository or path to look everywhere"
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
func (v *view) resolveInFile(ctx context.Context, file, name, repository string) (graph.Symbol, error) {
	loc, err := v.locate("file", file, repository)
	if err != nil {
		return graph.Symbol{}, err
	}
	src, err := readFile(loc.repo.Root, loc.rel)
	if err != nil {
		return graph.Symbol{}, err
	}
	v.use(loc.repo.Name)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, loc.rel, src, parser.ImportsOnly|parser.SkipObjectResolution)
	if f == nil || f.Name == nil {
		return graph.Symbol{}, graph.Errorf(graph.CodeParseError, "%s does not parse as Go: %v", loc.rel, err).WithData("field", "file")
	}
	pkgPath, err := v.packageOfFile(ctx, loc, f.Name.Name)
	if err != nil {
		return graph.Symbol{}, err
	}
	lookup := func(pkg, qn string) ([]graph.Symbol, error) {
		return v.r.LookupSymbols(ctx, graph.Lookup{PackagePath: pkg, QualifiedName: qn})
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
			return graph.Symbol{}, ambiguous(name, syms)
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
			if local != qual && !(local == "" && v.importName(ctx, loc.repo.Name, ipath) == qual) {
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
				if !v.indexedPackage(ctx, ipath) {
					return graph.Symbol{}, graph.Errorf(graph.CodeSymbolNotFound,
						"%s refers to package %s, which is outside the indexed repositories", name, ipath)
				}
				return graph.Symbol{}, v.notFound(ctx, ipath+"."+rest, "", "")
			}
			return graph.Symbol{}, ambiguous(name, syms)
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
		"%s does not resolve in %s: it is neither declared in package %s nor reached through the file's imports", name, loc.rel, f.Name.Name).
		WithData("suggestions", v.suggest(ctx, name))
}

func (v *view) suggest(ctx context.Context, name string) []string {
	err := v.notFound(ctx, name, "", "")
	if e, ok := asError(err); ok {
		if s, ok := e.Data["suggestions"].([]string); ok {
			return s
		}
	}
	return nil
}

// packageOfFile returns the import path of the package the file belongs
// to: from the snapshot when it knows the file, else by its directory.
func (v *view) packageOfFile(ctx context.Context, loc located, pkgName string) (string, error) {
	if f, err := v.r.File(ctx, loc.repo.Name, loc.rel); err == nil && f.Package != "" {
		return f.Package, nil
	}
	pkgs, err := v.r.Packages(ctx, loc.repo.Name)
	if err != nil {
		return "", graph.Wrap(graph.CodeInternal, err, "reading packages")
	}
	dir := path.Dir(loc.rel)
	for _, p := range pkgs {
		if p.Dir == dir && p.Name == pkgName {
			return p.Path, nil
		}
	}
	return "", nil
}

// importName is the package name an import path brings in when the import
// has no explicit name: the indexed package's name, else the last element.
func (v *view) importName(ctx context.Context, repo, ipath string) string {
	for _, r := range v.repos {
		if p, err := v.r.Package(ctx, r.Name, ipath); err == nil {
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

func (v *view) indexedPackage(ctx context.Context, ipath string) bool {
	for _, r := range v.repos {
		if _, err := v.r.Package(ctx, r.Name, ipath); err == nil {
			return true
		}
	}
	return false
}

// detail fills a SymbolDetail, with members for types.
func (v *view) detail(ctx context.Context, sym graph.Symbol, format Format) (*SymbolDetail, error) {
	d := &SymbolDetail{
		StableKey: sym.Key, Repository: sym.Repository, PackagePath: sym.PackagePath,
		PackageName: sym.PackageName, ModulePath: sym.ModulePath, Path: sym.Path, Name: sym.Name,
		QualifiedName: sym.QualifiedName, Kind: string(sym.Kind), Signature: sym.Signature,
		Doc: sym.Doc, Receiver: sym.Receiver, Exported: sym.Exported, TestOnly: sym.TestOnly,
		StartLine: sym.StartLine, EndLine: sym.EndLine,
	}
	for _, r := range v.repos {
		if r.Name == sym.Repository {
			d.RepositoryPath = r.Root
		}
	}
	if format == Detailed {
		d.StartColumn, d.EndColumn = sym.StartCol, sym.EndCol
		variant := ""
		if sym.TestOnly {
			variant = "test"
		}
		d.Identity = graph.Identity{Language: "go", Repository: sym.Repository, PackagePath: sym.PackagePath,
			QualifiedName: sym.QualifiedName, Kind: sym.Kind, Variant: variant}.String()
		d.Identity = strings.ReplaceAll(d.Identity, "\x00", " ")
	} else if len(d.Doc) > maxConciseDoc {
		d.Doc = cutUTF8(d.Doc, maxConciseDoc) + "… (cut; response_format detailed gives all)"
	}
	if sym.Kind == graph.KindType || sym.Kind == graph.KindInterface {
		kids, err := v.r.Children(ctx, sym.Repository, sym.Key)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading members")
		}
		for _, k := range kids {
			m := MemberRow{Name: k.Name, Kind: string(k.Kind), Signature: k.Signature, StableKey: k.Key,
				Path: k.Path, StartLine: k.StartLine, EndLine: k.EndLine, Exported: k.Exported}
			if k.Kind == graph.KindField {
				d.Fields = append(d.Fields, m)
			} else {
				d.Methods = append(d.Methods, m)
			}
		}
	}
	return d, nil
}

// Text renders the symbol for an agent.
func (o *GetSymbolOutput) Text() string {
	d := o.Results
	if d == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s  (package %s, repository %s)\n", d.Kind, d.QualifiedName, d.PackagePath, d.Repository)
	fmt.Fprintf(&b, "%s:%d-%d\n", d.Path, d.StartLine, d.EndLine)
	fmt.Fprintf(&b, "%s\n", quoteContent(d.Signature))
	if d.Doc != "" {
		for _, line := range strings.Split(strings.TrimRight(d.Doc, "\n"), "\n") {
			fmt.Fprintf(&b, "// %s\n", quoteContent(line))
		}
	}
	writeMembers(&b, "fields", d.Fields, d.Path)
	writeMembers(&b, "methods", d.Methods, d.Path)
	if d.Identity != "" {
		fmt.Fprintf(&b, "identity: %s\n", d.Identity)
	}
	fmt.Fprintf(&b, "key: %s\n", d.StableKey)
	writeFreshness(&b, o.Envelope)
	return b.String()
}

func writeMembers(b *strings.Builder, title string, ms []MemberRow, path string) {
	if len(ms) == 0 {
		return
	}
	fmt.Fprintf(b, "%s:\n", title)
	for _, m := range ms {
		where := fmt.Sprintf("%d", m.StartLine)
		if m.Path != path {
			where = m.Path + ":" + where
		}
		fmt.Fprintf(b, "  %s %s\n", where, quoteContent(m.Signature))
	}
}
