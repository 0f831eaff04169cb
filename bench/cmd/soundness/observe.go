package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/bench/impacttruth"
)

// The dispatch classes of an observed call, in the order a pair seen
// at several sites is classed by: the first that fits any of them.
const (
	dRecursion   = "recursion"   // a function calling itself
	dInit        = "initialiser" // from func init or a package-level variable's initialiser
	dStatic      = "static"      // a call naming the callee
	dEmbedding   = "embedding"   // a method promoted through an embedded field, named
	dInterface   = "interface"   // through an interface method of the callee's name
	dFuncValue   = "function value"
	dUnknownSite = "other" // no call at the observed line explains it (a deferred call run at return, say)
)

var dispatchOrder = []string{dRecursion, dInit, dStatic, dEmbedding, dInterface, dFuncValue, dUnknownSite}

// site is a call site as the runtime reports it: file and line.
type site struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

func (s site) String() string { return fmt.Sprintf("%s:%d", s.Path, s.Line) }

// pair is one observed (caller, callee) of declarations.
type pair struct {
	Callee   int    `json:"-"`
	Caller   int    `json:"-"`
	Literal  bool   `json:"literal,omitempty"` // the function called is a literal in Callee
	Sites    []site `json:"sites"`
	Dispatch string `json:"dispatch"`
}

// observation is what the instrumented test run recorded.
type observation struct {
	Records       int `json:"records"`         // distinct (hook, return addresses) records
	Outside       int `json:"outside_callers"` // records whose caller is outside the module (runtime, testing, reflect, the standard library)
	LiteralInDecl int `json:"literal_in_own_declaration"`
	Unmapped      int `json:"unmapped_callers"` // callers in module files but in no declaration
	VarLiteral    int `json:"callee_literal_in_variable"`
	Pairs         int `json:"pairs"`
	Callees       int `json:"callees"`
	// Ran counts the declarations whose body (or a function literal in
	// it) ran during the tests, whoever called them: a caller outside
	// them never ran, so no call it makes could be observed.
	Ran   int `json:"declarations_run"`
	pairs []*pair
	ran   map[int]bool
}

// observe reads the pairs files under dir, written by the copy
// instrumented at instRoot, into pairs of declarations of p.
func observe(p *program, dir, instRoot string) (*observation, error) {
	files, err := filepath.Glob(filepath.Join(dir, "pairs-*.txt"))
	if err != nil {
		return nil, err
	}
	o := &observation{ran: map[int]bool{}}
	byKey := map[[2]int]*pair{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			parts := strings.Split(sc.Text(), "\t")
			if len(parts) != 5 {
				continue
			}
			o.Records++
			id, err1 := strconv.Atoi(parts[0])
			line, err2 := strconv.Atoi(parts[3])
			if err1 != nil || err2 != nil || id < 0 || id >= len(p.Hooks) {
				continue
			}
			h := p.Hooks[id]
			o.ran[h.Decl] = true
			rel, err := filepath.Rel(instRoot, parts[2])
			if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
				o.Outside++
				continue
			}
			rel = filepath.ToSlash(rel)
			caller := p.at(rel, line)
			if caller < 0 {
				o.Unmapped++
				continue
			}
			if h.Literal && caller == h.Decl {
				o.LiteralInDecl++ // a literal called where it is written: its calls are its declaration's own
				continue
			}
			if p.Decls[h.Decl].Kind == "var" {
				o.VarLiteral++ // a literal in a variable's initialiser: the variable is no function to ask about
				continue
			}
			o.ran[caller] = true // a variable's initialiser has no hook of its own
			k := [2]int{h.Decl, caller}
			pr := byKey[k]
			if pr == nil {
				pr = &pair{Callee: h.Decl, Caller: caller, Literal: h.Literal}
				byKey[k] = pr
				o.pairs = append(o.pairs, pr)
			}
			pr.Literal = pr.Literal && h.Literal
			s := site{Path: rel, Line: line}
			if !containsSite(pr.Sites, s) && len(pr.Sites) < 8 {
				pr.Sites = append(pr.Sites, s)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	sort.Slice(o.pairs, func(i, j int) bool {
		a, b := o.pairs[i], o.pairs[j]
		if a.Callee != b.Callee {
			return a.Callee < b.Callee
		}
		return a.Caller < b.Caller
	})
	callees := map[int]bool{}
	for _, pr := range o.pairs {
		callees[pr.Callee] = true
		sort.Slice(pr.Sites, func(i, j int) bool {
			if pr.Sites[i].Path != pr.Sites[j].Path {
				return pr.Sites[i].Path < pr.Sites[j].Path
			}
			return pr.Sites[i].Line < pr.Sites[j].Line
		})
	}
	o.Pairs, o.Callees, o.Ran = len(o.pairs), len(callees), len(o.ran)
	return o, nil
}

func containsSite(list []site, s site) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// typed is the syntax and types of the module's files, for classing
// calls: each file once, from the first package variant that has it.
type typed struct {
	fset  *token.FileSet
	files map[string]*ast.File   // by repo-relative path
	info  map[string]*types.Info // likewise
	root  string
}

// loadTyped loads the module at root (pristine) with its tests.
func loadTyped(root string) (*typed, error) {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:   root,
		Tests: true,
		Env:   append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, err
	}
	t := &typed{fset: cfg.Fset, files: map[string]*ast.File{}, info: map[string]*types.Info{}, root: root}
	for _, pkg := range pkgs {
		if pkg.TypesInfo == nil {
			continue
		}
		if t.fset == nil {
			t.fset = pkg.Fset
		}
		for _, f := range pkg.Syntax {
			name := pkg.Fset.Position(f.Package).Filename
			rel, err := filepath.Rel(root, name)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			if _, ok := t.files[rel]; !ok {
				t.files[rel], t.info[rel] = f, pkg.TypesInfo
				t.fset = pkg.Fset
			}
		}
	}
	return t, nil
}

// classify sets the dispatch class of every pair.
func (t *typed) classify(p *program, o *observation) {
	for _, pr := range o.pairs {
		pr.Dispatch = t.classOf(p, pr)
	}
}

func (t *typed) classOf(p *program, pr *pair) string {
	callee, caller := p.Decls[pr.Callee], p.Decls[pr.Caller]
	if pr.Callee == pr.Caller && !pr.Literal {
		return dRecursion
	}
	if caller.Kind == "var" || caller.Kind == "init" {
		return dInit
	}
	best := len(dispatchOrder) - 1
	for _, s := range pr.Sites {
		c := t.siteClass(s, callee, pr.Literal)
		for i, d := range dispatchOrder {
			if d == c && i < best {
				best = i
			}
		}
	}
	return dispatchOrder[best]
}

// siteClass classes the calls on one line that may reach callee.
func (t *typed) siteClass(s site, callee decl, literal bool) string {
	f, info := t.files[s.Path], t.info[s.Path]
	if f == nil {
		return dUnknownSite
	}
	best := dUnknownSite
	rank := func(d string) int {
		for i, x := range dispatchOrder {
			if x == d {
				return i
			}
		}
		return len(dispatchOrder)
	}
	consider := func(d string) {
		if rank(d) < rank(best) {
			best = d
		}
	}
	name := callee.Name[strings.LastIndexByte(callee.Name, '.')+1:]
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if t.line(call.Fun.Pos()) > s.Line || t.line(call.Rparen) < s.Line {
			return true
		}
		fun := ast.Unparen(call.Fun)
		switch x := fun.(type) {
		case *ast.IndexExpr:
			fun = x.X
		case *ast.IndexListExpr:
			fun = x.X
		}
		var id *ast.Ident
		var sel *ast.SelectorExpr
		switch x := fun.(type) {
		case *ast.Ident:
			id = x
		case *ast.SelectorExpr:
			id, sel = x.Sel, x
		}
		if id == nil {
			consider(dFuncValue) // a call of a call's result, of an element, of a literal
			return true
		}
		if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
			return true // a conversion
		}
		switch obj := info.Uses[id].(type) {
		case *types.Func:
			recv := obj.Signature().Recv()
			switch {
			case !literal && t.declares(obj.Origin(), callee):
				if sel != nil && info.Selections[sel] != nil && len(info.Selections[sel].Index()) > 1 {
					consider(dEmbedding)
				} else {
					consider(dStatic)
				}
			case recv != nil && types.IsInterface(recv.Type()) && obj.Name() == name:
				consider(dInterface)
			}
		case *types.Var:
			consider(dFuncValue)
		case nil:
			consider(dFuncValue)
		}
		return true
	})
	return best
}

func (t *typed) line(pos token.Pos) int { return t.fset.Position(pos).Line }

// declares reports whether obj is declared at d's identifier.
func (t *typed) declares(obj types.Object, d decl) bool {
	pos := t.fset.Position(obj.Pos())
	rel, err := filepath.Rel(t.root, pos.Filename)
	return err == nil && filepath.ToSlash(rel) == d.Path && pos.Line == d.Line && pos.Column == d.Col
}

// writeCalls writes the observed pairs as impacttruth.ObservedCall, for
// impact-bench's bound on answers read from a call graph.
func writeCalls(file string, p *program, o *observation) error {
	calls := make([]impacttruth.ObservedCall, 0, len(o.pairs))
	for _, pr := range o.pairs {
		from, to := p.Decls[pr.Caller], p.Decls[pr.Callee]
		calls = append(calls, impacttruth.ObservedCall{CallerPath: from.Path, Caller: from.Name, CalleePath: to.Path, Callee: to.Name})
	}
	impacttruth.SortCalls(calls)
	data, err := json.Marshal(calls)
	if err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}
