package effects

import (
	"go/token"
	"go/types"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/callgraph"
)

// Direct is one direct cause found in a function's own body.
type Direct struct {
	Caller callgraph.Func // the declaration the body belongs to (literals fold into it)
	// Effect is an effect, or graph.EffectOpen; "" marks a dynamic call
	// (at Site, the called method's name) that the table vouches for, so
	// an unresolved edge there does not make the caller open.
	Effect  graph.Effect
	Site    callgraph.Pos
	Certain bool
	Callee  string // the callee's name when the cause is a call, e.g. "fmt.Fprintln"
	Detail  string
}

// Collector reads the direct effects of SSA functions; its Visit method
// is the call graph's Options.Visit. It reads, in each function body:
//
//   - go statements (spawn), channel sends, receives, select and close
//     (chan), explicit panic calls (panic);
//   - stores to package-level variables, or through them to their fields
//     and elements, and map updates of package-level maps (global), except
//     in the package initialiser; reads of os.Args (env);
//   - conversions to or from unsafe.Pointer and unsafe.Add, Slice,
//     String, StringData, SliceData (unsafe); calls of cgo's _Cfunc_
//     functions (cgo);
//   - static calls of table lines marked @arg or @recv. The argument (or
//     receiver) decides: an *os.File loaded from os.Stdout, os.Stderr or
//     os.Stdin is stdio; another *os.File is fs; a value of a type of
//     package net or crypto/tls (or net.Conn) is net; *bytes.Buffer,
//     *strings.Builder, *bytes.Reader and *strings.Reader are nothing;
//     any other value, and one whose dynamic type is not visible at the
//     call (a parameter, a field, a call's result), makes the function
//     open: the standard library will call its methods, which the call
//     graph does not see. This is how io.Writer.Write on an *os.File is
//     decided: only when the receiver's dynamic type is known, at a
//     static call or where the value is converted to the interface.
//
// It also records which interface methods are called (AbstractMethods),
// so that Compute can tell an edge to one of them (its implementations
// elided) from an edge to a concrete function.
//
// A Collector is used by one goroutine at a time.
type Collector struct {
	mu       sync.Mutex // KeepBody runs on the build's workers
	direct   []Direct
	visited  []callgraph.Func
	seenFn   map[callgraph.Func]bool
	seen     map[directKey]bool
	abstract map[string]bool
}

type directKey struct {
	caller string
	effect graph.Effect
	site   callgraph.Pos
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{seen: map[directKey]bool{}, seenFn: map[callgraph.Func]bool{}, abstract: map[string]bool{}}
}

// Take returns the direct causes collected since the last Take, and the
// declarations whose bodies were visited (once each).
func (c *Collector) Take() ([]Direct, []callgraph.Func) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, v := c.direct, c.visited
	c.direct, c.visited = nil, nil
	return d, v
}

// AbstractMethods returns the names of the interface methods called in
// the functions visited so far.
func (c *Collector) AbstractMethods() map[string]bool { return c.abstract }

func (c *Collector) add(fn *ssa.Function, caller callgraph.Func, e graph.Effect, pos token.Pos, certain bool, callee, detail string) {
	if !pos.IsValid() {
		pos = fn.Pos()
	}
	if !pos.IsValid() {
		return
	}
	p := fn.Prog.Fset.Position(pos)
	site := callgraph.Pos{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
	k := directKey{caller: caller.Name + "@" + caller.Pos.String(), effect: e, site: site}
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.direct = append(c.direct, Direct{Caller: caller, Effect: e, Site: site, Certain: certain, Callee: callee, Detail: detail})
}

// Visit reads the direct effects of fn's body, attributing them to caller.
func (c *Collector) Visit(fn *ssa.Function, caller callgraph.Func) {
	if fn.Synthetic != "" && fn.Parent() == nil && !isInstance(fn) {
		return // wrappers and thunks: their work is the wrapped function's
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.visit(caller)
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			c.instr(fn, caller, instr)
		}
	}
}

func isInstance(fn *ssa.Function) bool { return fn.Origin() != nil }

func (c *Collector) instr(fn *ssa.Function, caller callgraph.Func, instr ssa.Instruction) {
	switch in := instr.(type) {
	case *ssa.Go:
		c.add(fn, caller, graph.EffectSpawn, in.Pos(), true, "", "go statement")
		c.call(fn, caller, in.Common(), in.Pos())
	case *ssa.Defer:
		c.call(fn, caller, in.Common(), in.Pos())
	case *ssa.Call:
		c.call(fn, caller, in.Common(), in.Pos())
	case *ssa.Send:
		c.add(fn, caller, graph.EffectChan, in.Pos(), true, "", "channel send")
	case *ssa.Select:
		c.add(fn, caller, graph.EffectChan, in.Pos(), true, "", "select statement")
	case *ssa.UnOp:
		switch in.Op {
		case token.ARROW:
			c.add(fn, caller, graph.EffectChan, in.Pos(), true, "", "channel receive")
		case token.MUL:
			if g, ok := in.X.(*ssa.Global); ok && g.Pkg != nil && g.Pkg.Pkg.Path() == "os" && g.Name() == "Args" {
				c.add(fn, caller, graph.EffectEnv, in.Pos(), true, "", "reads os.Args")
			}
		}
	case *ssa.Panic:
		if in.Pos().IsValid() {
			c.add(fn, caller, graph.EffectPanic, in.Pos(), true, "", "panic call")
		}
	case *ssa.Store:
		if g := globalRoot(in.Addr, 0); g != nil && !isInitializer(fn) {
			c.add(fn, caller, graph.EffectGlobal, in.Pos(), true, "", "writes package variable "+globalName(g))
		}
	case *ssa.MapUpdate:
		if g := globalRoot(in.Map, 0); g != nil && !isInitializer(fn) {
			c.add(fn, caller, graph.EffectGlobal, in.Pos(), true, "", "writes package map "+globalName(g))
		}
	case *ssa.Convert:
		if isUnsafePointer(in.Type()) || isUnsafePointer(in.X.Type()) {
			c.add(fn, caller, graph.EffectUnsafe, in.Pos(), true, "", "unsafe.Pointer conversion")
		}
	}
}

// visit records caller as analysed. The caller holds c.mu.
func (c *Collector) visit(caller callgraph.Func) {
	if !c.seenFn[caller] {
		c.seenFn[caller] = true
		c.visited = append(c.visited, caller)
	}
}

// KeepBody is the call graph's Options.KeepBody: it keeps the bodies
// Keep keeps. A declared function whose body it lets go has no call and
// no direct cause, so it is pure: it is recorded as analysed, since the
// call graph will not Visit it.
func (c *Collector) KeepBody(fn *ssa.Function) bool {
	if Keep(fn) {
		return true
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok || fn.Parent() != nil || fn.Synthetic != "" || isInstance(fn) {
		return false
	}
	p := fn.Prog.Fset.Position(obj.Pos())
	f := callgraph.Func{Name: callgraph.FuncName(obj),
		Pos: callgraph.Pos{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}}
	c.mu.Lock()
	c.visit(f)
	c.mu.Unlock()
	return false
}

// Keep reports whether fn's own body has a direct cause the Collector
// reads apart from calls (a go statement, a channel operation, a panic,
// a package variable written, unsafe, os.Args): the call graph's Options.KeepBody,
// so that a CHA build does not drop such a body for having no call. It
// keeps no state, as the build's workers call it concurrently.
func Keep(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.Send, *ssa.Select, *ssa.Go:
				return true
			case *ssa.UnOp:
				if in.Op == token.ARROW {
					return true
				}
				if g, ok := in.X.(*ssa.Global); ok && in.Op == token.MUL && g.Name() == "Args" {
					return true
				}
			case *ssa.Panic:
				return in.Pos().IsValid()
			case *ssa.Store:
				if globalRoot(in.Addr, 0) != nil {
					return true
				}
			case *ssa.MapUpdate:
				if globalRoot(in.Map, 0) != nil {
					return true
				}
			case *ssa.Convert:
				if isUnsafePointer(in.Type()) || isUnsafePointer(in.X.Type()) {
					return true
				}
			}
		}
	}
	return false
}

// isInitializer reports whether fn belongs to a package initialiser,
// where writing package variables is their initialisation.
func isInitializer(fn *ssa.Function) bool {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn.Synthetic == "package initializer"
}

// globalRoot returns the package-level variable v addresses or reads a
// map from, through field and element addresses and loads, or nil.
func globalRoot(v ssa.Value, depth int) *ssa.Global {
	if depth > 8 {
		return nil
	}
	switch v := v.(type) {
	case *ssa.Global:
		if strings.HasPrefix(v.Name(), "init$") {
			return nil
		}
		return v
	case *ssa.FieldAddr:
		return globalRoot(v.X, depth+1)
	case *ssa.IndexAddr:
		if _, ok := v.X.Type().Underlying().(*types.Slice); ok {
			// an element of a slice a package variable holds is still
			// shared state
			return globalRoot(v.X, depth+1)
		}
		return globalRoot(v.X, depth+1)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return globalRoot(v.X, depth+1)
		}
	}
	return nil
}

func globalName(g *ssa.Global) string {
	if g.Pkg != nil {
		return g.Pkg.Pkg.Name() + "." + g.Name()
	}
	return g.Name()
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}

var unsafeBuiltins = map[string]bool{"Add": true, "Slice": true, "String": true, "StringData": true, "SliceData": true}

func (c *Collector) call(fn *ssa.Function, caller callgraph.Func, cc *ssa.CallCommon, pos token.Pos) {
	if cc.IsInvoke() {
		name := callgraph.FuncName(cc.Method)
		c.abstract[name] = true
		if e := lookup(name); e != nil && !e.has(graph.EffectOpen) && !(e.arg || e.recv) {
			// The table vouches for every implementation: its effects
			// apply, and the call is not open even when nothing
			// resolves it. The call edge's site is the method name,
			// right before the parenthesis.
			for _, te := range e.effects {
				c.add(fn, caller, te.effect, namePos(pos, cc.Method.Name()), !te.possible, name, "calls "+name)
			}
			if pos.IsValid() {
				c.add(fn, caller, "", namePos(pos, cc.Method.Name()), true, name, "")
			}
		}
		return
	}
	switch v := cc.Value.(type) {
	case *ssa.Builtin:
		switch {
		case v.Name() == "close":
			c.add(fn, caller, graph.EffectChan, pos, true, "", "close of a channel")
		case unsafeBuiltins[v.Name()] && v.Object() != nil && v.Object().Pkg() == types.Unsafe:
			c.add(fn, caller, graph.EffectUnsafe, namePos(pos, v.Name()), true, "unsafe."+v.Name(), "calls unsafe."+v.Name())
		}
		return
	}
	callee := cc.StaticCallee()
	if callee == nil {
		return
	}
	if strings.HasPrefix(callee.Name(), "_Cfunc_") || strings.HasPrefix(callee.Name(), "_C2func_") {
		// The call is in cgo's generated code; its position, mapped back
		// by line directives, is near the C.f of the original.
		cname := strings.TrimPrefix(strings.TrimPrefix(callee.Name(), "_C2func_"), "_Cfunc_")
		c.add(fn, caller, graph.EffectCgo, pos, true, "C."+cname, "calls C."+cname)
		return
	}
	obj, ok := callee.Object().(*types.Func)
	if !ok {
		return
	}
	name := callgraph.FuncName(obj)
	e := lookup(name)
	if e == nil || !(e.arg || e.recv) {
		return
	}
	var vals []ssa.Value
	if e.recv {
		if len(cc.Args) > 0 {
			vals = append(vals, cc.Args[0])
		}
	} else {
		for _, a := range cc.Args {
			if isIOValue(a.Type()) {
				vals = append(vals, a)
			}
		}
	}
	for _, a := range vals {
		eff, certain, what := decide(a)
		if eff == "" {
			continue
		}
		c.add(fn, caller, eff, namePos(pos, obj.Name()), certain, name, "calls "+name+" on "+what)
	}
}

// isIOValue reports whether t is an interface the table's @arg functions
// take their stream as: one with a Read or Write method (io.Writer,
// io.Reader, io.ReadWriter, ...).
func isIOValue(t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return isFile(t)
	}
	for i := 0; i < it.NumMethods(); i++ {
		if n := it.Method(i).Name(); n == "Read" || n == "Write" {
			return true
		}
	}
	return false
}

func isFile(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "os" && n.Obj().Name() == "File"
}

// decide returns the effect of handing v to a standard-library function
// that reads or writes it: see Collector. An empty effect means none.
func decide(v ssa.Value) (graph.Effect, bool, string) {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		v = mi.X
	} else if _, ok := v.Type().Underlying().(*types.Interface); ok {
		if _, isConst := v.(*ssa.Const); isConst {
			return "", false, ""
		}
		return graph.EffectOpen, true, "an io value of unknown type"
	}
	t := v.Type()
	if isFile(t) {
		if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
			if g, ok := u.X.(*ssa.Global); ok && g.Pkg != nil && g.Pkg.Pkg.Path() == "os" {
				switch g.Name() {
				case "Stdout", "Stderr", "Stdin":
					return graph.EffectStdio, true, "os." + g.Name()
				}
			}
		}
		return graph.EffectFS, true, "an *os.File"
	}
	name := typeName(t)
	switch {
	case memoryStreams[name]:
		return "", false, ""
	case wrapperStreams[name]:
		// The wrapper's constructor is an @arg line: the effect of the
		// stream it wraps was charged where it was wrapped.
		return "", false, ""
	case strings.HasPrefix(name, "net.") || strings.HasPrefix(name, "crypto/tls."):
		return graph.EffectNet, true, "a " + name
	}
	return graph.EffectOpen, true, "a " + types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// memoryStreams are stream types that read or write memory only.
var memoryStreams = map[string]bool{
	"bytes.Buffer": true, "bytes.Reader": true, "strings.Builder": true, "strings.Reader": true,
	"hash/crc32.digest": true, "crypto/sha256.Digest": true,
}

// wrapperStreams are standard-library stream types built around another
// stream by a constructor the table marks @arg (bufio.NewWriter, ...).
var wrapperStreams = map[string]bool{
	"bufio.Writer": true, "bufio.Reader": true, "bufio.ReadWriter": true, "bufio.Scanner": true,
	"text/tabwriter.Writer": true, "io.SectionReader": true, "io.LimitedReader": true,
	"compress/gzip.Writer": true, "compress/gzip.Reader": true, "encoding/csv.Writer": true,
	"encoding/csv.Reader": true,
}

// typeName spells a (pointer to a) named type as "pkgpath.Name".
func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
		return n.Obj().Pkg().Path() + "." + n.Obj().Name()
	}
	return ""
}

// namePos is the position of the called name of a call whose parenthesis
// is at lparen, as call edges place their sites: gofmt writes the name
// right before the parenthesis (F(x), x.M(y), C.f(z)).
func namePos(lparen token.Pos, name string) token.Pos {
	if !lparen.IsValid() || int(lparen) <= len(name) {
		return lparen
	}
	return lparen - token.Pos(len(name))
}
