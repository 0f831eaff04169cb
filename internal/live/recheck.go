package live

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/load"
)

// errReload says an edit cannot be absorbed by type-checking again in
// memory: the package must be loaded anew with the go command.
var errReload = errors.New("reload needed")

// edit is a file of a result's own package whose content changed.
type edit struct {
	data  []byte
	stamp stamp
}

// recheck absorbs edits to the Go files of a result's one package without
// the go command: the edited files are parsed again and the package is
// type-checked against the dependency types of the previous load. That
// holds only while the edit leaves what the go command decided unchanged:
// the same files, the same package clause, the same imports, no cgo, no
// test variants. Anything else is errReload.
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

	oldSyntax := map[string]*ast.File{}
	for _, f := range op.Syntax {
		if tf := old.Fset.File(f.FileStart); tf != nil {
			oldSyntax[tf.Name()] = f
		}
	}
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
		f, err := parser.ParseFile(old.Fset, name, e.data, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
		if f == nil || prev == nil || f.Name.Name != prev.Name.Name || !slices.Equal(load.ImportPaths(f), load.ImportPaths(prev)) {
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

	info := load.NewTypesInfo()
	var typeErrs []types.Error
	conf := &types.Config{
		Importer: load.ImporterOf(op, nil),
		Sizes:    op.TypesSizes,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				typeErrs = append(typeErrs, te)
			}
		},
	}
	if op.Module != nil && op.Module.GoVersion != "" {
		conf.GoVersion = "go" + op.Module.GoVersion
	}
	tp := types.NewPackage(op.PkgPath, op.Name)
	_ = types.NewChecker(conf, old.Fset, tp, info).Files(files)
	for _, te := range typeErrs {
		errs = append(errs, packages.Error{Pos: old.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
	}

	np := *op
	np.Syntax, np.Types, np.TypesInfo, np.TypeErrors, np.Errors = files, tp, info, typeErrs, errs
	np.IllTyped = len(errs) > 0
	nr.Packages = []*packages.Package{&np}
	return nr, nil
}
