package index

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
)

// A dependency the go command cannot list is usually a module it cannot
// get: not in the module cache, and not downloaded because indexing
// downloads nothing (load.NetworkEnv) or because the download failed (a
// private module without credentials, a version that was withdrawn). go/packages records that on the dependency, which Sextant
// does not index, and importErrors repeats it at each import. That says
// which import failed, not which module to fetch; missingModules says
// that once per module, at its require line, coded INDEXING_FAILED, so
// that a person or an agent reading the index's diagnostics knows the
// one command that makes the rest of the types check.

// missingDeps collects, per module of the repository, the dependencies
// that could not be listed: import path → the go command's reason, and
// the repository packages that import them.
type missingDeps map[string]map[string]*missingDep // module dir → import path → dependency

type missingDep struct {
	reason    string
	importers map[string]bool // import paths of the repository packages
}

// noteMissing records that the repository package importer, of the
// module with path modPath, imports dep, which the go command could not
// list for reason.
func (x *extractor) noteMissing(modPath, importer, dep, reason string) {
	i := slices.IndexFunc(x.mods, func(m graph.Module) bool { return m.Path == modPath })
	if i < 0 {
		return
	}
	if x.missing == nil {
		x.missing = missingDeps{}
	}
	dir := x.mods[i].Dir
	if x.missing[dir] == nil {
		x.missing[dir] = map[string]*missingDep{}
	}
	d := x.missing[dir][dep]
	if d == nil {
		d = &missingDep{reason: reason, importers: map[string]bool{}}
		x.missing[dir][dep] = d
	}
	d.importers[importer] = true
}

// missingModules returns one diagnostic per module that a go.mod of the
// repository requires and that provides a dependency the go command could
// not list, at the require line: its message starts with the stable code
// INDEXING_FAILED, names the module and its version, the go command's
// reason and the packages indexed without its types. A dependency that
// no required module provides (an import nobody added with go get) is
// left to its import's diagnostic.
func (x *extractor) missingModules() []graph.Diagnostic {
	var out []graph.Diagnostic
	for _, dir := range slices.Sorted(maps.Keys(x.missing)) {
		rel := path.Join(dir, "go.mod")
		data, err := os.ReadFile(filepath.Join(x.root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		mf, err := modfile.ParseLax(rel, data, nil)
		if err != nil {
			continue
		}
		var replaces []*modfile.Replace // ParseLax leaves them out
		if full, err := modfile.Parse(rel, data, nil); err == nil {
			replaces = full.Replace
		}
		// The failed dependencies by the require providing them, in the
		// order of their first dependency's path.
		var reqs []*modfile.Require
		failed := map[*modfile.Require]*missingDep{}
		deps := x.missing[dir]
		for _, dep := range slices.Sorted(maps.Keys(deps)) {
			req := providing(mf.Require, dep)
			if req == nil {
				continue
			}
			f := failed[req]
			if f == nil {
				f = &missingDep{reason: deps[dep].reason, importers: map[string]bool{}}
				failed[req] = f
				reqs = append(reqs, req)
			}
			maps.Copy(f.importers, deps[dep].importers)
		}
		for _, req := range reqs {
			line, col := 0, 0
			if req.Syntax != nil {
				line, col = req.Syntax.Start.Line, req.Syntax.Start.LineRune
			}
			f := failed[req]
			if to, ok := x.outsideReplacement(replaces, dir, req.Mod); ok {
				detail := fmt.Sprintf("%s is replaced by %s, outside the root, which Sextant does not read; %s indexed without its types. Index a root that holds both, or use a go.work there",
					req.Mod.Version, to, packagesPhrase(slices.Sorted(maps.Keys(f.importers))))
				out = append(out, graph.UnavailableModuleDiagnostic(rel, line, col, req.Mod.Path, detail))
				continue
			}
			detail := unavailableDetail(req.Mod.Path, req.Mod.Version, oneLine(f.reason), packagesPhrase(slices.Sorted(maps.Keys(f.importers))), inDir(dir), load.Network())
			out = append(out, graph.UnavailableModuleDiagnostic(rel, line, col, req.Mod.Path, detail))
		}
	}
	return out
}

// outsideReplacement returns where a replace directive that points
// outside the root (load.OutsideReplace, which the load drops) would
// have taken mod: among the replaces of the go.mod of the module in dir,
// or in the root's go.work.
func (x *extractor) outsideReplacement(replaces []*modfile.Replace, dir string, mod module.Version) (string, bool) {
	match := func(reps []*modfile.Replace, in string) (string, bool) {
		for _, r := range reps {
			if r.Old.Path == mod.Path && (r.Old.Version == "" || r.Old.Version == mod.Version) && load.OutsideReplace(x.root, in, r) {
				return r.New.Path, true
			}
		}
		return "", false
	}
	if to, ok := match(replaces, filepath.Join(x.root, filepath.FromSlash(dir))); ok {
		return to, true
	}
	data, err := os.ReadFile(filepath.Join(x.root, "go.work"))
	if err != nil {
		return "", false
	}
	wf, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		return "", false
	}
	return match(wf.Replace, x.root)
}

// unavailableDetail says why module mod at version is unavailable and
// what to do. Offline (the default) the go command was not let download
// it: the module is not in the module cache, and the go command's own
// reason (GOPROXY=off, which the user did not set) is left out.
func unavailableDetail(mod, version, reason, pkgs, in string, network bool) string {
	if network {
		return fmt.Sprintf("%s could not be downloaded: %s; %s indexed without its types. Run `go mod download %s`%s and index again",
			version, reason, pkgs, mod, in)
	}
	state := "is not in the module cache"
	if !strings.Contains(reason, "GOPROXY=off") {
		state = "could not be loaded (" + reason + ")"
	}
	return fmt.Sprintf("%s %s, and Sextant does not download modules while indexing; %s indexed without its types. Run `go mod download %s`%s and index again, or set %s=on to let indexing download",
		version, state, pkgs, mod, in, load.NetworkEnv)
}

// providing returns the require of the module that provides the package
// with import path dep: the longest module path that is dep or a parent
// of it, nil if none is.
func providing(reqs []*modfile.Require, dep string) *modfile.Require {
	var best *modfile.Require
	for _, r := range reqs {
		p := r.Mod.Path
		if (dep == p || strings.HasPrefix(dep, p+"/")) && (best == nil || len(p) > len(best.Mod.Path)) {
			best = r
		}
	}
	return best
}

// packagesPhrase names up to three packages: "package a is", "packages a,
// b and 2 more are".
func packagesPhrase(pkgs []string) string {
	if len(pkgs) == 1 {
		return "package " + pkgs[0] + " is"
	}
	shown := pkgs[:min(len(pkgs), 3)]
	s := "packages " + strings.Join(shown, ", ")
	if n := len(pkgs) - len(shown); n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s + " are"
}

// oneLine joins the lines of a go command message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// inDir is " in DIR" for a module below the repository's root, "" for
// the root's own.
func inDir(dir string) string {
	if dir == "." {
		return ""
	}
	return " in " + dir
}
