package live

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/rootfs"
)

// The indexer's entries. An amend (internal/index.Refresh) keeps the
// packages of the directory it just indexed here, so that the next edit
// of it is type-checked again in memory against the dependency types
// already loaded, without the go command (which costs most of an amend:
// `go list -export` compiles the edited package and its test variants).
// An agent edits the same package many times in a row; that is the case
// it serves.
//
// Such an entry holds only while what the go command decided still holds:
// the same files in the directory, the same package clauses, imports and
// build constraints, no cgo, no errors, and no file of any other package
// changed since the entry was made (their types and positions are baked
// into the dependency types it keeps). Anything else loads anew. Unlike
// the position tools' entries it keeps every variant extraction indexes
// (the package under test before its external test package, which
// imports it), and a check with errors is a reload: the go command says
// what is wrong, and how.

// checkedDirs bounds how many directories' indexer entries the cache
// keeps (besides its bound in bytes, which they share with the rest).
const checkedDirs = 4

// checked is what an indexer's entry keeps beyond its Result.
type checked struct {
	// others are the hashes of the repository's files outside the
	// directory when the packages were loaded.
	others map[string]string
	// names are the .go files of the directory when loaded; headers the
	// text of each before its package clause (build constraints live
	// there).
	names   []string
	headers map[string][]byte
}

func checkedKey(root, dir string) string { return "index\x00" + root + "\x00" + dir }

// TakeChecked returns the packages PutChecked kept for the root-relative
// directory dir of root, checked again in memory against the disk, and
// removes them from the cache; files are the hashes of every file of the
// repository now, by root-relative path. An error says to load them with
// the go command. A nil cache has nothing.
func (c *Cache) TakeChecked(root, dir string, files map[string]string) ([]*packages.Package, error) {
	if c == nil {
		return nil, errReload
	}
	c.mu.Lock()
	var res *Result
	if el, ok := c.entries[checkedKey(root, dir)]; ok {
		res = el.Value.(*Result)
		c.remove(el) // put back, fresh, on success
	}
	c.mu.Unlock()
	if res == nil {
		return nil, errReload
	}
	e := res.checked
	n := 0
	for p, h := range files {
		if path.Dir(p) == dir {
			continue
		}
		if e.others[p] != h {
			return nil, errReload
		}
		n++
	}
	if n != len(e.others) {
		return nil, errReload
	}
	fsRoot, err := os.OpenRoot(root)
	if err != nil {
		return nil, errReload
	}
	defer fsRoot.Close()
	if !slices.Equal(goFiles(fsRoot, dir), e.names) {
		return nil, errReload
	}
	pkgs, err := recheckAll(fsRoot, res)
	if err == nil {
		c.rechecks.Add(1)
	}
	return pkgs, err
}

// PutChecked keeps the packages of the root-relative directory dir of
// root that an amend just indexed, for the next edit: pkgs are the
// variants extraction indexed, files the hashes of every file of the
// repository they were loaded from, by root-relative path.
func (c *Cache) PutChecked(root, dir string, files map[string]string, pkgs []*packages.Package) {
	if c == nil || len(pkgs) == 0 {
		return
	}
	full := filepath.Join(root, filepath.FromSlash(dir))
	fsRoot, err := os.OpenRoot(root)
	if err != nil {
		return
	}
	defer fsRoot.Close()
	e := &checked{others: map[string]string{}, headers: map[string][]byte{}}
	for p, h := range files {
		if path.Dir(p) != dir {
			e.others[p] = h
		}
	}
	var srcBytes int64
	for _, p := range pkgs {
		if len(p.Errors) > 0 || p.Fset == nil || p.Types == nil || len(p.Syntax) != len(p.CompiledGoFiles) {
			return // checked again, it could not say what the go command said
		}
		for _, name := range p.CompiledGoFiles {
			if filepath.Dir(name) != full {
				return // cgo output, or a file elsewhere
			}
			src, err := readUnder(fsRoot, root, name)
			if err != nil {
				return
			}
			e.headers[name] = header(src)
			srcBytes += int64(len(src))
		}
	}
	e.names = goFiles(fsRoot, dir)
	// The package under test first: its external test package imports it.
	ordered := slices.Clone(pkgs)
	slices.SortStableFunc(ordered, func(a, b *packages.Package) int {
		return boolInt(strings.HasSuffix(a.Name, "_test")) - boolInt(strings.HasSuffix(b.Name, "_test"))
	})
	res := &Result{Root: root, Fset: ordered[0].Fset, Packages: ordered, key: checkedKey(root, dir), cache: c,
		size: baseBytes + srcBytes*bytesPerSourceByte, checked: e}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.insert(res)
	kept := 0
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*Result).checked != nil {
			if kept++; kept > checkedDirs {
				c.remove(el)
			}
		}
		el = next
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
func recheckAll(fsRoot *os.Root, res *Result) ([]*packages.Package, error) {
	fresh := map[string]*packages.Package{} // import path → package checked again
	out := make([]*packages.Package, 0, len(res.Packages))
	for _, op := range res.Packages {
		np, err := recheckOne(fsRoot, res, op, fresh)
		if err != nil {
			return nil, err
		}
		fresh[op.PkgPath] = np
		out = append(out, np)
	}
	return out, nil
}

func recheckOne(fsRoot *os.Root, res *Result, op *packages.Package, fresh map[string]*packages.Package) (*packages.Package, error) {
	// A dependency compiled for this test binary (other than the package
	// checked again just before) was compiled against the old package:
	// its types would not be the new ones.
	if testVariantDep(op, fresh, map[*packages.Package]bool{}) {
		return nil, errReload
	}
	oldSyntax := syntaxByName(op)
	files := make([]*ast.File, 0, len(op.CompiledGoFiles))
	for _, name := range op.CompiledGoFiles {
		src, err := readUnder(fsRoot, res.Root, name)
		if err != nil || !bytes.Equal(header(src), res.checked.headers[name]) {
			return nil, errReload
		}
		f, err, ok := reparse(op.Fset, name, src, oldSyntax[name])
		if err != nil || !ok {
			return nil, errReload
		}
		files = append(files, f)
	}
	np, _, errs := typeCheck(op.Fset, op, files, fresh)
	if errs > 0 {
		return nil, errReload // the go command says what is wrong, and how
	}
	np.TypeErrors, np.IllTyped = nil, false
	return np, nil
}

// readUnder reads the file with absolute name under root through fsRoot.
func readUnder(fsRoot *os.Root, root, name string) ([]byte, error) {
	rel, ok := localRel(root, name)
	if !ok {
		return nil, errReload
	}
	return rootfs.ReadRegular(fsRoot, filepath.FromSlash(rel), maxFileSize)
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
