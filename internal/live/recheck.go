package live

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Checking a loaded package again in memory: an edit's files are parsed
// again and the package is type-checked against the dependency types of
// the load, without the go command. That holds only while the edit leaves
// what the go command decided unchanged (the same files, package clause
// and imports, no cgo); anything else is errReload. The position tools'
// entries (recheck) and the indexer's (TakeChecked) both do it this way.

// errReload says an edit cannot be absorbed by type-checking again in
// memory: the package must be loaded anew with the go command.
var errReload = errors.New("reload needed")

// edit is a file of a result's own package whose content changed.
type edit struct {
	data  []byte
	stamp stamp
}

// recheck absorbs edits to the Go files of a result's one package without
// the go command, keeping the syntax and type errors the edit introduces
// (the position tools report them). A result of several packages (test
// variants) is errReload.
func recheck(old *Result, edits map[string]edit) (*Result, error) {
	if len(old.Packages) != 1 {
		return nil, errReload
	}
	op := old.Packages[0]
	for _, e := range op.Errors {
		if e.Kind == packages.ListError && !strings.HasPrefix(e.Msg, "# ") {
			return nil, errReload
		}
	}
	old.mu.Lock()
	nr := &Result{Root: old.Root, Unit: old.Unit, Fset: old.Fset, key: old.key, size: old.size, cache: old.cache,
		src: maps.Clone(old.src), stamps: maps.Clone(old.stamps), dirs: maps.Clone(old.dirs),
		ssa: map[*packages.Package]*ssaState{}}
	old.mu.Unlock()

	oldSyntax := syntaxByName(op)
	var errs []packages.Error
	files := make([]*ast.File, 0, len(op.CompiledGoFiles))
	used := 0
	for _, name := range op.CompiledGoFiles {
		rel, ok := localRel(old.Root, name)
		if !ok {
			return nil, errReload // cgo output, or a file outside the root
		}
		prev := oldSyntax[name]
		e, edited := edits[rel]
		if !edited {
			if prev == nil {
				return nil, errReload
			}
			files = append(files, prev)
			continue
		}
		used++
		f, err, ok := reparse(old.Fset, name, e.data, prev)
		if !ok {
			return nil, errReload
		}
		var list scanner.ErrorList
		if errors.As(err, &list) {
			for _, se := range list {
				errs = append(errs, packages.Error{Pos: se.Pos.String(), Msg: se.Msg, Kind: packages.ParseError})
			}
		}
		files = append(files, f)
		nr.src[name] = e.data
		nr.stamps[rel] = e.stamp
	}
	if used != len(edits) {
		return nil, errReload // an edited file is not one of the package's
	}
	np, typeErrs, _ := typeCheck(old.Fset, op, files, nil)
	for _, te := range typeErrs {
		errs = append(errs, packages.Error{Pos: old.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
	}
	np.Errors = errs
	np.IllTyped = len(errs) > 0
	nr.Packages = []*packages.Package{np}
	return nr, nil
}

// syntaxByName returns the syntax of p's files by filename.
func syntaxByName(p *packages.Package) map[string]*ast.File {
	out := map[string]*ast.File{}
	for _, f := range p.Syntax {
		if tf := p.Fset.File(f.FileStart); tf != nil {
			out[tf.Name()] = f
		}
	}
	return out
}

// reparse parses the new content src of the file name, whose syntax at
// the load was prev, and reports with ok whether it keeps what the go
// command decided from it: a package clause of the same name and the same
// imports. err holds its syntax errors.
func reparse(fset *token.FileSet, name string, src []byte, prev *ast.File) (f *ast.File, err error, ok bool) {
	f, err = parser.ParseFile(fset, name, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	ok = f != nil && prev != nil && f.Name.Name == prev.Name.Name && slices.Equal(importPaths(f), importPaths(prev))
	return f, err, ok
}

// importPaths returns the quoted import paths of f, in order: an edit
// that changes them changes what the go command would load.
func importPaths(f *ast.File) []string {
	out := make([]string, len(f.Imports))
	for i, s := range f.Imports {
		out[i] = s.Path.Value
	}
	return out
}

// typeCheck type-checks files as the package op anew, against the
// dependency types its load gave it, or those of override for the import
// paths it has (packages checked again just before op). It returns op
// with the new syntax, types and type errors (Errors is the caller's to
// set), the type errors, and how many errors the checker reported in all.
func typeCheck(fset *token.FileSet, op *packages.Package, files []*ast.File, override map[string]*packages.Package) (*packages.Package, []types.Error, int) {
	info := newTypesInfo()
	var typeErrs []types.Error
	n := 0
	conf := &types.Config{
		Importer: importerOf(op, override),
		Sizes:    op.TypesSizes,
		Error: func(err error) {
			n++
			if te, ok := err.(types.Error); ok {
				typeErrs = append(typeErrs, te)
			}
		},
	}
	if op.Module != nil && op.Module.GoVersion != "" {
		conf.GoVersion = "go" + op.Module.GoVersion
	}
	tp := types.NewPackage(op.PkgPath, op.Name)
	if err := types.NewChecker(conf, fset, tp, info).Files(files); err != nil && n == 0 {
		n++
	}
	np := *op
	np.Syntax, np.Types, np.TypesInfo, np.TypeErrors, np.Errors = files, tp, info, typeErrs, nil
	np.IllTyped = len(typeErrs) > 0
	if len(override) > 0 {
		np.Imports = make(map[string]*packages.Package, len(op.Imports))
		for path, ip := range op.Imports {
			if f := override[path]; f != nil {
				ip = f
			}
			np.Imports[path] = ip
		}
	}
	return &np, typeErrs, n
}

// newTypesInfo returns a types.Info recording everything go/packages
// records with NeedTypesInfo.
func newTypesInfo() *types.Info {
	return &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		Implicits: map[ast.Node]types.Object{}, Instances: map[*ast.Ident]types.Instance{}, Scopes: map[ast.Node]*types.Scope{},
		Selections: map[*ast.SelectorExpr]*types.Selection{}, FileVersions: map[*ast.File]string{},
	}
}

// importerOf returns an importer that gives p's imports the types the
// load gave them, or those of override for the paths it has. Only
// complete packages are given.
func importerOf(p *packages.Package, override map[string]*packages.Package) types.Importer {
	return importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		if o := override[path]; o != nil {
			return o.Types, nil
		}
		if ip := p.Imports[path]; ip != nil && ip.Types != nil && ip.Types.Complete() {
			return ip.Types, nil
		}
		return nil, errors.New("no types for " + path)
	})
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
