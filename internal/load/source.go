package load

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/filecache"
	"github.com/sextant-dev/sextant/internal/par"
)

// LoaderEnv names the environment variable that picks how dependencies
// are loaded: "export" asks the go command for compiled export data
// (go list -export, which compiles every dependency the build cache lacks,
// cgo and the C compiler included, so it is for measuring, not for
// repositories one does not trust); anything else, the default,
// type-checks them from source and runs no compiler.
const LoaderEnv = "SEXTANT_LOADER"

// fromSource reports whether dependencies are type-checked from source.
func fromSource() bool { return os.Getenv(LoaderEnv) != "export" }

// Packages is packages.Load for cfg, with the dependencies of the initial
// packages type-checked from their source instead of read from export
// data.
//
// Export data costs a compile of every dependency the build cache does
// not already hold, which on a fresh machine is most of the time a first
// index takes (tens of minutes for a large module). A dependency's
// exported types need none of its function bodies: here the go command
// only lists the package graph (go list -deps, no build), and every
// dependency is parsed and type-checked with IgnoreFuncBodies, as many at
// once as there are CPUs, each as soon as its own imports are done. The
// initial packages get what cfg.Mode asks for, exactly as packages.Load
// gives it (syntax through cfg.ParseFile, full type information, errors,
// IllTyped); dependencies keep their types and drop their syntax once
// checked.
//
// With SEXTANT_LOADER=export, Packages is packages.Load itself.
func Packages(cfg *packages.Config, patterns ...string) ([]*packages.Package, error) {
	pkgs, keep, err := packagesWhen(cfg, nil, patterns...)
	keep()
	return pkgs, err
}

// packagesWhen is Packages whose check, from source, waits for ready
// once the package graph is listed (nil: it does not wait), and which
// leaves the writing of the type cache to keep (see LoadWhen).
func packagesWhen(cfg *packages.Config, ready <-chan *Parsed, patterns ...string) ([]*packages.Package, func(), error) {
	if !fromSource() || cfg.Mode&NeedTypesAny == 0 {
		pkgs, err := packages.Load(cfg, patterns...)
		return pkgs, func() {}, err
	}
	return fromSourceWith(cfg, sourceOptions{cache: openTypeCache(), ready: ready}, patterns...)
}

// Parsed are Go files parsed before their load (by an index's syntax
// stage), each into Fset from the content Sum hashes, with the mode the
// load parses an initial package's files in (see ParseMode). A load given
// them takes a file's parse from there instead of parsing it again when
// the file still has that content.
type Parsed struct {
	Fset  *token.FileSet
	Files map[string]ParsedFile // by file name
}

// ParsedFile is one file of Parsed: its syntax, its parse error, and the
// SHA-256 of the content parsed.
type ParsedFile struct {
	File *ast.File
	Err  error
	Sum  [sha256.Size]byte
}

// ParseMode is how the files of an initial package are parsed when the
// configuration gives no ParseFile: as packages.Load parses them, with
// comments, but without object resolution, which nothing reads.
const ParseMode = parser.AllErrors | parser.ParseComments | parser.SkipObjectResolution

// checkedHook is called with each package once it is checked, before the
// packages importing it are; a test replaces it.
var checkedHook = func(*packages.Package) {}

// listed is called when a load that waits for its ready channel has
// listed the package graph and begins to wait; a test replaces it.
var listed = func() {}

// sourceOptions are the choices of a load from source beyond its
// configuration.
type sourceOptions struct {
	cache *filecache.Cache // dependencies' types (nil: none)
	stats *typeCacheStats  // what the cache gave and took (nil: not counted)
	// ready, when set, holds the check until it delivers the files parsed
	// ahead or is closed (see LoadWhen).
	ready <-chan *Parsed
}

// fromSourceWith is Packages from source as opts say. The dependencies'
// types it checked are put in the cache when keep is called.
func fromSourceWith(cfg *packages.Config, opts sourceOptions, patterns ...string) (_ []*packages.Package, keep func(), _ error) {
	keep = func() {}
	stats := opts.stats
	if stats == nil {
		stats = &typeCacheStats{}
	}
	// The package graph without compiled files or sizes: either makes the
	// go command run cgo, and cgo runs the C compiler over the preamble,
	// which a hostile repository fills with #include "/etc/passwd" (the
	// compiler's error quotes it) or "/dev/zero" (it allocates without
	// bound). No C toolchain runs: every package, initial or not, is
	// checked from its Go files with import "C" taken on trust.
	meta := *cfg
	meta.Mode = cfg.Mode&^(packages.NeedTypes|packages.NeedSyntax|packages.NeedTypesInfo|packages.NeedCompiledGoFiles|packages.NeedTypesSizes) |
		packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule
	// The sizes come from one more go command, run beside the listing, as
	// packages.Load runs it, so the load waits for neither twice.
	type sized struct {
		sizes types.Sizes
		err   error
	}
	sizing := make(chan sized, 1)
	go func() {
		s, err := sizesFor(cfg)
		sizing <- sized{s, err}
	}()
	roots, err := packages.Load(&meta, patterns...)
	sz := <-sizing
	if err != nil {
		return nil, keep, err
	}
	if sz.err != nil {
		return nil, keep, sz.err
	}
	sizes := sz.sizes
	fset := cfg.Fset
	if fset == nil {
		fset = token.NewFileSet()
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	c := &checker{cfg: cfg, fset: fset, ctx: ctx, cache: opts.cache, stats: stats, roots: map[*packages.Package]bool{},
		state: map[*packages.Package]*checkState{}, files: map[string]*parsed{}}
	for _, p := range roots {
		c.roots[p] = true
	}
	packages.Visit(roots, nil, func(p *packages.Package) {
		c.state[p] = &checkState{done: make(chan struct{})}
	})
	// Variants of a package share files: each file is parsed once, as
	// packages.Load does, and the same *ast.File serves every variant
	// (the call graph relies on that to see a call once). A file of an
	// initial package is parsed as one.
	for p := range c.state {
		for _, name := range p.GoFiles {
			f := c.files[name]
			if f == nil {
				f = &parsed{}
				c.files[name] = f
			}
			f.users++
			f.root = f.root || c.roots[p]
		}
	}
	for p := range c.state {
		p.TypesSizes = sizes
		if cfg.Mode&packages.NeedCompiledGoFiles != 0 {
			// Without cgo, the files checked are the Go files.
			p.CompiledGoFiles = p.GoFiles
		}
	}
	if opts.ready != nil {
		listed()
		select {
		case c.parsed = <-opts.ready:
		case <-ctx.Done():
			return nil, keep, ctx.Err()
		}
		// The files parsed ahead are positioned in a file set of their
		// own, which the load then adds to; not into one the caller gave.
		if c.parsed != nil && (cfg.Fset != nil || c.parsed.Fset == nil) {
			c.parsed = nil
		} else if c.parsed != nil {
			c.fset = c.parsed.Fset
		}
	}
	c.run(roots)
	c.parsed = nil
	for p := range c.state {
		p.Fset = c.fset
		if !c.roots[p] {
			p.Syntax = nil // released once checked; a failed check may have left some
		}
		if cfg.Mode&packages.NeedTypesSizes == 0 {
			p.TypesSizes = nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, keep, err
	}
	return roots, c.keep, nil
}

// CgoNotRun is the error of an initial package that imports "C": the C
// toolchain is never run while loading, so the package is checked from
// its Go files with C.name taken on trust (go/types' FakeImportC).
const CgoNotRun = "cgo was not run (Sextant runs no C toolchain): this package's Go files are checked without the C declarations, so uses of C names have no types"

// NeedTypesAny is the part of a mode that asks for type checking.
const NeedTypesAny = packages.NeedTypes | packages.NeedTypesInfo

// checker type-checks a package graph, dependencies first.
type checker struct {
	cfg    *packages.Config
	fset   *token.FileSet
	ctx    context.Context
	roots  map[*packages.Package]bool
	state  map[*packages.Package]*checkState
	cache  *filecache.Cache // dependencies' types by typesKey; nil for none
	stats  *typeCacheStats
	parsed *Parsed // files parsed ahead, until the check ends (nil: none)

	mu    sync.Mutex         // guards files' entries and users, and checked
	files map[string]*parsed // by file name, until its last user is checked
	// checked are the dependencies checked without errors, for keep to
	// put in the cache.
	checked []checkedTypes
}

// checkedTypes is a dependency's types and the key to cache them under.
type checkedTypes struct {
	p   *packages.Package
	key filecache.Key
}

// parsed is one file's parse, shared by the packages that list it.
type parsed struct {
	once  sync.Once
	f     *ast.File
	err   error
	users int  // packages yet to be checked that list the file
	root  bool // an initial package lists it: parse it as packages.Load would
}

// checkState is one package's place in the check: done is closed once
// its types are complete (or it failed). A dependency's typesKey is set
// by then when it has one.
type checkState struct {
	done  chan struct{}
	key   filecache.Key
	keyed bool
}

// run checks every package reachable from roots and returns when all are
// done. Each package waits for its imports; a semaphore bounds how many
// are parsed and checked at once, so memory grows with the CPUs, not with
// the graph.
func (c *checker) run(roots []*packages.Package) {
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for p, st := range c.state {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(st.done)
			for _, ip := range p.Imports {
				<-c.state[ip].done
			}
			if c.ctx.Err() != nil {
				return
			}
			par.Yield(c.ctx) // work ahead of this load's (see par.Gate)
			sem <- struct{}{}
			defer func() { <-sem }()
			c.check(p)
			checkedHook(p)
		}()
	}
	wg.Wait()
}

// check parses and type-checks p, whose imports are all done.
func (c *checker) check(p *packages.Package) {
	st := c.state[p]
	if p.PkgPath == "unsafe" {
		p.Types = types.Unsafe
		st.key, st.keyed = sha256.Sum256([]byte("unsafe "+runtime.Version())), true
		return
	}
	root := c.roots[p]
	add := func(err error) { appendError(c.fset, p, err) }
	names := p.GoFiles
	// A dependency's types come from the cache when an earlier load
	// checked the same files over the same imports.
	if !root && c.cache != nil {
		st.key, st.keyed = c.typesKey(p, names)
		if st.keyed {
			if pkg := c.cachedTypes(p, st.key); pkg != nil {
				c.release(names)
				p.Types = pkg
				return
			}
		}
	}

	p.Syntax = c.parse(names, add)
	if c.ctx.Err() != nil {
		return
	}
	// Go files as written are checked with import "C" taken on trust
	// (cgo is never run, see fromSourceWith): a dependency's exported
	// types rarely involve C, and an initial package says what it lacks.
	fakeC := importsC(p.Syntax)
	if fakeC && root {
		add(packages.Error{Pos: "-", Kind: packages.ListError, Msg: CgoNotRun})
	}

	var info *types.Info
	if root && c.cfg.Mode&packages.NeedTypesInfo != 0 {
		info = &types.Info{
			Types:        make(map[ast.Expr]types.TypeAndValue),
			Defs:         make(map[*ast.Ident]types.Object),
			Uses:         make(map[*ast.Ident]types.Object),
			Implicits:    make(map[ast.Node]types.Object),
			Instances:    make(map[*ast.Ident]types.Instance),
			Scopes:       make(map[ast.Node]*types.Scope),
			Selections:   make(map[*ast.SelectorExpr]*types.Selection),
			FileVersions: make(map[*ast.File]string),
		}
	}
	p.TypesInfo = info
	tc := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			ip := p.Imports[path]
			if ip == nil || ip.Types == nil {
				return nil, fmt.Errorf("no metadata for %s", path)
			}
			return ip.Types, nil
		}),
		IgnoreFuncBodies: !root,
		FakeImportC:      fakeC,
		Error:            add,
		Sizes:            p.TypesSizes,
	}
	tc.GoVersion = goVersion(p)
	p.Types = types.NewPackage(p.PkgPath, p.Name)
	err := types.NewChecker(tc, c.fset, p.Types, info).Files(p.Syntax)
	if err != nil && len(p.Errors) == 0 {
		add(err) // an error the checker did not report through tc.Error
	}
	ill := len(p.Errors) > 0
	for _, ip := range p.Imports {
		ill = ill || ip.IllTyped
	}
	p.IllTyped = ill
	if !root {
		// A dependency's syntax served its check: its importers read its
		// types alone. Released now rather than when the load ends, the
		// load holds the syntax of the packages being checked, not of
		// every dependency (the declarations of a vendor tree).
		p.Syntax = nil
	}
	if st.keyed && !ill && c.ctx.Err() == nil {
		c.mu.Lock()
		c.checked = append(c.checked, checkedTypes{p, st.key})
		c.mu.Unlock()
	}
}

// keep puts the dependencies' types the load checked in the cache, on
// every CPU, and forgets them: a second call does nothing. Encoding and
// writing them costs a seventh of a first load's CPU (prometheus: 6 s),
// which a caller can spend after it has answered.
func (c *checker) keep() {
	c.mu.Lock()
	todo := c.checked
	c.checked = nil
	c.mu.Unlock()
	par.Each(len(todo), func(i int) { c.storeTypes(todo[i].p, todo[i].key) })
}

// importsC reports whether any of files imports "C".
func importsC(files []*ast.File) bool {
	for _, f := range files {
		for _, im := range f.Imports {
			if im.Path.Value == `"C"` {
				return true
			}
		}
	}
	return false
}

// sizesFor returns the type sizes of the compiler and architecture the go
// command builds for under cfg, as packages.Load computes them.
func sizesFor(cfg *packages.Config) (types.Sizes, error) {
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	cmd := exec.CommandContext(ctx, "go", "env", "GOARCH")
	cmd.Dir, cmd.Env = cfg.Dir, cfg.Env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("asking the go command for GOARCH: %w", err)
	}
	arch := strings.TrimSpace(string(out))
	sizes := types.SizesFor("gc", arch)
	if sizes == nil {
		return nil, fmt.Errorf("no type sizes for architecture %q", arch)
	}
	return sizes, nil
}

// parse parses the files of one package in order, in parallel, or takes
// them from another variant's parse. Files of initial packages are
// parsed as packages.Load parses them (cfg.ParseFile, comments kept); a
// file only dependencies list needs only its declarations' types, so its
// comments and object resolution are skipped. A file is forgotten once
// the last package listing it has taken it.
func (c *checker) parse(names []string, add func(error)) []*ast.File {
	out := make([]*ast.File, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		e := c.take(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.once.Do(func() { e.f, e.err = c.parseFile(name, e.root) })
			out[i], errs[i] = e.f, e.err
		}()
	}
	wg.Wait()
	kept := out[:0]
	for i, f := range out {
		if errs[i] != nil {
			add(errs[i])
		}
		if f != nil {
			kept = append(kept, f)
		}
	}
	return kept
}

// take returns the shared parse of a file for one of the packages
// listing it, and forgets it after the last.
func (c *checker) take(name string) *parsed {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.files[name]
	if e.users--; e.users == 0 {
		delete(c.files, name)
	}
	return e
}

// release gives up a package's claim on its files without parsing them.
func (c *checker) release(names []string) {
	for _, name := range names {
		c.take(name)
	}
}

// parseFile reads and parses one file, from the overlay if it is there.
func (c *checker) parseFile(name string, root bool) (*ast.File, error) {
	src, ok := c.cfg.Overlay[name]
	if !ok {
		var err error
		if src, err = os.ReadFile(name); err != nil {
			return nil, err
		}
	}
	if root && len(src) > LargeFileLimit() {
		// Declarations alone (see LargeFileLimit), parsed as an initial
		// package's files are, whatever parsed it ahead.
		return parser.ParseFile(c.fset, name, declarationsOnly(src), ParseMode)
	}
	if root && c.cfg.ParseFile != nil {
		return c.cfg.ParseFile(c.fset, name, src)
	}
	if root && c.parsed != nil {
		if pf, ok := c.parsed.Files[name]; ok && pf.Sum == sha256.Sum256(src) {
			return pf.File, pf.Err
		}
	}
	mode := parser.AllErrors | parser.SkipObjectResolution
	if root {
		mode = ParseMode
	} else {
		src = blankBodies(src) // checked without them (see bodies.go)
	}
	return parser.ParseFile(c.fset, name, src, mode)
}

// appendError records err on p the way packages.Load does: parse errors,
// type errors (also in TypeErrors) and anything else, each as a
// packages.Error.
func appendError(fset *token.FileSet, p *packages.Package, err error) {
	var list scanner.ErrorList
	var pathErr *os.PathError
	var te types.Error
	var pe packages.Error
	switch {
	case errors.As(err, &pe):
		p.Errors = append(p.Errors, pe)
	case errors.As(err, &list):
		for _, e := range list {
			p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
		}
	case errors.As(err, &pathErr):
		p.Errors = append(p.Errors, packages.Error{Pos: pathErr.Path + ":1", Msg: pathErr.Err.Error(), Kind: packages.ParseError})
	case errors.As(err, &te):
		p.TypeErrors = append(p.TypeErrors, te)
		p.Errors = append(p.Errors, packages.Error{Pos: fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
	default:
		p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: strings.TrimSpace(err.Error()), Kind: packages.UnknownError})
	}
}

// importerFunc is a types.Importer from a function.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
