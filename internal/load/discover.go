// Package load decides how a directory tree of Go code is loaded and loads
// it with go/packages.
//
// Discover walks a repository root and finds its modules (nested ones
// included) and an optional go.work, and turns them into load units: one
// go/packages invocation each. Load runs one unit with the configuration the
// indexer needs (types and syntax for the packages of the unit, the
// exported types of their dependencies checked from source without
// function bodies, test variants included; see Packages) and with an
// environment that never downloads a toolchain and never writes to the
// user's tree.
//
// The package keeps no global state: every call gets everything it needs
// from its arguments, so the indexer, the live package cache and the
// benchmark harness can use it side by side.
package load

import (
	"errors"
	"fmt"
	"go/version"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Plan is what Discover found under a root: the modules to index and the
// units that load them.
type Plan struct {
	// Root is the absolute directory that was walked.
	Root string
	// Modules are the usable modules, sorted by Dir. A go.mod that does not
	// parse is not among them; it has a diagnostic instead.
	Modules []graph.Module
	// Units are the go/packages invocations that together load every
	// package of Modules.
	Units []Unit
	// Manifests are the repo-relative paths (forward slashes) of the go.mod,
	// go.sum, go.work and go.work.sum files found, sorted. They decide what
	// gets loaded, so freshness checks have to watch them as well as the
	// Go files.
	Manifests []string
	// Diagnostics describe go.mod and go.work files that could not be
	// used, and the files that are not read (Excluded).
	Diagnostics []graph.Diagnostic
	// Excluded are the files under the root that are never read, by
	// absolute path, each with why: symbolic links whose target leaves
	// the root, and special files (FIFOs, sockets, devices), whose read
	// could block forever. Every unit's Overlay hides them from the go
	// command.
	Excluded map[string]string
}

// Unit is one go/packages invocation: a directory to run the go command in
// and the patterns to load there.
type Unit struct {
	// Dir is the absolute directory the go command runs in.
	Dir string
	// Patterns are go/packages patterns relative to Dir, e.g. "./...".
	Patterns []string
	// Workspace says the unit loads through the go.work file at Dir. When
	// false the go command runs with GOWORK=off, so a go.work further up
	// the tree cannot change what a module resolves to.
	Workspace bool
	// Vendor says the module loads its dependencies from its vendor
	// directory (-mod=vendor) rather than the module cache.
	Vendor bool
	// Modules are the modules the unit covers.
	Modules []graph.Module
	// Overlay replaces, for the go command and go/packages, the content
	// of the files that must not be read (see Plan.Excluded and
	// ExcludedOverlay), and of the go.mod and go.work files whose replace
	// directives point outside the root (ReplaceOverlay).
	Overlay map[string][]byte
}

// Manifest returns the repo-relative path of the file that defines the
// unit (its go.work or go.mod), for diagnostics about the unit as a whole.
func (u Unit) Manifest(root string) string {
	name := "go.mod"
	if u.Workspace {
		name = "go.work"
	}
	return relSlash(root, filepath.Join(u.Dir, name))
}

// skipDir reports whether the walk should not descend into a directory of
// this name. The go command itself ignores these for "./..." patterns
// (vendor and testdata hold code that is not part of the module's
// packages, '.' and '_' prefixes mark hidden or deliberately excluded
// trees); node_modules is skipped because it can be enormous and never
// holds the repository's own Go code.
func skipDir(name string) bool { return SkipDir(name) }

// SkipDir reports whether Discover, and the go command's ./... pattern,
// skip a directory called name.
func SkipDir(name string) bool {
	switch name {
	case "vendor", "testdata", "node_modules":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// Discover walks root and plans how to load the Go code under it.
//
// Every go.mod under root (outside vendor, testdata, node_modules and
// directories starting with '.' or '_') is a module. When root holds a
// go.work, the modules it uses are loaded together in one workspace unit,
// as the go command would build them; modules under root that the
// workspace does not use are loaded on their own. Without a go.work each
// module is its own unit with the pattern "./...".
//
// Discover fails with graph.CodeIndexingFailed when no go.mod exists under
// root, or when none of those found can be used (their diagnostics are in
// the error's Data["diagnostics"]).
func Discover(root string) (Plan, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Plan{}, fmt.Errorf("resolving root: %w", err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return Plan{}, fmt.Errorf("reading root: %w", err)
	}
	if !info.IsDir() {
		return Plan{}, graph.Errorf(graph.CodeIndexingFailed, "%s is not a directory", abs)
	}
	plan := Plan{Root: abs}

	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Plan{}, fmt.Errorf("reading root: %w", err)
	}
	var modFiles []string // absolute go.mod paths
	err = walkTree(real, abs, func(path, why string) {
		if plan.Excluded == nil {
			plan.Excluded = map[string]string{}
		}
		plan.Excluded[path] = why
		plan.Diagnostics = append(plan.Diagnostics, excludedDiagnostic(relSlash(abs, path), why))
	}, func(path string, d fs.DirEntry) {
		if inVendor(relSlash(abs, path)) {
			return
		}
		switch d.Name() {
		case "go.mod":
			modFiles = append(modFiles, path)
			plan.Manifests = append(plan.Manifests, relSlash(abs, path))
		case "go.sum":
			plan.Manifests = append(plan.Manifests, relSlash(abs, path))
		case "go.work", "go.work.sum":
			if filepath.Dir(path) == abs {
				plan.Manifests = append(plan.Manifests, relSlash(abs, path))
			}
		}
	})
	if err != nil {
		return Plan{}, fmt.Errorf("walking %s: %w", abs, err)
	}
	slices.Sort(plan.Manifests)
	if len(modFiles) == 0 {
		fix := "run 'go mod init MODULE_PATH' in the directory that holds the code, or index a directory that contains a go.mod"
		if up := enclosingModule(abs); up != "" {
			fix = fmt.Sprintf("it is inside the module rooted at %s: index that directory instead", up)
		}
		return Plan{}, graph.Errorf(graph.CodeIndexingFailed,
			noModule+"%s: no go.mod in it or its subdirectories "+
				"(vendor, testdata, node_modules and directories starting with '.' or '_' are skipped); %s", abs, fix)
	}

	for _, path := range modFiles {
		mod, diag, ok := parseModule(abs, path)
		if !ok {
			plan.Diagnostics = append(plan.Diagnostics, diag)
			continue
		}
		plan.Modules = append(plan.Modules, mod)
	}
	slices.SortFunc(plan.Modules, func(a, b graph.Module) int { return strings.Compare(a.Dir, b.Dir) })
	if len(plan.Modules) == 0 {
		return Plan{}, graph.Errorf(graph.CodeIndexingFailed,
			"no usable Go module under %s: every go.mod failed to parse; fix the errors listed in diagnostics", abs).
			WithData("diagnostics", plan.Diagnostics)
	}

	plan.Units = units(abs, plan.Modules, plan.Excluded, &plan.Diagnostics)
	overlay := ExcludedOverlay(plan.Excluded)
	for i := range plan.Units {
		plan.Units[i].Overlay = WithOverlay(ReplaceOverlay(abs, plan.Units[i]), overlay)
	}
	return plan, nil
}

// walkTree walks dir, under the resolved root real, as the go command's
// patterns see it: directories SkipDir names are skipped, except vendor
// (which -mod=vendor reads). Each file that must not be read goes to
// excluded with why (see notReadable), every other file to file. An
// unreadable directory below dir is skipped; only dir's own error ends
// the walk.
func walkTree(real, dir string, excluded func(path, why string), file func(path string, d fs.DirEntry)) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && d != nil && d.IsDir() {
				return fs.SkipDir
			}
			if path != dir {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if path != dir && skipDir(d.Name()) && d.Name() != "vendor" {
				return fs.SkipDir
			}
			return nil
		}
		if why := notReadable(real, path, d); why != "" {
			excluded(path, why)
		} else {
			file(path, d)
		}
		return nil
	})
}

// inVendor reports whether the repo-relative path rel is inside a vendor
// directory.
func inVendor(rel string) bool {
	return strings.HasPrefix(rel, "vendor/") || strings.Contains(rel, "/vendor/")
}

// notReadable says why the file at path, found in a walk of root (a
// resolved path), must not be read, or "" when it may: a symbolic link
// whose target leaves root, or that is (or leads to) a special file. A
// dangling link has nothing to read; a link to a directory inside the
// root is not followed by the walk, nor by the go command's patterns.
func notReadable(root, path string, d fs.DirEntry) string {
	t := d.Type()
	if t&fs.ModeSymlink == 0 {
		return special(t)
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	if rel, err := filepath.Rel(root, target); err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "is a symbolic link that leaves the root"
	}
	info, err := os.Stat(target)
	if err != nil || info.IsDir() {
		return ""
	}
	if why := special(info.Mode()); why != "" {
		return "is a symbolic link to a file that " + why
	}
	return ""
}

// NotReadable says why the file at path under root (a resolved path)
// must not be read, as Discover would, or "" when it may be: the check
// for whoever reads a file the go command listed, which may have been
// replaced since Discover walked the tree.
func NotReadable(root, path string) string {
	info, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	return notReadable(root, path, fs.FileInfoToDirEntry(info))
}

// special says what kind of special file a file of mode m is, or "" for
// a regular file or a directory.
func special(m fs.FileMode) string {
	switch {
	case m.IsRegular(), m.IsDir():
		return ""
	case m&fs.ModeNamedPipe != 0:
		return "is a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "is a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "is a device"
	default:
		return "is not a regular file"
	}
}

// excludedDiagnostic is the diagnostic of a file that is not read.
func excludedDiagnostic(rel, why string) graph.Diagnostic {
	return graph.Diagnostic{Path: rel, Kind: "list",
		Message: fmt.Sprintf("%s %s: not read; only regular files inside the root are indexed", rel, why)}
}

// ignoredStub is what the go command sees in place of an excluded Go
// file: a file no build configuration includes, so the package is built
// without it and nothing of the real file is read.
var ignoredStub = []byte("//go:build ignore && !ignore\n\npackage ignored\n")

// ExcludedOverlay returns the go/packages overlay that hides the excluded
// files (absolute paths) from the go command: an excluded Go file reads
// as a file no build includes, any other as empty. The go command then
// neither opens a FIFO (which would block it) nor reads a linked file
// outside the root.
func ExcludedOverlay(excluded map[string]string) map[string][]byte {
	if len(excluded) == 0 {
		return nil
	}
	overlay := make(map[string][]byte, len(excluded))
	for path := range excluded {
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			continue // a link to a directory outside: see OutsideDir
		}
		if strings.HasSuffix(path, ".go") {
			overlay[path] = ignoredStub
		} else {
			overlay[path] = []byte{}
		}
	}
	return overlay
}

// WithOverlay returns the overlay of a's files and b's, b's winning:
// b itself when a is empty.
func WithOverlay(a, b map[string][]byte) map[string][]byte {
	if len(a) == 0 {
		return b
	}
	out := make(map[string][]byte, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

// Exclusions walks dir, a directory under root, for the files that must
// not be read (see Plan.Excluded), skipping what Discover skips. The live
// package cache, which loads one directory without Discover, hides them
// with ExcludedOverlay.
func Exclusions(root, dir string) map[string]string {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	var out map[string]string
	_ = walkTree(real, dir, func(path, why string) {
		if out == nil {
			out = map[string]string{}
		}
		out[path] = why
	}, func(string, fs.DirEntry) {})
	return out
}

// enclosingModule returns the nearest directory above dir that holds a
// go.mod, or "".
func enclosingModule(dir string) string {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if info, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !info.IsDir() {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// units groups the modules into load units, using root's go.work when
// there is one and it parses.
func units(root string, mods []graph.Module, excluded map[string]string, diags *[]graph.Diagnostic) []Unit {
	var used map[string]bool
	ok := false
	workGo := ""                                                    // the go.work's go version
	if _, skip := excluded[filepath.Join(root, "go.work")]; !skip { // a FIFO would block the read
		used, workGo, ok = workspaceUses(root, diags)
	}
	var out []Unit
	var rest []graph.Module
	if ok {
		ws := Unit{Dir: root, Workspace: true, Vendor: hasVendor(root, workGo)}
		for _, m := range mods {
			if !used[m.Dir] {
				rest = append(rest, m)
				continue
			}
			ws.Modules = append(ws.Modules, m)
			ws.Patterns = append(ws.Patterns, dirPattern(m.Dir))
		}
		if len(ws.Modules) > 0 {
			out = append(out, ws)
		}
	} else {
		rest = mods
	}
	for _, m := range rest {
		dir := filepath.Join(root, filepath.FromSlash(m.Dir))
		out = append(out, Unit{
			Dir:      dir,
			Patterns: []string{"./..."},
			Vendor:   hasVendor(dir, m.GoVersion),
			Modules:  []graph.Module{m},
		})
	}
	return out
}

// dirPattern is the pattern, relative to the root, for every package of
// the module in the repo-relative directory dir. In workspace mode "./..."
// at the root matches only the root module, so each used module needs its
// own pattern.
func dirPattern(dir string) string {
	if dir == "." {
		return "./..."
	}
	return "./" + dir + "/..."
}

// workspaceUses parses root/go.work and returns the repo-relative
// directories (forward slashes, "." for root) of the modules it uses,
// and its go version. ok
// is false when there is no go.work or it does not parse (then a
// diagnostic is recorded and the modules load on their own).
func workspaceUses(root string, diags *[]graph.Diagnostic) (used map[string]bool, goVersion string, ok bool) {
	path := filepath.Join(root, "go.work")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", false
	}
	if err != nil {
		*diags = append(*diags, graph.Diagnostic{Path: "go.work", Kind: "list",
			Message: fmt.Sprintf("reading go.work: %v; loading each module on its own", err)})
		return nil, "", false
	}
	wf, err := modfile.ParseWork(path, data, nil)
	if err != nil {
		d := modfileDiagnostic(root, path, err)
		d.Message += "; loading each module on its own"
		*diags = append(*diags, d)
		return nil, "", false
	}
	if wf.Go != nil {
		goVersion = wf.Go.Version
	}
	used = map[string]bool{}
	for _, u := range wf.Use {
		dir := filepath.FromSlash(u.Path)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			continue // a module outside the root is a dependency, not ours to index
		}
		if MissingUse(root, u) {
			*diags = append(*diags, missingUseDiagnostic(u))
			continue
		}
		used[filepath.ToSlash(rel)] = true
	}
	return used, goVersion, true
}

// MissingUse reports whether u, a use directive of the go.work in root,
// names a directory inside root that holds no go.mod: a module left out
// of the tree, as a module zip leaves out every nested module while
// keeping the go.work that uses them. The go command refuses the whole
// workspace then; ReplaceOverlay gives it the go.work without such uses,
// so the modules that are there load. A use outside root is not ours to
// judge.
func MissingUse(root string, u *modfile.Use) bool {
	dir := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return false
	}
	info, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err != nil || !info.Mode().IsRegular()
}

// missingUseDiagnostic is the diagnostic of a go.work use that MissingUse
// reports, at its line.
func missingUseDiagnostic(u *modfile.Use) graph.Diagnostic {
	d := graph.Diagnostic{Path: "go.work", Kind: graph.KindSkipped,
		Message: fmt.Sprintf("go.work uses %s, which holds no go.mod (the directory is missing, as in a module zip, which leaves nested modules out): not indexed; the workspace's other modules are", u.Path)}
	if u.Syntax != nil {
		d.Line, d.Col = u.Syntax.Start.Line, max(u.Syntax.Start.LineRune, 1)
	}
	return d
}

// noModule begins the error of a root that holds no Go module.
const noModule = "no Go module was found under "

// NoModule reports whether err is Discover's for a root that holds no Go
// module, which a root of other languages alone may well not.
func NoModule(err error) bool {
	var ge *graph.Error
	return errors.As(err, &ge) && ge.Code == graph.CodeIndexingFailed && strings.HasPrefix(ge.Message, noModule)
}

// hasVendor reports whether the go command uses the vendor directory of
// dir by default: it holds one (with its modules.txt) and the go.mod, or
// the go.work, of dir says go 1.14 or later (goVersion, without "go").
// The indexer then passes -mod=vendor instead of -mod=readonly, which is
// just as read-only but needs no module cache, and downloads nothing.
// An older module is built from the module cache, vendor or not, and so
// is it indexed.
func hasVendor(dir, goVersion string) bool {
	if goVersion == "" || version.Compare("go"+goVersion, "go1.14") < 0 {
		return false
	}
	info, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt"))
	return err == nil && info.Mode().IsRegular()
}

// parseModule reads the go.mod at path. When it cannot be used, ok is
// false and diag says why.
func parseModule(root, path string) (mod graph.Module, diag graph.Diagnostic, ok bool) {
	dir := relSlash(root, filepath.Dir(path))
	data, err := os.ReadFile(path)
	if err != nil {
		return mod, graph.Diagnostic{Path: relSlash(root, path), Kind: "list",
			Message: fmt.Sprintf("reading go.mod: %v", err)}, false
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		return mod, modfileDiagnostic(root, path, err), false
	}
	if f.Module == nil || f.Module.Mod.Path == "" {
		return mod, graph.Diagnostic{Path: relSlash(root, path), Line: 1, Col: 1, Kind: "list",
			Message: "go.mod has no module directive; add 'module MODULE_PATH' at its top"}, false
	}
	mod = graph.Module{Path: f.Module.Mod.Path, Dir: dir}
	if f.Go != nil {
		mod.GoVersion = f.Go.Version
	}
	return mod, graph.Diagnostic{}, true
}

// modfileDiagnostic converts a go.mod or go.work parse error into a
// diagnostic at the first error's position.
func modfileDiagnostic(root, path string, err error) graph.Diagnostic {
	d := graph.Diagnostic{Path: relSlash(root, path), Kind: "list", Message: err.Error()}
	var list modfile.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		first := list[0]
		d.Line = first.Pos.Line
		if first.Pos.Line > 0 {
			d.Col = max(first.Pos.LineRune, 1)
		}
		msgs := make([]string, 0, len(list))
		for _, e := range list {
			if e.Err == nil {
				continue
			}
			msg := e.Err.Error()
			if e.Verb != "" {
				msg = strings.TrimSpace(e.Verb+" "+e.ModPath) + ": " + msg
			}
			if e.Pos.Line > 0 && len(list) > 1 {
				msg = fmt.Sprintf("line %d: %s", e.Pos.Line, msg)
			}
			msgs = append(msgs, msg)
		}
		if len(msgs) > 0 {
			d.Message = strings.Join(msgs, "; ")
		}
	}
	return d
}

// relSlash returns path relative to root with forward slashes, "." for
// root itself. path must be inside root.
func relSlash(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}
