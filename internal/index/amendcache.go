package index

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/load"
)

// AmendCache keeps the packages of the last few directories an amend
// loaded, so that the next edit of one of them is type-checked again in
// memory against the dependency types already loaded, without the go
// command (which costs most of an amend: `go list -export` compiles the
// edited package and its test variants). An agent edits the same package
// many times in a row; that is the case it serves.
//
// An entry holds only while what the go command decided still holds: the
// same files in the directory, the same package clauses, imports and
// build constraints, no cgo, no errors, and no file of any other package
// changed since the entry was made (their types and positions are baked
// into the dependency types it keeps). Anything else loads anew.
//
// The zero value is ready to use; it is safe for concurrent use.
type AmendCache struct {
	mu      sync.Mutex
	entries []*amendEntry // most recently used last
}

// amendCacheSize is how many directories the cache keeps.
const amendCacheSize = 4

type amendEntry struct {
	root, dir string
	// others are the hashes of the repository's files outside dir when
	// the packages were loaded.
	others map[string]string
	// pkgs are the variants extraction indexes, the package under test
	// before its external test package, which imports it.
	pkgs []*packages.Package
	// names are the .go files of dir when loaded; headers the text of
	// each before its package clause (build constraints live there).
	names   []string
	headers map[string][]byte
}

// errReload says an edit cannot be checked again in memory.
var errReload = errors.New("reload with the go command")

// take returns the packages of root/dir, checked again against the disk,
// or errReload.
func (c *AmendCache) take(root, dir string, base baseState) ([]*packages.Package, error) {
	if c == nil {
		return nil, errReload
	}
	c.mu.Lock()
	i := slices.IndexFunc(c.entries, func(e *amendEntry) bool { return e.root == root && e.dir == dir })
	var e *amendEntry
	if i >= 0 {
		e = c.entries[i]
		c.entries = slices.Delete(c.entries, i, i+1) // put back, fresh, on success
	}
	c.mu.Unlock()
	if e == nil {
		return nil, errReload
	}
	n := 0
	for p, f := range base.files {
		if path.Dir(p) == dir {
			continue
		}
		if e.others[p] != f.Hash {
			return nil, errReload
		}
		n++
	}
	if n != len(e.others) {
		return nil, errReload
	}
	if names, err := goFileNames(filepath.Join(root, filepath.FromSlash(dir))); err != nil || !slices.Equal(names, e.names) {
		return nil, errReload
	}
	return recheckAll(e)
}

// put records the packages of root/dir that an amend just indexed, for
// the next edit: pkgs are the variants extraction indexed.
func (c *AmendCache) put(root, dir string, base baseState, pkgs []*packages.Package) {
	if c == nil || len(pkgs) == 0 {
		return
	}
	full := filepath.Join(root, filepath.FromSlash(dir))
	e := &amendEntry{root: root, dir: dir, others: map[string]string{}, headers: map[string][]byte{}}
	for p, f := range base.files {
		if path.Dir(p) != dir {
			e.others[p] = f.Hash
		}
	}
	for _, p := range pkgs {
		if len(p.Errors) > 0 || p.Fset == nil || p.Types == nil || len(p.Syntax) != len(p.CompiledGoFiles) {
			return // checked again, it could not say what the go command said
		}
		for _, name := range p.CompiledGoFiles {
			if filepath.Dir(name) != full {
				return // cgo output, or a file elsewhere
			}
			src, err := os.ReadFile(name)
			if err != nil {
				return
			}
			e.headers[name] = header(src)
		}
	}
	// The package under test first: its external test package imports it.
	e.pkgs = slices.Clone(pkgs)
	slices.SortStableFunc(e.pkgs, func(a, b *packages.Package) int {
		return boolInt(strings.HasSuffix(a.Name, "_test")) - boolInt(strings.HasSuffix(b.Name, "_test"))
	})
	var err error
	if e.names, err = goFileNames(full); err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = slices.DeleteFunc(c.entries, func(o *amendEntry) bool { return o.root == root && o.dir == dir })
	c.entries = append(c.entries, e)
	if len(c.entries) > amendCacheSize {
		c.entries = c.entries[len(c.entries)-amendCacheSize:]
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// recheckAll parses the entry's files again and type-checks its packages
// in order against the dependency types of the load, each later package
// importing the earlier ones as just checked.
func recheckAll(e *amendEntry) ([]*packages.Package, error) {
	fresh := map[string]*packages.Package{} // import path → package checked again
	out := make([]*packages.Package, 0, len(e.pkgs))
	for _, op := range e.pkgs {
		np, err := recheckOne(e, op, fresh)
		if err != nil {
			return nil, err
		}
		fresh[op.PkgPath] = np
		out = append(out, np)
	}
	return out, nil
}

func recheckOne(e *amendEntry, op *packages.Package, fresh map[string]*packages.Package) (*packages.Package, error) {
	// A dependency compiled for this test binary (other than the package
	// checked again just before) was compiled against the old package:
	// its types would not be the new ones.
	if testVariantDep(op, fresh, map[*packages.Package]bool{}) {
		return nil, errReload
	}
	oldSyntax := map[string]*ast.File{}
	for _, f := range op.Syntax {
		if tf := op.Fset.File(f.FileStart); tf != nil {
			oldSyntax[tf.Name()] = f
		}
	}
	files := make([]*ast.File, 0, len(op.CompiledGoFiles))
	for _, name := range op.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(header(src), e.headers[name]) {
			return nil, errReload
		}
		prev := oldSyntax[name]
		f, err := parser.ParseFile(op.Fset, name, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || prev == nil || f.Name.Name != prev.Name.Name || !slices.Equal(load.ImportPaths(f), load.ImportPaths(prev)) {
			return nil, errReload
		}
		files = append(files, f)
	}
	info := load.NewTypesInfo()
	override := map[string]*types.Package{}
	for path, np := range fresh {
		override[path] = np.Types
	}
	failed := false
	conf := &types.Config{
		Importer: load.ImporterOf(op, override),
		Sizes:    op.TypesSizes,
		Error:    func(error) { failed = true },
	}
	if op.Module != nil && op.Module.GoVersion != "" {
		conf.GoVersion = "go" + op.Module.GoVersion
	}
	tp := types.NewPackage(op.PkgPath, op.Name)
	if err := types.NewChecker(conf, op.Fset, tp, info).Files(files); err != nil || failed {
		return nil, errReload // the go command says what is wrong, and how
	}
	np := *op
	np.Syntax, np.Types, np.TypesInfo, np.TypeErrors, np.Errors, np.IllTyped = files, tp, info, nil, nil, false
	np.Imports = map[string]*packages.Package{}
	for path, ip := range op.Imports {
		if f := fresh[path]; f != nil {
			ip = f
		}
		np.Imports[path] = ip
	}
	return &np, nil
}

// testVariantDep reports whether p depends, through packages other than
// those in fresh, on a package compiled for a test binary ("q [p.test]").
func testVariantDep(p *packages.Package, fresh map[string]*packages.Package, seen map[*packages.Package]bool) bool {
	for path, ip := range p.Imports {
		if fresh[path] != nil || seen[ip] {
			continue
		}
		seen[ip] = true
		if strings.Contains(ip.ID, " [") || testVariantDep(ip, fresh, seen) {
			return true
		}
	}
	return false
}

// header returns src up to its package clause: the build constraints and
// the file's leading comments.
func header(src []byte) []byte {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil || f.Package == 0 {
		return src
	}
	return src[:int(f.Package)-1]
}

// goFileNames lists the .go files of dir, sorted.
func goFileNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}
