package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
)

// Mode is what the indexer asks for: types, syntax and type information
// for every declaration of the packages of a unit. NeedDeps is absent:
// their dependencies give only their types, which Packages checks from
// source without function bodies (or, with SEXTANT_LOADER=export, reads
// from the export data the go command compiles).
const Mode = packages.NeedName |
	packages.NeedFiles |
	packages.NeedCompiledGoFiles |
	packages.NeedImports |
	packages.NeedTypes |
	packages.NeedTypesSizes |
	packages.NeedSyntax |
	packages.NeedTypesInfo |
	packages.NeedModule

// Config returns the go/packages configuration that loads u. Load uses it,
// and so does the benchmark harness for its bare-load floor, so both load
// exactly the same packages the same way. Context is left nil (go/packages
// then uses context.Background); set it before loading to make the load
// cancellable.
//
// Tests are included, so every package comes with its test variants. The
// environment pins the go command to the local toolchain (a repository
// asking for a newer Go fails to load instead of downloading one), keeps a
// go.work outside the unit from changing what a module resolves to, and
// forbids the go command from writing go.mod or go.sum.
func Config(u Unit) *packages.Config {
	return &packages.Config{
		Mode:    Mode,
		Dir:     u.Dir,
		Env:     Env(os.Environ(), u),
		Tests:   true,
		Logf:    nil,
		Overlay: u.Overlay,
	}
}

// MaxLoad bounds one load when its context has no sooner deadline: a go
// command that neither finishes nor fails (a module proxy that never
// answers, say) is killed then, with everything it started.
const MaxLoad = 30 * time.Minute

// Bounded returns ctx with the MaxLoad deadline unless it ends sooner.
func Bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, MaxLoad)
}

// Load loads the packages of u. Packages that fail to parse or type-check
// are returned with their errors and whatever syntax and types could be
// built; the error is for failures of the load as a whole (the go command
// is missing or rejects the module, or ctx or the MaxLoad deadline ends).
func Load(ctx context.Context, u Unit) ([]*packages.Package, error) {
	pkgs, keep, err := load(ctx, u, nil, false)
	keep()
	return pkgs, err
}

// LoadWhen is Load for an index that answers as soon as it can. Once the
// go command has listed the package graph, the type check waits until
// ready delivers the files the index parsed meanwhile, or is closed (nil:
// it does not wait), so that the first index of a repository publishes
// its syntax stage while the go command lists, on the core that leaves
// idle, and the load does not parse those files again. And the types of
// the dependencies checked from source are put in the type cache only
// when keep is called, once the index has answered. keep is never nil; a
// second call does nothing.
//
// Its go command lists the package graph without its module index (see
// withoutModuleIndex): an index's load is the one a first answer waits
// for, on a machine that may never have listed these modules. Load and
// Packages, which load again after an edit (an amended index, a live
// check), list with the index, which the go command builds once.
func LoadWhen(ctx context.Context, u Unit, ready <-chan *Parsed) (pkgs []*packages.Package, keep func(), err error) {
	return load(ctx, u, ready, true)
}

// load is LoadWhen, listing without the go command's module index when
// skipIndex is set.
func load(ctx context.Context, u Unit, ready <-chan *Parsed, skipIndex bool) (pkgs []*packages.Package, keep func(), err error) {
	ctx, cancel := Bounded(ctx)
	defer cancel()
	cfg := Config(u)
	cfg.Context = ctx
	if skipIndex {
		cfg.Env = withoutModuleIndex(cfg.Env)
	}
	pkgs, keep, err = packagesWhen(cfg, ready, u.Patterns...)
	if err != nil {
		none := func() {}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, none, fmt.Errorf("loading packages in %s: the go command did not finish within its deadline (at most %s): %w", u.Dir, MaxLoad, ctx.Err())
		}
		if ctx.Err() != nil {
			return nil, none, fmt.Errorf("loading packages in %s: %w", u.Dir, ctx.Err())
		}
		return nil, none, fmt.Errorf("loading packages in %s: %w", u.Dir, err)
	}
	return pkgs, keep, nil
}

// NetworkEnv names the environment variable that lets the go command
// Sextant runs use the network: "on" keeps the user's GOPROXY and
// GOSUMDB, so a module a go.mod requires and the module cache lacks is
// downloaded. Unset (or anything else), nothing is downloaded.
const NetworkEnv = "SEXTANT_GO_NETWORK"

// Network reports whether the go command may use the network (see
// NetworkEnv).
func Network() bool { return os.Getenv(NetworkEnv) == "on" }

// Env returns base with the variables that make loading u safe and
// reproducible: GOTOOLCHAIN=local, GOWORK pointing at the unit's go.work or
// off, and GOFLAGS with -mod=readonly (-mod=vendor for vendored modules)
// in place of any -mod flag the user set. The user's other GOFLAGS (build
// tags, for instance) are kept, so the code is seen as the user builds it.
// Unless NetworkEnv is on, GOPROXY=off and GOSUMDB=off too: a go.mod
// could otherwise name modules for the go command to fetch from the
// proxy, or with GOPROXY=direct to clone with git from any host; with
// nothing downloaded there is nothing to look up in a checksum database
// either (go.sum is still checked against the module cache).
func Env(base []string, u Unit) []string {
	env := make([]string, 0, len(base)+5)
	var goflags string
	offline := !Network()
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GOTOOLCHAIN", "GOWORK":
			continue
		case "GOPROXY", "GOSUMDB":
			if offline {
				continue
			}
		case "GOFLAGS":
			goflags = v
			continue
		}
		env = append(env, kv)
	}
	gowork := "off"
	if u.Workspace {
		gowork = u.Dir + string(os.PathSeparator) + "go.work"
	}
	mod := "-mod=readonly"
	if u.Vendor {
		mod = "-mod=vendor"
	}
	flags := []string{}
	if !strings.ContainsAny(goflags, `"'`) { // quoted GOFLAGS are rare; drop them rather than misparse
		for _, f := range strings.Fields(goflags) {
			if strings.HasPrefix(f, "-mod=") || strings.HasPrefix(f, "--mod=") {
				continue
			}
			flags = append(flags, f)
		}
	}
	flags = append(flags, mod)
	if offline {
		env = append(env, "GOPROXY=off", "GOSUMDB=off")
	}
	return append(env,
		"GOTOOLCHAIN=local",
		"GOWORK="+gowork,
		"GOFLAGS="+strings.Join(flags, " "),
	)
}

// withoutModuleIndex returns env with goindex=0 added to its GODEBUG,
// for the go command that lists an index's package graph. With it the go command reads a module's files
// where they lie instead of through its module index, which it otherwise
// builds in GOCACHE, a whole module at a time, the first time it meets
// the module: most of a first listing on a machine whose GOCACHE is new
// (terraform's graph: 8.1 s, against 2.0 s without). Once built, the
// index makes a listing faster (terraform's graph: 1.2 s against 2.1 s;
// one of its packages with its dependencies: 0.55 s against 1.3 s), so
// the loads made after an edit keep it.
func withoutModuleIndex(env []string) []string {
	out := make([]string, 0, len(env)+1)
	debug := "goindex=0"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			debug = strings.TrimPrefix(v+",goindex=0", ",") // the last one counts, as for exec
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GODEBUG="+debug)
}

// VariantRank ranks a variant p of the package with import path path by
// how well it stands for the package alone: 3 for "path [path.test]" (all
// of path's files, in-package tests included), 2 for "path" (or an
// external test package's own variant), 1 for a variant compiled for
// another package's test.
func VariantRank(path string, p *packages.Package) int {
	switch {
	case p.ID == path+" ["+path+".test]":
		return 3
	case p.ID == path:
		return 2
	case strings.HasSuffix(path, "_test") && p.ID == path+" ["+strings.TrimSuffix(path, "_test")+".test]":
		return 2
	}
	return 1
}

// TestMains returns the synthesised main packages of test binaries among
// pkgs ("p.test"): their code is generated, outside the repository, and
// calls every test through a table of function values. The test main of
// p is recognised by the variants compiled for it ("p [p.test]",
// "p_test [p.test]"), which always come with it.
func TestMains(pkgs []*packages.Package) map[*packages.Package]bool {
	binaries := map[string]bool{}
	for _, p := range pkgs {
		if p == nil {
			continue
		}
		if i := strings.LastIndex(p.ID, " ["); i >= 0 && strings.HasSuffix(p.ID, ".test]") {
			binaries[p.ID[i+2:len(p.ID)-1]] = true
		}
	}
	mains := map[*packages.Package]bool{}
	for _, p := range pkgs {
		if p != nil && p.Name == "main" && p.ID == p.PkgPath && binaries[p.ID] {
			mains[p] = true
		}
	}
	return mains
}

// LargeFileEnv names the environment variable that sets the size, in
// bytes, above which a Go file of the indexed packages is checked for its
// declarations alone (see LargeFileLimit): a positive integer; unset or
// anything else means DefaultLargeFile.
const LargeFileEnv = "SEXTANT_LARGE_FILE_BYTES"

// DefaultLargeFile is LargeFileLimit unless LargeFileEnv sets another:
// 4 MiB, some hundred thousand lines. Hand-written Go files stay far
// below it; what passes it is generated (tables, bindings, embedded
// assets), whose bodies would cost the type check, the references and
// the SSA of the whole package many times over and answer no question
// an agent asks of them.
const DefaultLargeFile = 4 << 20

// LargeFileLimit is the size in bytes above which a Go file of a loaded
// package is parsed and checked for its declarations alone: the inside of
// every function body is blanked before the parse (positions and lines
// stay where they were) and holds only an empty loop, so its signatures,
// types, constants and variables are checked, and nothing in its bodies
// is, or refers to anything. The indexer records no references from it
// and says so in a diagnostic.
func LargeFileLimit() int {
	if n, err := strconv.Atoi(os.Getenv(LargeFileEnv)); err == nil && n > 0 {
		return n
	}
	return DefaultLargeFile
}
