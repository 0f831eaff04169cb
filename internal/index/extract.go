package index

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/position"
)

// PackageRecords are the graph records of one package: what a
// graph.SnapshotWriter's AddPackage takes.
type PackageRecords struct {
	Package graph.Package
	// Files are the package's Go files under the root, build-ignored ones
	// included (Ignored set), sorted by path.
	Files []graph.File
	// Symbols are the package itself and its declarations, in file and
	// source order.
	Symbols []graph.Symbol
	// Diagnostics are the package's load, parse and type errors, sorted
	// by position.
	Diagnostics []graph.Diagnostic
}

// Sink receives what Extract produces. Package is called once per
// package, in import-path order, as soon as the package is extracted, so
// a caller can write it and let it go before the next. The
// cross-reference callbacks are called after the last package (a
// reference may point at a package extracted after it): Refs in batches,
// then CallEdges, then Implements. A nil callback drops what it would
// receive.
type Sink struct {
	Package    func(PackageRecords) error
	Refs       func([]graph.Ref) error
	CallEdges  func([]graph.CallEdge) error
	Implements func([]graph.Implements) error
	Effects    func([]graph.EffectRecord) error
}

// Extract turns loaded packages into graph records and hands them to
// sink. It stops at the first error a callback returns and returns it.
//
// pkgs is what go/packages returns with Tests set: for a package p with
// tests, "p", "p [p.test]", "p_test [p.test]" and "p.test". The test
// variant "p [p.test]" is a superset of "p" (it adds the in-package
// _test.go files), so it is indexed in place of p; the external test
// package "p_test [p.test]" is indexed as a package of its own (Path
// "p_test", TestOnly); the synthesized test main "p.test" is skipped.
// Errors of all variants are merged and deduplicated. pkgs may come from
// several loads (several file sets).
//
// Only files under root are recorded; root must be the directory the
// paths in pkgs are under (the indexer passes the symlink-free absolute
// root). mods are the modules of the repository, used when go/packages
// reports no module for a package. Packages that failed to parse or
// type-check are indexed as far as their syntax and types go; a file that
// go/packages did not parse (a cgo file, or every file of a package that
// failed to load) is parsed here and indexed from its syntax alone.
func Extract(repoName, root string, mods []graph.Module, pkgs []*packages.Package, sink Sink) error {
	x, err := newExtractor(repoName, root, mods)
	if err != nil {
		return err
	}
	for _, unit := range byFileSet(pkgs) {
		if _, err := x.finishCallEdges(context.Background(), x.startCallEdges(context.Background(), unit, nil)); err != nil {
			return err
		}
	}
	for _, g := range selectPackages(pkgs) {
		rec, xr := x.extract(context.Background(), g)
		x.keep(xr)
		if sink.Package != nil {
			if err := sink.Package(rec); err != nil {
				return err
			}
		}
	}
	_, err = x.flushXRefs(context.Background(), sink)
	return err
}

// byFileSet splits pkgs by the file set they were loaded with: one load,
// one file set.
func byFileSet(pkgs []*packages.Package) [][]*packages.Package {
	var out [][]*packages.Package
	idx := map[*token.FileSet]int{}
	for _, p := range pkgs {
		if p == nil || p.Fset == nil {
			continue
		}
		i, ok := idx[p.Fset]
		if !ok {
			i = len(out)
			idx[p.Fset] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}

// xrefCounts says how many cross-reference records were written.
type xrefCounts struct {
	refs, edges, impls int
}

// refBatch is how many references go to the sink at once.
const refBatch = 4096

// flushXRefs resolves the cross-references of every package kept and
// hands them to sink, releasing them as it goes: references, then call
// edges and effect records, then implementations.
func (x *extractor) flushXRefs(ctx context.Context, sink Sink) (xrefCounts, error) {
	r := x.xt.resolver()
	var n xrefCounts
	var err error
	if n.refs, err = x.flushRefs(ctx, r, sink); err != nil {
		return n, err
	}
	if n.edges, err = x.flushCalls(ctx, sink, nil); err != nil {
		return n, err
	}
	n.impls, err = x.flushImpls(ctx, r, sink)
	return n, err
}

// flushRefs resolves the references with r and hands them to sink.Refs in
// batches, returning how many there were. References depend on nothing
// but the packages kept, so Index writes them while the last call graph
// is still being built (see resolver).
func (x *extractor) flushRefs(ctx context.Context, r resolver, sink Sink) (int, error) {
	emitRefs := sink.Refs
	if emitRefs == nil {
		emitRefs = func([]graph.Ref) error { return nil }
	}
	return x.resolvedRefs(r, refBatch, func(b []graph.Ref) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return emitRefs(b)
	})
}

// flushImpls computes the implementations with r and hands them to
// sink.Implements, returning how many there were. Like references, they
// depend on nothing but the packages kept.
func (x *extractor) flushImpls(ctx context.Context, r resolver, sink Sink) (int, error) {
	impls := x.implementations(r)
	if err := ctx.Err(); err != nil {
		return len(impls), err
	}
	if len(impls) > 0 && sink.Implements != nil {
		if err := sink.Implements(impls); err != nil {
			return len(impls), err
		}
	}
	return len(impls), ctx.Err()
}

// flushCalls resolves the call edges and computes the effect records from
// them, once every call graph is finished, and hands them to sink,
// returning how many edges it handed. streamed are the edges already
// handed to sink (see edgeStream), which the effect records need too.
func (x *extractor) flushCalls(ctx context.Context, sink Sink, streamed []graph.CallEdge) (int, error) {
	edges := x.resolvedCallEdges()
	n := len(edges)
	if n > 0 && sink.CallEdges != nil {
		if err := sink.CallEdges(edges); err != nil {
			return n, err
		}
	}
	if len(streamed) > 0 {
		edges = append(streamed, edges...)
	}
	recs, err := x.effectRecords(edges)
	if err != nil {
		return n, err
	}
	if len(recs) > 0 && sink.Effects != nil {
		if err := sink.Effects(recs); err != nil {
			return n, err
		}
	}
	return n, ctx.Err()
}

// group is every loaded variant of one import path, with the one to index.
type group struct {
	path     string
	main     *packages.Package   // the variant to index
	variants []*packages.Package // all variants, main included, for their errors
}

// selectPackages groups pkgs by import path and picks the variant to index
// for each, returning the groups sorted by path.
func selectPackages(pkgs []*packages.Package) []*group {
	isTestMain := load.TestMains(pkgs)
	byPath := map[string]*group{}
	var testMains []*packages.Package
	for _, p := range pkgs {
		if p == nil {
			continue
		}
		if isTestMain[p] {
			testMains = append(testMains, p)
			continue
		}
		path := p.PkgPath
		if path == "" {
			path = p.ID
		}
		g := byPath[path]
		if g == nil {
			g = &group{path: path}
			byPath[path] = g
		}
		g.variants = append(g.variants, p)
	}
	// A test main's errors (a broken test file can surface there) belong
	// to the package under test.
	for _, p := range testMains {
		if g := byPath[strings.TrimSuffix(p.PkgPath, ".test")]; g != nil {
			g.variants = append(g.variants, p)
		}
	}
	out := make([]*group, 0, len(byPath))
	for _, g := range byPath {
		g.main = pickVariant(g.path, g.variants)
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *group) int { return strings.Compare(a.path, b.path) })
	return out
}

// pickVariant chooses the variant of path to index: "path [path.test]"
// when it exists (it adds the in-package tests), else "path" (or, for an
// external test package, its only variant), else the variant with the
// most files, ties broken by ID so the choice is stable.
func pickVariant(path string, variants []*packages.Package) *packages.Package {
	var best *packages.Package
	for _, p := range variants {
		if best == nil {
			best = p
			continue
		}
		if c := cmp.Compare(load.VariantRank(path, p), load.VariantRank(path, best)); c > 0 ||
			c == 0 && (len(p.GoFiles) > len(best.GoFiles) ||
				len(p.GoFiles) == len(best.GoFiles) && p.ID < best.ID) {
			best = p
		}
	}
	return best
}

// extractor holds what Extract shares across packages: the repository,
// and the files and diagnostics already emitted, so that a file or error
// seen through two variants is recorded once.
type extractor struct {
	repo      string
	root      string
	mods      []graph.Module
	seenFiles map[string]bool
	seenDiags map[graph.Diagnostic]bool
	xt        xrefTables   // cross-references of the packages kept so far
	fx        *effectState // effect causes of the units built so far (effects.go)
	missing   missingDeps  // dependencies the go command could not list (missing.go)
	large     largeFiles   // files checked for their declarations alone (calls.go)
	// maxVTACalls is callgraph.Options.MaxVTACalls for the units' call
	// graphs (0: the default); coarse is set when a unit was resolved
	// with CHA that the default would have resolved with VTA.
	maxVTACalls int
	coarse      bool
}

func newExtractor(repo, root string, mods []graph.Module) (*extractor, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolving root: %w", err)
	}
	return &extractor{
		repo:      repo,
		root:      abs,
		mods:      mods,
		seenFiles: map[string]bool{},
		seenDiags: map[graph.Diagnostic]bool{},
		xt:        newXrefTables(),
	}, nil
}

// rel returns the repo-relative, forward-slash form of an absolute path,
// and false when it is not under the root.
func (x *extractor) rel(path string) (string, bool) {
	if path == "" || !filepath.IsAbs(path) {
		return "", false
	}
	r, err := filepath.Rel(x.root, path)
	if err != nil || !filepath.IsLocal(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// source is one Go file of the package being extracted.
type source struct {
	abs     string
	rel     string
	content []byte
	test    bool
	syntax  *ast.File
	fset    *token.FileSet
	typed   bool // syntax comes from go/packages and TypesInfo covers it
	// declsOnly says the file is over load.LargeFileLimit: the load
	// checked its declarations alone, and it has no references.
	declsOnly bool
}

// pkgState is the package being extracted.
type pkgState struct {
	x       *extractor
	g       *group
	main    *packages.Package
	info    *types.Info
	types   *types.Package
	rec     PackageRecords
	sources []*source // sorted by rel
	byAbs   map[string]*source
	// identKeys maps the identifier declaring each symbol to its key.
	identKeys map[*ast.Ident]string
	xr        *pkgXRefs
	// For correspondingMethods: the package's methods by name, and
	// method-set summaries of receiver types.
	methodsByName map[string][]*types.Func
	summaries     map[types.Type]*typeSummary
	costs         callgraph.MethodSetCosts // of method sets, to skip those too large
	match         *matcher
	lines         map[string]*position.Lines // see linesOf
}

// extract builds the records of one package, and what it contributes to
// the cross-references, which the caller hands to keep unless it drops
// the package. It never fails: what cannot be read or typed is recorded
// as a diagnostic and left out.
func (x *extractor) extract(ctx context.Context, g *group) (PackageRecords, *pkgXRefs) {
	m := g.main
	s := &pkgState{x: x, g: g, main: m, info: m.TypesInfo, types: m.Types, byAbs: map[string]*source{},
		identKeys: map[*ast.Ident]string{}, xr: &pkgXRefs{path: g.path},
		summaries: map[types.Type]*typeSummary{}, match: &matcher{trees: map[string]*fpNode{}}}
	pkg := &s.rec.Package
	pkg.Path = g.path
	pkg.Name = m.Name
	pkg.TestOnly = strings.HasSuffix(m.Name, "_test") && strings.HasSuffix(g.path, "_test")
	if m.Dir != "" {
		if d, ok := x.rel(m.Dir); ok {
			pkg.Dir = d
		}
	} else if len(m.GoFiles) > 0 {
		if d, ok := x.rel(filepath.Dir(m.GoFiles[0])); ok {
			pkg.Dir = d
		}
	}
	if m.Module != nil {
		pkg.ModulePath = m.Module.Path
	} else {
		pkg.ModulePath = x.moduleOf(pkg.Dir)
	}

	s.readFiles()
	s.attachSyntax()
	s.diagnostics()
	if pkg.Name == "" {
		for _, src := range s.sources {
			if src.syntax != nil && src.syntax.Name != nil {
				pkg.Name = src.syntax.Name.Name
				break
			}
		}
	}
	s.symbols()
	s.refs()
	s.typeSummaries(ctx)

	pkg.Hash = graph.PackageHash(s.rec.Files)
	pkg.API = apiHash(s.types)
	pkg.Errors = len(s.rec.Diagnostics)
	return s.rec, s.xr
}

// moduleOf returns the path of the module whose directory holds the
// repo-relative directory dir most closely.
func (x *extractor) moduleOf(dir string) string {
	best, bestLen := "", -1
	for _, m := range x.mods {
		if m.Dir == "." || dir == m.Dir || strings.HasPrefix(dir, m.Dir+"/") {
			n := len(m.Dir)
			if m.Dir == "." {
				n = 0
			}
			if n > bestLen {
				best, bestLen = m.Path, n
			}
		}
	}
	return best
}

// readFiles reads, hashes and stats the package's Go files and its
// build-ignored Go files that are under the root.
func (s *pkgState) readFiles() {
	add := func(path string, ignored bool) {
		rel, ok := s.x.rel(path)
		if !ok || !strings.HasSuffix(path, ".go") {
			return
		}
		if _, dup := s.byAbs[path]; dup {
			return
		}
		if why := load.NotReadable(s.x.root, path); why != "" {
			// Discover reported it, and the go command saw a stub in its
			// place (load.ExcludedOverlay).
			s.byAbs[path] = nil
			return
		}
		content, mtime, err := readFile(path)
		if err != nil {
			s.addDiag(graph.Diagnostic{Path: rel, Kind: "unknown", Message: err.Error()})
			return
		}
		f := graph.File{
			Path:      rel,
			Package:   s.g.path,
			Hash:      graph.ContentHash(content),
			Size:      int64(len(content)),
			ModTimeNS: mtime,
			Test:      strings.HasSuffix(path, "_test.go"),
			Ignored:   ignored,
		}
		if !ignored {
			src := &source{abs: path, rel: rel, content: content, test: f.Test, declsOnly: len(content) > load.LargeFileLimit()}
			if src.declsOnly {
				s.addDiag(graph.Diagnostic{Path: rel, Line: 1, Col: 1, Kind: graph.KindSkipped, Message: fmt.Sprintf(
					"%s is %d bytes, over the %d of %s: indexed for its declarations only: its function bodies are not checked, and nothing in it is recorded as a reference or a call",
					rel, len(content), load.LargeFileLimit(), load.LargeFileEnv)})
			}
			s.byAbs[path] = src
			s.sources = append(s.sources, src)
		} else {
			s.byAbs[path] = nil // ignored: recorded, never parsed here
		}
		if !s.x.seenFiles[rel] {
			s.x.seenFiles[rel] = true
			s.rec.Files = append(s.rec.Files, f)
		}
	}
	for _, f := range s.main.GoFiles {
		add(f, false)
	}
	for _, f := range s.main.IgnoredFiles {
		add(f, true)
	}
	slices.SortFunc(s.sources, func(a, b *source) int { return strings.Compare(a.rel, b.rel) })
	slices.SortFunc(s.rec.Files, func(a, b graph.File) int { return strings.Compare(a.Path, b.Path) })
}

// attachSyntax pairs each source with its syntax tree: the type-checked
// one from go/packages when there is one, else one parsed here (cgo
// files, whose compiled form lives outside the root, and packages that
// failed before parsing).
func (s *pkgState) attachSyntax() {
	if fset := s.main.Fset; fset != nil {
		for _, f := range s.main.Syntax {
			if f == nil {
				continue
			}
			tf := fset.File(f.FileStart)
			if tf == nil {
				continue
			}
			src := s.byAbs[tf.Name()]
			if src == nil || src.syntax != nil {
				continue
			}
			src.syntax, src.fset, src.typed = f, fset, s.info != nil
			if tf.Size() != len(src.content) {
				// The file changed on disk since go/packages read it;
				// its byte offsets do not fit the content read here.
				src.content = nil
			}
		}
	}
	var own *token.FileSet
	for _, src := range s.sources {
		if src.syntax != nil {
			continue
		}
		if own == nil {
			own = token.NewFileSet()
		}
		f, err := parser.ParseFile(own, src.abs, src.content, parser.ParseComments|parser.SkipObjectResolution)
		if f == nil {
			s.addDiag(graph.Diagnostic{Path: src.rel, Kind: "parse", Message: err.Error()})
			continue
		}
		src.syntax, src.fset = f, own
	}
}

// diagnostics records the errors of every variant of the package,
// deduplicated, with positions converted to repo-relative paths and
// character columns, sorted by position.
func (s *pkgState) diagnostics() {
	// go list compiles the packages it lists to produce export data, and
	// reports compiler output as one list error ("# path\nfile:l:c: msg
	// ..."). When go/packages parsed or type-checked the package itself,
	// its own errors say the same thing with exact positions.
	checked := false
	for _, v := range s.g.variants {
		for _, e := range v.Errors {
			if e.Kind == packages.ParseError || e.Kind == packages.TypeError {
				checked = true
			}
		}
	}
	for _, v := range s.g.variants {
		var last *graph.Diagnostic
		var pending []graph.Diagnostic
		for _, e := range v.Errors {
			if e.Kind == packages.ListError && e.Pos == "" && strings.HasPrefix(e.Msg, "# ") {
				if !checked {
					pending = append(pending, s.compilerOutput(v, e.Msg)...)
				}
				last = nil
				continue
			}
			d := s.convertError(v, e)
			// go/types reports the other half of a two-part error
			// ("\tother declaration of X") as an error of its own.
			if strings.HasPrefix(e.Msg, "\t") && last != nil {
				last.Message += " (" + strings.TrimSpace(e.Msg) + " at " + posString(d) + ")"
				continue
			}
			pending = append(pending, d)
			last = &pending[len(pending)-1]
		}
		for _, d := range pending {
			s.addDiag(d)
		}
	}
	s.importErrors()
	slices.SortStableFunc(s.rec.Diagnostics, func(a, b graph.Diagnostic) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	// After a syntax error the parser's recovery produces a cascade of
	// follow-on errors. Like go/parser without AllErrors, keep the first
	// parse error of each line: the first is the one to fix.
	s.rec.Diagnostics = slices.CompactFunc(s.rec.Diagnostics, func(a, b graph.Diagnostic) bool {
		return a.Kind == "parse" && b.Kind == "parse" && a.Path == b.Path && a.Line == b.Line
	})
}

// compilerOutput splits the compiler output go list reports as one error
// into one diagnostic per "file:line:col: message" line; indented lines
// continue the message before them.
func (s *pkgState) compilerOutput(v *packages.Package, out string) []graph.Diagnostic {
	var ds []graph.Diagnostic
	lines := strings.Split(out, "\n")
	for _, line := range lines[1:] { // lines[0] is "# import/path"
		if line == "" {
			continue
		}
		if (line[0] == '\t' || line[0] == ' ') && len(ds) > 0 {
			ds[len(ds)-1].Message += " (" + strings.TrimSpace(line) + ")"
			continue
		}
		pos, msg, ok := cutCompilerPos(line)
		if !ok {
			ds = append(ds, graph.Diagnostic{Kind: "list", Message: line})
			continue
		}
		ds = append(ds, s.convertError(v, packages.Error{Pos: pos, Msg: msg, Kind: packages.ListError}))
	}
	return ds
}

// cutCompilerPos splits "file.go:12:5: message" into its position and
// message.
func cutCompilerPos(line string) (pos, msg string, ok bool) {
	i := strings.Index(line, ".go:")
	if i < 0 {
		return "", "", false
	}
	j := strings.Index(line[i:], ": ")
	if j < 0 {
		return "", "", false
	}
	return line[:i+j], line[i+j+2:], true
}

// posString prints a diagnostic's position as path:line:col.
func posString(d graph.Diagnostic) string {
	if d.Path == "" {
		return "-"
	}
	return fmt.Sprintf("%s:%d:%d", d.Path, d.Line, d.Col)
}

// importErrors reports, at the import that names it, why a dependency
// could not be loaded (a missing module, a package that does not exist).
// go/packages records that on the dependency, which is not indexed, and
// leaves the importer with only "could not import".
func (s *pkgState) importErrors() {
	for _, src := range s.sources {
		if src.syntax == nil {
			continue
		}
		for _, imp := range src.syntax.Imports {
			if imp.Path == nil {
				continue
			}
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				continue
			}
			dep := s.main.Imports[path]
			if dep == nil {
				continue
			}
			for _, e := range dep.Errors {
				if e.Kind != packages.ListError {
					continue
				}
				s.x.noteMissing(s.rec.Package.ModulePath, s.g.path, path, e.Msg)
				p := src.fset.PositionFor(imp.Path.Pos(), false)
				s.addDiag(graph.Diagnostic{
					Path:    src.rel,
					Line:    p.Line,
					Col:     position.CharColumn(src.content, p.Offset, p.Column),
					Kind:    "list",
					Message: fmt.Sprintf("importing %s: %s", path, strings.TrimSpace(e.Msg)),
				})
			}
		}
	}
}

func (s *pkgState) addDiag(d graph.Diagnostic) {
	d.Package = s.g.path
	if s.x.seenDiags[d] {
		return
	}
	s.x.seenDiags[d] = true
	s.rec.Diagnostics = append(s.rec.Diagnostics, d)
}

// errorKind names a go/packages error kind the way graph.Diagnostic does.
func errorKind(k packages.ErrorKind) string {
	switch k {
	case packages.ListError:
		return "list"
	case packages.ParseError:
		return "parse"
	case packages.TypeError:
		return "type"
	}
	return "unknown"
}

// convertError turns a go/packages error into a diagnostic. Positions come
// as "file:line:col", "file:line", "file" or "-"; the file may be relative
// to the directory the go command ran in. A position outside the root is
// kept in the message, since the diagnostic cannot point at it.
func (s *pkgState) convertError(v *packages.Package, e packages.Error) graph.Diagnostic {
	d := graph.Diagnostic{Kind: errorKind(e.Kind), Message: e.Msg}
	file, line, col := splitPos(e.Pos)
	if file == "" {
		return d
	}
	abs := s.resolve(v, file)
	rel, ok := s.x.rel(abs)
	if !ok {
		d.Message = e.Pos + ": " + e.Msg
		return d
	}
	d.Path, d.Line, d.Col = rel, line, col
	if line > 0 && col > 1 {
		d.Col = s.linesOf(abs).CharColumnAt(line, col)
	}
	return d
}

// linesOf returns the table of line starts of the file abs, made once per
// file from the package's copy or the disk: a package with thousands of
// errors (a dependency missing from the module cache) had each scan its
// file from the start.
func (s *pkgState) linesOf(abs string) *position.Lines {
	if l, ok := s.lines[abs]; ok {
		return l
	}
	var content []byte
	if src := s.byAbs[abs]; src != nil {
		content = src.content
	} else if b, err := os.ReadFile(abs); err == nil {
		content = b
	}
	l := position.NewLines(content)
	if s.lines == nil {
		s.lines = map[string]*position.Lines{}
	}
	s.lines[abs] = l
	return l
}

// resolve makes a file name from an error position absolute, or returns
// "" when no such file exists. go list reports names relative to the
// directory it ran in: the module directory for a module, the root for a
// workspace.
func (s *pkgState) resolve(v *packages.Package, file string) string {
	if filepath.IsAbs(file) {
		return filepath.Clean(file)
	}
	var dirs []string
	if v.Module != nil && v.Module.Dir != "" {
		dirs = append(dirs, v.Module.Dir)
	}
	dirs = append(dirs, s.x.root)
	if v.Dir != "" {
		dirs = append(dirs, v.Dir)
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, file)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// splitPos splits a go/packages error position into file, line and
// column, reading the numbers from the right so that file names with
// colons survive.
func splitPos(pos string) (file string, line, col int) {
	if pos == "" || pos == "-" {
		return "", 0, 0
	}
	file = pos
	rest, n, ok := cutNumber(file)
	if !ok {
		return file, 0, 0
	}
	file, line = rest, n
	if rest, m, ok := cutNumber(file); ok {
		file, line, col = rest, m, n
	}
	return file, line, col
}

func cutNumber(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 0 {
		return s, 0, false
	}
	return s[:i], n, true
}

// readFile returns a file's content and modification time (Unix ns),
// both from one open file, so they describe the same version of it.
func readFile(path string) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("reading file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("reading file: %w", err)
	}
	var b bytes.Buffer
	b.Grow(int(info.Size()) + bytes.MinRead)
	if _, err := b.ReadFrom(f); err != nil {
		return nil, 0, fmt.Errorf("reading file: %w", err)
	}
	return b.Bytes(), info.ModTime().UnixNano(), nil
}
