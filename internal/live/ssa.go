package live

import (
	"fmt"
	"go/types"
	"sync"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/graph"
)

type ssaState struct {
	once sync.Once
	pkg  *ssa.Package
	err  error
}

// SSA returns the SSA form of the package, built once per load. A package
// with parse or type errors has none (CHECK_ERROR): the SSA builder needs
// well-typed code.
func (p *Package) SSA() (*ssa.Package, error) {
	p.mu.Lock()
	st, ok := p.ssa[p.Pkg]
	if !ok {
		st = &ssaState{}
		p.ssa[p.Pkg] = st
	}
	p.mu.Unlock()
	st.once.Do(func() {
		st.pkg, st.err = buildSSA(p.Result, p.Pkg)
		if st.err == nil && p.cache != nil {
			p.cache.grow(p.Result, ssaBytes(p.Result, p.Pkg))
		}
	})
	return st.pkg, st.err
}

func buildSSA(r *Result, p *packages.Package) (pkg *ssa.Package, err error) {
	if len(p.Errors) > 0 || p.Types == nil || p.IllTyped {
		msgs := make([]string, 0, len(p.Errors))
		for _, e := range p.Errors {
			msgs = append(msgs, e.Error())
		}
		return nil, graph.Errorf(graph.CodeCheckError, "package %s has errors, so it has no SSA form; call check_file for them", p.PkgPath).WithData("diagnostics", msgs)
	}
	defer func() {
		if x := recover(); x != nil {
			err = graph.Errorf(graph.CodeInternal, "building SSA for %s failed: %v", p.PkgPath, x)
		}
	}()
	prog := ssa.NewProgram(r.Fset, ssa.BuilderMode(0))
	seen := map[*types.Package]bool{}
	var create func(*types.Package)
	create = func(tp *types.Package) {
		for _, ip := range tp.Imports() {
			if !seen[ip] {
				seen[ip] = true
				prog.CreatePackage(ip, nil, nil, true)
				create(ip)
			}
		}
	}
	create(p.Types)
	pkg = prog.CreatePackage(p.Types, p.Syntax, p.TypesInfo, false)
	pkg.Build()
	if pkg == nil {
		return nil, fmt.Errorf("no SSA package")
	}
	return pkg, nil
}

// bytesPerSSASourceByte estimates what a package's SSA form holds for each
// byte of its source, for the cache's bound.
const bytesPerSSASourceByte = 15

func ssaBytes(r *Result, p *packages.Package) int64 {
	var n int64
	for _, f := range p.CompiledGoFiles {
		n += int64(len(r.Src(f)))
	}
	return n * bytesPerSSASourceByte
}
