// Package live is the one cache of type-checked packages: it keeps the
// packages that the position tools (check_file, infer_type, render_ssa)
// ask about, and those the indexer just amended (checked.go), in memory,
// and absorbs an edit of a package's own files by type-checking it again
// against the dependency types already loaded, without the go command.
//
// A request names a file inside a root; the cache loads the file's package
// with go/packages (syntax, types and type information for the package,
// its dependencies from export data) in the configuration internal/load
// gives the indexer, and keeps the result until a file it was computed
// from changes: each use stats the package's files, the listing of its
// directory, the files of the packages of its own module that it imports,
// and go.mod/go.sum (go.work), and hashes a file's content when its stat
// changed. The cache is bounded by an LRU over an estimate of the bytes a
// load holds, shared by every tool, and concurrent requests for the same
// package share one load.
//
// Every file the cache reads under a root goes through os.Root, so a
// symlink that leaves the root is refused rather than followed.
package live

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
	"github.com/sextant-dev/sextant/internal/position"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// DefaultMaxBytes bounds the cache when New is given no bound.
const DefaultMaxBytes = 512 << 20

// baseBytes estimates what one load holds whatever its size: the type
// information of its dependencies, read from export data. Measured on
// golang.org/x/tools packages: 2-3 MiB of heap for a small package.
const baseBytes = 2 << 20

// bytesPerSourceByte estimates what a type-checked package holds in memory
// for each byte of its source: syntax trees, type information maps and
// objects take a few tens of times the text (go/ssa, 330 KB of source,
// holds 13 MiB).
const bytesPerSourceByte = 40

// Cache is the live package cache. It is safe for concurrent use.
type Cache struct {
	maxBytes int64

	mu      sync.Mutex
	entries map[string]*list.Element // key → element whose Value is *Result
	lru     *list.List               // front: most recently used
	bytes   int64
	flights map[string]*flight

	loads    atomic.Int64
	rechecks atomic.Int64
}

type flight struct {
	done chan struct{}
	res  *Result
	err  error
}

// New returns a cache bounded to about maxBytes (0: DefaultMaxBytes).
func New(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Cache{maxBytes: maxBytes, entries: map[string]*list.Element{}, lru: list.New(), flights: map[string]*flight{}}
}

// Stats describes the cache, for tests and diagnostics.
type Stats struct {
	Loads    int64 // go/packages loads run since New
	Rechecks int64 // edits absorbed by type-checking again in memory
	Entries  int
	Bytes    int64
}

// Stats returns the cache's counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Loads: c.loads.Load(), Rechecks: c.rechecks.Load(), Entries: c.lru.Len(), Bytes: c.bytes}
}

// Result is one load: the packages of one directory (with their test
// variants when the file asked about is a test file), and what they were
// computed from.
type Result struct {
	Root     string // the canonical root the files were read under
	Unit     load.Unit
	Fset     *token.FileSet
	Packages []*packages.Package

	key   string
	size  int64  // estimated bytes held; guarded by the cache's mutex once inserted
	cache *Cache // the cache that holds it, told when building SSA grows it

	mu     sync.Mutex
	src    map[string][]byte // absolute filename → the content that was parsed
	stamps map[string]stamp  // root-relative file → its stat and hash when read
	dirs   map[string]string // root-relative directory → its .go file names, joined
	ssa    map[*packages.Package]*ssaState

	checked *checked // set on the indexer's entries (checked.go)
}

type stamp struct {
	size    int64
	modTime time.Time
	sum     [32]byte
}

// Package is one package of a Result, with the file that was asked about.
type Package struct {
	*Result
	Pkg      *packages.Package
	File     *ast.File // the syntax of Filename
	Filename string    // absolute
	Rel      string    // root-relative, forward slashes
}

// Src returns the content of a file of the load as parsed (nil when the
// file is not one of its packages').
func (r *Result) Src(filename string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.src[filename]
}

// Get returns the package of the file rel (forward slashes, relative to
// root) type-checked, from the cache when nothing it depends on changed.
// root must be a canonical directory the caller may read. Errors are
// coded: FILE_NOT_FOUND, OUTSIDE_ROOTS (a symlink leaves the root),
// INVALID_ARGUMENT (not a Go file, or excluded by build constraints),
// CHECK_ERROR (no go.mod, or the go command failed).
func (c *Cache) Get(ctx context.Context, root, rel string) (*Package, error) {
	rel = path.Clean(rel)
	if !strings.HasSuffix(rel, ".go") {
		return nil, graph.Errorf(graph.CodeInvalidArgument, "%s is not a Go file", rel).WithData("field", "file")
	}
	fsRoot, err := os.OpenRoot(root)
	if err != nil {
		return nil, graph.Wrap(graph.CodeReadError, err, "opening root")
	}
	defer fsRoot.Close()
	fi, err := fsRoot.Stat(filepath.FromSlash(rel))
	if err != nil {
		return nil, fileError(rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, graph.Errorf(graph.CodeInvalidArgument, "%s is not a regular file", rel).WithData("field", "file")
	}
	unit, err := findUnit(fsRoot, root, path.Dir(rel))
	if err != nil {
		return nil, err
	}
	tests := strings.HasSuffix(rel, "_test.go")
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%t", root, unit.Dir, path.Dir(rel), tests)

	for attempt := 0; ; attempt++ {
		res, err := c.result(ctx, fsRoot, key, root, rel, unit, tests)
		if err != nil {
			return nil, err
		}
		p, err := res.pick(root, rel)
		if err != nil && attempt == 0 && res.stale(fsRoot) {
			continue // the file appeared or changed during the load
		}
		return p, err
	}
}

// result returns the current Result for key, loading it (once for all
// concurrent callers) when it is missing or stale.
func (c *Cache) result(ctx context.Context, fsRoot *os.Root, key, root, rel string, unit load.Unit, tests bool) (*Result, error) {
	var (
		old   *Result
		edits map[string]edit
	)
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		res := el.Value.(*Result)
		c.mu.Unlock()
		stale, e := res.changes(fsRoot)
		if !stale {
			c.mu.Lock()
			if el2, ok := c.entries[key]; ok && el2 == el {
				c.lru.MoveToFront(el)
			}
			c.mu.Unlock()
			return res, nil
		}
		c.mu.Lock()
		if el2, ok := c.entries[key]; ok && el2 == el {
			c.remove(el)
			old, edits = res, e
		}
	}
	f, running := c.flights[key]
	if !running {
		f = &flight{done: make(chan struct{})}
		c.flights[key] = f
		go func() {
			// Edits to the package's own files are type-checked again in
			// memory when they leave its imports alone; anything else is
			// a load with the go command. Either belongs to every caller
			// waiting for it, so one caller giving up does not cancel it.
			f.err = errReload
			if old != nil && edits != nil {
				f.res, f.err = recheck(old, edits)
				if f.err == nil {
					c.rechecks.Add(1)
				}
			}
			if f.err != nil {
				f.res, f.err = c.load(context.WithoutCancel(ctx), key, root, rel, unit, tests)
			}
			c.mu.Lock()
			delete(c.flights, key)
			if f.err == nil {
				c.insert(f.res)
			}
			c.mu.Unlock()
			close(f.done)
		}()
	}
	c.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, graph.Wrap(graph.CodeCheckError, ctx.Err(), "loading the package of "+rel+" was cancelled")
	}
	return f.res, f.err
}

// insert adds res at the front and evicts from the back while the cache is
// over its bound (never the entry just added). c.mu is held.
func (c *Cache) insert(res *Result) {
	if el, ok := c.entries[res.key]; ok {
		c.remove(el)
	}
	c.entries[res.key] = c.lru.PushFront(res)
	c.bytes += res.size
	for c.bytes > c.maxBytes && c.lru.Len() > 1 {
		c.remove(c.lru.Back())
	}
}

// grow adds n bytes to the estimate of res while the cache holds it, and
// evicts what no longer fits (never res itself).
func (c *Cache) grow(res *Result, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[res.key]
	if !ok || el.Value.(*Result) != res {
		return
	}
	res.size += n
	c.bytes += n
	c.lru.MoveToFront(el)
	for c.bytes > c.maxBytes && c.lru.Len() > 1 {
		c.remove(c.lru.Back())
	}
}

func (c *Cache) remove(el *list.Element) {
	res := el.Value.(*Result)
	c.lru.Remove(el)
	delete(c.entries, res.key)
	c.bytes -= res.size
}

// load runs go/packages on the directory of rel.
func (c *Cache) load(ctx context.Context, key, root, rel string, unit load.Unit, tests bool) (*Result, error) {
	c.loads.Add(1)
	fsRoot, err := os.OpenRoot(root)
	if err != nil {
		return nil, graph.Wrap(graph.CodeReadError, err, "opening root")
	}
	defer fsRoot.Close()
	res := &Result{Root: root, Unit: unit, Fset: token.NewFileSet(), key: key, cache: c,
		src: map[string][]byte{}, stamps: map[string]stamp{}, dirs: map[string]string{}, ssa: map[*packages.Package]*ssaState{}}

	// What decides the load is read before it, so a change during the load
	// shows as a change on the next use.
	unitRel := relTo(root, unit.Dir)
	manifests := []string{path.Join(unitRel, "go.mod"), path.Join(unitRel, "go.sum")}
	if unit.Workspace {
		manifests = append(manifests, "go.work", "go.work.sum")
	}
	for _, m := range manifests {
		res.track(fsRoot, m, nil)
	}
	dir := path.Dir(rel)
	res.trackDir(fsRoot, dir)

	// FIFOs and links out of the root anywhere in the unit are hidden
	// from the go command: it would block on the one and read the other.
	// So are replace directives that point outside the root.
	unit.Overlay = load.WithOverlay(load.ReplaceOverlay(root, unit), load.ExcludedOverlay(load.Exclusions(root, unit.Dir)))
	cfg := load.Config(unit)
	ctx, cancel := load.Bounded(ctx)
	defer cancel()
	cfg.Context = ctx
	cfg.Tests = tests
	cfg.Fset = res.Fset
	cfg.ParseFile = func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
		// Files under the root are parsed from what os.Root reads, and that
		// content is what the stamps hash; files elsewhere (cgo output in
		// the build cache, the generated test main) as go/packages read them.
		if r, ok := localRel(root, filename); ok {
			data, err := res.track(fsRoot, r, nil)
			if err != nil {
				// A parse error of the file, so the package says which file
				// could not be read (a symlink out of the root, say).
				var list scanner.ErrorList
				list.Add(token.Position{Filename: filename, Line: 1, Column: 1}, "not read: "+err.Error())
				return nil, list
			}
			src = data
		}
		res.mu.Lock()
		res.src[filename] = src
		res.mu.Unlock()
		return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	}
	pattern := "./" + relTo(unit.Dir, filepath.Join(root, filepath.FromSlash(dir)))
	pkgs, err := load.Packages(cfg, pattern)
	if err != nil {
		return nil, graph.Wrap(graph.CodeCheckError, err, "loading the package of "+rel)
	}
	for _, p := range pkgs {
		if strings.HasSuffix(p.ID, ".test") {
			continue // the generated test main
		}
		res.Packages = append(res.Packages, p)
	}
	// The packages of the same module that these import, transitively:
	// their export data changes when their files do.
	seen := map[string]bool{}
	for _, p := range res.Packages {
		if p.Types == nil || p.Module == nil || p.Module.Dir == "" {
			continue
		}
		for _, ip := range allImports(p) {
			if seen[ip] {
				continue
			}
			seen[ip] = true
			sub, ok := strings.CutPrefix(ip, p.Module.Path)
			if !ok || (sub != "" && sub[0] != '/') {
				continue
			}
			d, ok := localRel(root, filepath.Join(p.Module.Dir, filepath.FromSlash(sub)))
			if !ok {
				continue
			}
			res.trackPackageDir(fsRoot, d)
		}
	}
	var srcBytes int64
	for _, s := range res.src {
		srcBytes += int64(len(s))
	}
	res.size = baseBytes + srcBytes*bytesPerSourceByte
	return res, nil
}

// pick returns the package of res that holds rel: for a test file, the
// test variant.
func (r *Result) pick(root, rel string) (*Package, error) {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	var best *packages.Package
	for _, p := range r.Packages {
		if !slices.Contains(p.CompiledGoFiles, abs) && !slices.Contains(p.GoFiles, abs) {
			continue
		}
		if best == nil || (strings.Contains(p.ID, "[") && !strings.Contains(best.ID, "[")) {
			best = p
		}
	}
	if best == nil {
		for _, p := range r.Packages {
			if slices.Contains(p.IgnoredFiles, abs) {
				return nil, graph.Errorf(graph.CodeInvalidArgument,
					"%s is excluded from package %s by build constraints for this platform and tags", rel, p.PkgPath).WithData("field", "file")
			}
		}
		var msgs []string
		for _, p := range r.Packages {
			for _, e := range p.Errors {
				msgs = append(msgs, e.Error())
			}
		}
		return nil, graph.Errorf(graph.CodeCheckError, "the go command found no package holding %s", rel).WithData("diagnostics", msgs)
	}
	p := &Package{Result: r, Pkg: best, Filename: abs, Rel: rel}
	for _, f := range best.Syntax {
		if tf := r.Fset.File(f.FileStart); tf != nil && tf.Name() == abs {
			p.File = f
		}
	}
	return p, nil
}

// track stats and reads the root-relative file rel, recording its stamp.
// A missing file is recorded as absent (zero stamp), so that creating it
// makes the result stale.
// maxFileSize bounds a source file the cache reads: through rootfs, which
// also refuses FIFOs, sockets and devices, so no read can block.
const maxFileSize = 64 << 20

func (r *Result) track(fsRoot *os.Root, rel string, _ []byte) ([]byte, error) {
	native := filepath.FromSlash(rel)
	fi, err := fsRoot.Stat(native)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			r.setStamp(rel, stamp{size: -1})
			return nil, nil
		}
		return nil, fileError(rel, err)
	}
	data, err := rootfs.ReadRegular(fsRoot, native, maxFileSize)
	if err != nil {
		return nil, fileError(rel, err)
	}
	r.setStamp(rel, stamp{size: fi.Size(), modTime: fi.ModTime(), sum: sha256.Sum256(data)})
	return data, nil
}

func (r *Result) setStamp(rel string, s stamp) {
	r.mu.Lock()
	r.stamps[rel] = s
	r.mu.Unlock()
}

// trackDir records the Go file names of a root-relative directory.
func (r *Result) trackDir(fsRoot *os.Root, dir string) []string {
	names := goFiles(fsRoot, dir)
	r.mu.Lock()
	r.dirs[dir] = strings.Join(names, "\x00")
	r.mu.Unlock()
	return names
}

// trackPackageDir records a dependency's directory and its non-test Go
// files.
func (r *Result) trackPackageDir(fsRoot *os.Root, dir string) {
	for _, n := range r.trackDir(fsRoot, dir) {
		if !strings.HasSuffix(n, "_test.go") {
			_, _ = r.track(fsRoot, path.Join(dir, n), nil)
		}
	}
}

// stale reports whether a file the result was computed from changed.
func (r *Result) stale(fsRoot *os.Root) bool {
	stale, _ := r.changes(fsRoot)
	return stale
}

// changes compares the files the result was computed from with the disk:
// a stat that differs and content whose hash differs, or a Go file added
// to or removed from a tracked directory, makes it stale. When the only
// changes are to the content of the Go files of its own packages, edits
// holds their new content (recheck may absorb them without the go
// command); otherwise edits is nil.
func (r *Result) changes(fsRoot *os.Root) (stale bool, edits map[string]edit) {
	r.mu.Lock()
	stamps := maps.Clone(r.stamps)
	dirs := maps.Clone(r.dirs)
	r.mu.Unlock()
	for dir, names := range dirs {
		if strings.Join(goFiles(fsRoot, dir), "\x00") != names {
			return true, nil
		}
	}
	own := map[string]bool{}
	for _, p := range r.Packages {
		for _, f := range p.CompiledGoFiles {
			if rel, ok := localRel(r.Root, f); ok {
				own[rel] = true
			}
		}
	}
	reload := false
	for rel, old := range stamps {
		native := filepath.FromSlash(rel)
		fi, err := fsRoot.Stat(native)
		if err != nil {
			if old.size == -1 && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return true, nil
		}
		if old.size == -1 {
			return true, nil
		}
		if fi.Size() == old.size && fi.ModTime().Equal(old.modTime) {
			continue
		}
		// The stat is in doubt: compare content.
		data, err := rootfs.ReadRegular(fsRoot, native, maxFileSize)
		if err != nil {
			return true, nil
		}
		st := stamp{size: fi.Size(), modTime: fi.ModTime(), sum: sha256.Sum256(data)}
		if st.sum == old.sum {
			r.setStamp(rel, st)
			continue
		}
		stale = true
		if !own[rel] {
			reload = true
			continue
		}
		if edits == nil {
			edits = map[string]edit{}
		}
		edits[rel] = edit{data: data, stamp: st}
	}
	if reload {
		return true, nil
	}
	return stale, edits
}

// goFiles lists the .go files of a root-relative directory, sorted.
func goFiles(fsRoot *os.Root, dir string) []string {
	f, err := fsRoot.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// findUnit finds how to load the root-relative directory dir: the nearest
// go.mod at or above it (inside the root), through root's go.work when
// that workspace uses the module.
func findUnit(fsRoot *os.Root, root, dir string) (load.Unit, error) {
	mod := ""
	found := false
	for d := dir; ; d = path.Dir(d) {
		if fi, err := fsRoot.Stat(filepath.FromSlash(path.Join(d, "go.mod"))); err == nil && fi.Mode().IsRegular() {
			mod, found = d, true
			break
		}
		if d == "." || d == "/" {
			break
		}
	}
	if !found {
		return load.Unit{}, graph.Errorf(graph.CodeCheckError, "no go.mod at or above %s inside the root; the position tools need a module", dir)
	}
	modDir := filepath.Join(root, filepath.FromSlash(mod))
	u := load.Unit{Dir: modDir, Vendor: isRegular(fsRoot, path.Join(mod, "vendor", "modules.txt"))}
	if data, err := rootfs.ReadRegular(fsRoot, "go.work", maxFileSize); err == nil {
		if wf, err := modfile.ParseWork("go.work", data, nil); err == nil {
			for _, use := range wf.Use {
				if path.Clean(filepath.ToSlash(use.Path)) == mod {
					u = load.Unit{Dir: root, Workspace: true, Vendor: isRegular(fsRoot, "vendor/modules.txt")}
				}
			}
		}
	}
	return u, nil
}

func isRegular(fsRoot *os.Root, rel string) bool {
	fi, err := fsRoot.Stat(filepath.FromSlash(rel))
	return err == nil && fi.Mode().IsRegular()
}

// localRel returns abs relative to root, with forward slashes, when it is
// inside root.
func localRel(root, abs string) (string, bool) {
	r, err := filepath.Rel(root, abs)
	if err != nil || !filepath.IsLocal(r) {
		if r == "." {
			return ".", true
		}
		return "", false
	}
	return filepath.ToSlash(r), true
}

func relTo(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// fileError maps an os.Root error to a coded error.
func fileError(rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return graph.Errorf(graph.CodeFileNotFound, "%s does not exist", rel).WithData("field", "file")
	case strings.Contains(err.Error(), "escapes"):
		return graph.Errorf(graph.CodeOutsideRoots, "%s resolves outside the root (through a symlink)", rel).WithData("field", "file")
	}
	return graph.Wrap(graph.CodeReadError, err, "reading "+rel)
}

// Version identifies the content the result was computed from: a hash of
// every tracked file's hash, for cursors bound to one version.
func (r *Result) Version() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.stamps))
	for k := range r.stamps {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		s := r.stamps[k]
		h.Write([]byte(k))
		h.Write(s.sum[:])
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

// ExprText is the source of an expression in the package, on one line
// and cut short.
func (p *Package) ExprText(n ast.Node) string {
	src := p.Src(p.Filename)
	tf := p.Fset.File(n.Pos())
	if tf == nil || src == nil {
		return ""
	}
	s, e := tf.Offset(n.Pos()), tf.Offset(n.End())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	text := strings.Join(strings.Fields(string(src[s:e])), " ")
	if len(text) > 120 {
		text = position.CutUTF8(text, 120) + "…"
	}
	return text
}
