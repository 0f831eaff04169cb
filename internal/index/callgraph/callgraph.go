// Package callgraph computes the call edges of one load unit from its SSA
// form.
//
// Build takes the packages go/packages loaded for a unit (internal/load:
// syntax and types for the unit's packages, export data for their
// dependencies, test variants included), builds SSA for the unit's
// packages that type-checked, and turns each call instruction into edges
// between named declarations, identified by the position of their
// declaring identifier:
//
//   - a static call is an exact edge (Via static); a call of a function
//     declared without a body under a //go:linkname directive (a
//     stand-in for a function of another package, as ssautil has for
//     ssa.isSyntactic) is an exact edge to the stand-in and one to the
//     function it is bound to, when the unit's program has it. The
//     other way round is not followed: a body that a directive in its
//     own package pushes onto a bodyless declaration elsewhere (which
//     has no directive of its own) gets no edge from the callers of that
//     declaration;
//   - a call through an interface (Via interface) or a function value
//     (Via func_value) is resolved with VTA, or with CHA when the unit is
//     too large for VTA to be worth its cost (Options.MaxVTACalls); each
//     candidate is a candidate edge, and a dynamic call with no candidate
//     is one unresolved edge with no callee;
//   - calls from package-level code, that is from func init and from the
//     initialisers of package-level variables (whose edges start at the
//     variable), function literals in them included, are package_level
//     unless unresolved;
//   - calls made by go and defer statements have Go or Defer set.
//
// Function literals are folded into the declaration that contains them;
// synthetic functions (wrappers for promoted and pointer methods, bound
// method values, method expression thunks, generic instances) are looked
// through to the declared function they stand for. Calls in generic
// functions belong to the generic function; the callees of those that
// depend on the type arguments come from the instances the unit builds.
//
// Test variants: "p", "p [p.test]" and "p_test [p.test]" are distinct
// packages to go/types and SSA. Each variant that type-checked is created
// from its syntax; VTA gives every one of them bodies, so that values
// passed by other packages (which import "p") reach "p"'s functions; CHA,
// which follows no value between packages, builds one variant per path
// ("p [p.test]" when there is one). Edges are merged by position, so a
// call seen in two variants is one edge.
//
// The package knows nothing of stable keys or the store: the indexer
// resolves positions to symbols.
package callgraph

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Pos is a position in a source file as go/token reports it (line
// directives applied). Line and Col are 1-based; Col counts bytes, as
// go/token does: convert it to characters with the file's content,
// where Offset (0-based, in bytes) points. The zero Pos is "no
// position".
type Pos struct {
	Filename string
	Offset   int
	Line     int
	Col      int
}

// IsValid reports whether p is a position.
func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return p.Filename + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Func names one end of an edge.
//
// Pos is the position of the declaring identifier of a function or
// method (of its origin, for generics), of a package-level variable whose
// initialiser makes or contains the call, or of the init in "func init".
// It is zero when the declaration is outside the repository.
//
// Name is always set: the package path and the qualified name,
// "example.com/p.F", "example.com/p.T.M" (no pointer, no type arguments:
// "(*bytes.Buffer).Write" is "bytes.Buffer.Write"), "example.com/p.init",
// "example.com/p.v" for a variable. Interface methods are spelled the same
// way ("io.Writer.Write"); a method of an unnamed interface is
// "interface{...}.M" and a method of the error type "error.Error". The last
// dot-separated element is the identifier.
type Func struct {
	Pos  Pos
	Name string
}

// Edge is one call site from a caller to one callee.
type Edge struct {
	// Caller is the function, method, init function or package-level
	// variable the call is written in. Calls in function literals belong
	// to the named declaration enclosing the literal.
	Caller Func
	// Callee is the function or method called. It is zero for an
	// unresolved call. When the call reaches a function literal, Callee
	// is the declaration enclosing the literal and Literal is set.
	Callee  Func
	Literal bool
	// Site is the position of the called name: the identifier of F in
	// F(x), of M in x.M(y), the func keyword of an immediately called
	// literal, the parenthesis of the second call in f(x)(y); for other
	// callee expressions, the start of the expression (m in m[k](x)); for
	// the call of the iterator of a range-over-func loop, the iterator's
	// name or expression.
	Site Pos
	// Coverage is exact for a static call, candidate for each callee a
	// dynamic call may reach, unresolved for the one edge of a dynamic
	// call that reaches none found (Callee zero), and package_level in
	// place of exact and candidate when Caller is package-level code (an
	// init function or a package-level variable).
	Coverage graph.Coverage
	// Via says how the callee is resolved: static, interface or
	// func_value. A call of a generic function's type parameter method,
	// or of an interface method expression (I.M(x)), is interface; a call
	// of a method value or of a variable holding a function is
	// func_value, even when SSA knows the single target.
	Via graph.Via
	// Dispatch names what a dynamic call goes through: for Via interface
	// the abstract method (Pos set when it is declared in the repository),
	// for Via func_value the type of the function value, e.g.
	// "func(int) error". It is zero for static calls.
	Dispatch Func
	// Elided is set on the one edge that stands for the candidates of a
	// dynamic call declared outside the repository when there are more
	// than Options.MaxOutsideCandidates of them (every String method of
	// every type in the standard library that a fmt.Stringer call may
	// reach, say): it is their number, and Callee is the interface method
	// called (zero for a function value). Candidates in the repository
	// are always listed.
	Elided int
	// By is the algorithm that resolved a dynamic call, "" for a static
	// one. With VTA, a call VTA finds no callee for (its value comes from
	// a dependency, say) is resolved with CHA when CHA finds one; an
	// unresolved call has the unit's algorithm.
	By Algorithm
	// Go and Defer mark calls made by go and defer statements.
	Go    bool
	Defer bool
}

// PackageFlags tell the query layer how complete the edges of one package
// are. Variants of a package are merged under its import path; an
// external test package has its own path ("p_test").
type PackageFlags struct {
	// Built is set when SSA was built for at least one variant of the
	// package, so its edges are present.
	Built bool
	// TypeErrors is set when a variant did not type-check (its own errors
	// or those of a package it imports): no edges come from that variant.
	TypeErrors bool
	// DynamicCalls counts the distinct call sites through an interface or
	// a function value; UnresolvedCalls counts those left with no
	// candidate in any variant.
	DynamicCalls    int
	UnresolvedCalls int
	// Reflection is set when the package calls a function or method
	// through reflection: reflect.Value's Call, CallSlice, Method or
	// MethodByName, or reflect.Type's Method or MethodByName. Such calls
	// have no edges; any exported method may be their target.
	Reflection bool
}

// Algorithm names how dynamic calls were resolved.
type Algorithm string

// The resolution algorithms.
const (
	// VTA is variable type analysis (golang.org/x/tools/go/callgraph/vta)
	// over every variant of the unit's packages: a call may reach the
	// functions and the methods of the types that flow to the called
	// value through the unit's code.
	VTA Algorithm = "vta"
	// CHA is class hierarchy analysis, narrowed to stay useful on large
	// units: an interface call may reach the method of every type that
	// implements the interface and is converted to an interface somewhere
	// in the unit; a function value call may reach the functions traced
	// to it through local data flow, package variables, struct fields,
	// captured variables, and the arguments and results of static calls.
	// When the trail is lost (a map or slice element, a type assertion, a
	// parameter of a function whose value is taken), it may reach every
	// function of an identical signature whose value is taken in the
	// unit. Like VTA, it sees no value that only dependencies produce.
	CHA Algorithm = "cha"
)

// Result is what Build found for a unit.
type Result struct {
	// Edges are deduplicated per caller, site, callee and go/defer, and
	// sorted by caller position, site and callee name. With Options.Emit
	// they went there instead, and Edges is nil.
	Edges []Edge
	// Packages has an entry for every package of the unit, by import path.
	Packages map[string]*PackageFlags
	// Algorithm is how dynamic calls were resolved (Edge.By says it per
	// edge: dynamic calls in generic functions that nothing in the unit
	// instantiates are resolved with CHA whatever Algorithm is).
	Algorithm Algorithm
	// MethodSets, when set, says that the unit's method sets were too
	// large to compute in full, and what was left out (MaxMethodSetCost).
	MethodSets string
	Stats      Stats
}

// Stats describe the work Build did, for benchmarks and logs.
type Stats struct {
	Calls        int // call expressions in the unit's source, which chose the algorithm
	Packages     int // variants given SSA function bodies
	Functions    int // functions with a body whose calls were read
	Instructions int // SSA instructions in them
	StaticSites  int // call instructions with a static callee (counted per variant and instance)
	DynamicSites int // call instructions through an interface or function value (likewise)
	Create       time.Duration
	SSA          time.Duration // building function bodies
	Resolve      time.Duration // preparing VTA or CHA
	Edges        time.Duration // reading the calls into edges
}

// DefaultMaxVTACalls is the unit size, in call expressions of the unit's
// source, above which Build resolves dynamic calls with CHA instead of
// VTA. VTA needs function bodies for every variant of every package
// (the test variant of a package duplicates it) and a propagation graph
// over all of them; CHA needs one variant per package and work only at
// dynamic call sites. On golang.org/x/tools (about 44,000 calls) VTA
// adds 1.7–2.2 s of CPU to a 7 s index, and get_callers lists 1.28
// callers per caller the module's tests were seen to use where CHA lists
// 1.47 (bench/cmd/soundness); on prometheus (about 124,000) it would
// cost more than the load.
const DefaultMaxVTACalls = 60_000

// QuickMaxVTACalls is DefaultMaxVTACalls for a call graph wanted soon
// rather than sharp: a first index that an agent is waiting on uses it
// (internal/index, Options.Staged), and a whole index follows with
// DefaultMaxVTACalls when it made a difference.
const QuickMaxVTACalls = 20_000

// Options tune Build.
type Options struct {
	// InRepo reports whether a file (as go/token names it) belongs to the
	// repository. Callers outside it are skipped; callees outside it are
	// named but have no Pos. When nil, the files of the loaded packages
	// are the repository.
	InRepo func(filename string) bool
	// MaxVTACalls overrides DefaultMaxVTACalls when positive; a negative
	// value always uses CHA.
	MaxVTACalls int
	// Paced holds the SSA build of each package back until the caller
	// says it has reached the package's import path (Pending.Reached),
	// or until Pending.Open: see gate. Only Start honours it.
	Paced bool
	// MaxOutsideCandidates overrides DefaultMaxOutsideCandidates when
	// positive; a negative value lists every candidate.
	MaxOutsideCandidates int
	// Visit, when set, is called with every function whose calls are
	// read (function literals included, each variant and instance of
	// it), and the declaration the calls are attributed to. It runs on
	// the build's goroutine, one call at a time, and must not keep fn's
	// body beyond the unit. Code of package-level variable initialisers
	// is not visited. internal/index/effects reads direct effects here.
	Visit func(fn *ssa.Function, caller Func)
	// KeepBody, when set, keeps the body of a function that has no call
	// (which a CHA build would otherwise drop) when it reports true, so
	// that Visit sees it. It runs on the build's workers, concurrently.
	KeepBody func(fn *ssa.Function) bool
	// Emit, when set, receives the edges as they are found, in batches,
	// instead of Result.Edges (which is then nil), so the caller can store
	// them while the rest are still being read. A batch holds every edge
	// of the calls it has: all the callees of a call are found before its
	// edges go out. Edges of one batch are sorted as Result.Edges
	// would be; across batches the order is the same from run to run but
	// not sorted. Emit runs on the build's goroutine, one call at a time,
	// and owns the slice it is given.
	Emit func(edges []Edge)
}

// DefaultMaxOutsideCandidates is how many candidates declared outside
// the repository a dynamic call lists before they are elided into one
// edge (see Edge.Elided).
const DefaultMaxOutsideCandidates = 4

// Build computes the call edges of the packages of one load unit.
//
// pkgs are the packages load.Load returned for the unit, every variant
// included; test main packages ("p.test") are skipped. They must still
// have their syntax and type information. Packages that did not
// type-check contribute no edges and are flagged.
//
// Build fails only when ctx ends or when SSA construction panics on code
// it cannot handle; the indexer should then index the unit without
// edges.
func Build(ctx context.Context, pkgs []*packages.Package, opts Options) (*Result, error) {
	opts.Paced = false
	return Start(ctx, pkgs, opts).Wait()
}

// Pending is a Build running in its own goroutine.
type Pending struct {
	done     chan struct{}
	prepared chan struct{}
	built    chan struct{}
	gate     *gate
	res      *Result
	err      error
}

// Reached tells a Paced build that the caller has reached the package of
// import path path, in the order of import paths: packages up to it may
// be built.
func (p *Pending) Reached(path string) { p.gate.set(path, false) }

// Open lets a Paced build go on with every package. Wait opens the gate
// itself.
func (p *Pending) Open() { p.gate.set("", true) }

// Start is Build in the background: it reads everything it needs from
// pkgs before it returns (so the caller may then release their syntax
// and types, or extract records from them concurrently) and does the
// rest in a new goroutine. Wait returns the result. With Options.Paced,
// the reading happens in the background too: the caller may read the
// packages at once, and release them once Prepared.
func Start(ctx context.Context, pkgs []*packages.Package, opts Options) *Pending {
	p := &Pending{done: make(chan struct{}), prepared: make(chan struct{}), built: make(chan struct{})}
	if opts.Paced {
		p.gate = newGate()
	}
	builtOnce := sync.OnceFunc(func() { close(p.built) })
	done := func() {
		builtOnce() // if the build never got there
		close(p.done)
	}
	prepare := func() *unit {
		defer close(p.prepared)
		t := time.Now()
		u, err := safePrepare(pkgs, opts)
		if err != nil {
			p.err = err
			return nil
		}
		u.stats.Create = time.Since(t)
		u.gate = p.gate
		u.onBuilt = builtOnce
		return u
	}
	if !opts.Paced {
		u := prepare()
		if u == nil {
			done()
			return p
		}
		go func() {
			defer done()
			p.res, p.err = u.run(ctx)
		}()
		return p
	}
	go func() {
		defer done()
		if u := prepare(); u != nil {
			p.res, p.err = u.run(ctx)
		}
	}()
	return p
}

// Prepared reports whether the build has read what it needs from the
// packages, so that the caller may release their syntax and types. An
// unpaced Start has read it when it returns; a Paced one reads it in the
// background, beside the caller's own work.
func (p *Pending) Prepared() bool {
	select {
	case <-p.prepared:
		return true
	default:
		return false
	}
}

// WaitPrepared waits until Prepared.
func (p *Pending) WaitPrepared() { <-p.prepared }

// WaitBuilt waits until the SSA bodies are built (or the build ended
// without them): what is left is reading the calls, on one goroutine,
// which leaves a core to the caller. A Paced build is built only as far
// as the caller has reached (see Reached and Open).
func (p *Pending) WaitBuilt() { <-p.built }

// Wait waits for the Build to finish and returns its result.
func (p *Pending) Wait() (*Result, error) {
	p.Open()
	<-p.done
	return p.res, p.err
}

func safePrepare(pkgs []*packages.Package, opts Options) (u *unit, err error) {
	defer func() {
		if r := recover(); r != nil {
			u, err = nil, fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	return prepare(pkgs, opts), nil
}
