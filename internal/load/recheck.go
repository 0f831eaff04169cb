package load

import (
	"errors"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/packages"
)

// What checking a loaded package again in memory needs, shared by the
// live package cache (internal/live) and the amend cache
// (internal/index.AmendCache): both parse a package's edited files again
// and type-check them against the dependency types of the load, without
// the go command.

// NewTypesInfo returns a types.Info recording everything go/packages
// records with NeedTypesInfo.
func NewTypesInfo() *types.Info {
	return &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		Implicits: map[ast.Node]types.Object{}, Instances: map[*ast.Ident]types.Instance{}, Scopes: map[ast.Node]*types.Scope{},
		Selections: map[*ast.SelectorExpr]*types.Selection{}, FileVersions: map[*ast.File]string{},
	}
}

// ImporterOf returns an importer that gives p's imports the types the
// load gave them, or those of override for the paths it has (packages
// checked again just before p). Only complete packages are given.
func ImporterOf(p *packages.Package, override map[string]*types.Package) types.Importer {
	return importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		if t := override[path]; t != nil {
			return t, nil
		}
		if ip := p.Imports[path]; ip != nil && ip.Types != nil && ip.Types.Complete() {
			return ip.Types, nil
		}
		return nil, errors.New("no types for " + path)
	})
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// ImportPaths returns the quoted import paths of f, in order: an edit
// that changes them changes what the go command would load.
func ImportPaths(f *ast.File) []string {
	out := make([]string, len(f.Imports))
	for i, s := range f.Imports {
		out[i] = s.Path.Value
	}
	return out
}
