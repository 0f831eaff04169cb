package scipindexer

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/rootfs"
)

// SkipDir reports whether discovery leaves out a directory called name:
// installed packages (node_modules, bower_components, jspm_packages,
// vendor, site-packages), build outputs (dist, build, out, __pycache__)
// and hidden directories (.git, .venv). A virtual environment of any name
// (a directory holding pyvenv.cfg) is left out too.
func SkipDir(name string) bool {
	switch name {
	case "node_modules", "bower_components", "jspm_packages", "vendor", "site-packages",
		"dist", "build", "out", "__pycache__":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// The files that make a directory a project.
var (
	tsMarkers = []string{"tsconfig.json", "jsconfig.json", "package.json"}
	pyMarkers = []string{"pyproject.toml", "setup.py", "setup.cfg"}
)

// sourceExt reports which language a file of this name is source of.
func sourceExt(name string) Language {
	switch graph.LanguageOf(name) {
	case graph.LanguageTypeScript, graph.LanguageJavaScript:
		return TypeScript
	case graph.LanguagePython:
		return Python
	}
	return ""
}

// dirInfo is what the walk saw of one directory.
type dirInfo struct {
	rel     string          // root-relative, "." for the root
	markers map[string]bool // marker files present, as regular files inside the root
	source  map[Language]bool
	ts      bool // a TypeScript file, not only JavaScript, is among its source files
}

// maxDirs bounds the walk: a root with more directories than this (past
// the skipped ones) is refused rather than walked for ever.
const maxDirs = 200_000

// Discover finds the projects under root, in a deterministic order (by
// directory, then language):
//
//   - TypeScript and JavaScript: every directory holding a tsconfig.json,
//     a jsconfig.json or a package.json (each package of a workspace is a
//     project of its own); a package.json without either configuration
//     counts when TypeScript or JavaScript files lie under it outside the
//     projects nested in it;
//   - Python: every directory holding a pyproject.toml, setup.py or
//     setup.cfg; with none anywhere, the root, when .py files lie under
//     it.
//
// The walk reads through os.Root and follows no symbolic link: a linked
// directory is not entered, and a marker that links out of the root is
// not one. Directories SkipDir names, and virtual environments, are left
// out. What a TypeScript configuration points at outside the root, or in
// node_modules, is noted in the project's Outside.
func Discover(root string) ([]Project, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolving root: %w", err)
	}
	fsRoot, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("opening root: %w", err)
	}
	defer fsRoot.Close()
	w := &walker{root: fsRoot, abs: abs}
	if err := w.walk("."); err != nil {
		return nil, err
	}
	slices.SortFunc(w.dirs, func(a, b *dirInfo) int { return strings.Compare(a.rel, b.rel) })

	var projects []Project
	projects = append(projects, w.typeScriptProjects()...)
	projects = append(projects, w.pythonProjects()...)
	for i := range projects {
		for _, q := range projects {
			if q.Language == projects[i].Language && q.Dir != projects[i].Dir && within(projects[i].Dir, q.Dir) {
				projects[i].Nested = append(projects[i].Nested, q.Dir)
			}
		}
	}
	slices.SortFunc(projects, func(a, b Project) int {
		if c := strings.Compare(a.Dir, b.Dir); c != 0 {
			return c
		}
		return strings.Compare(string(a.Language), string(b.Language))
	})
	return projects, nil
}

// within reports whether the root-relative path p is dir or lies under it.
func within(dir, p string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// walker walks a root through os.Root.
type walker struct {
	root *os.Root
	abs  string
	dirs []*dirInfo
}

func (w *walker) walk(rel string) error {
	if len(w.dirs) >= maxDirs {
		return fmt.Errorf("walking %s: more than %d directories", w.abs, maxDirs)
	}
	d, err := w.root.Open(rel)
	if err != nil {
		if rel == "." {
			return fmt.Errorf("reading root: %w", err)
		}
		return nil // unreadable: nothing of it is indexed
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil && rel == "." {
		return fmt.Errorf("reading root: %w", err)
	}
	info := &dirInfo{rel: rel, markers: map[string]bool{}, source: map[Language]bool{}}
	w.dirs = append(w.dirs, info)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var subdirs []string
	for _, e := range ents {
		name := e.Name()
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		switch t := e.Type(); {
		case t.IsDir():
			if !SkipDir(name) && !w.isVenv(child) {
				subdirs = append(subdirs, child)
			}
		case t.IsRegular():
			if l := sourceExt(name); l != "" {
				info.source[l] = true
				info.ts = info.ts || graph.LanguageOf(name) == graph.LanguageTypeScript
			}
			if slices.Contains(tsMarkers, name) || slices.Contains(pyMarkers, name) {
				info.markers[name] = true
			}
		case t&fs.ModeSymlink != 0:
			// A linked marker counts only when it resolves to a regular
			// file inside the root; a linked directory is never entered.
			if slices.Contains(tsMarkers, name) || slices.Contains(pyMarkers, name) {
				if f, err := rootfs.OpenRegular(w.root, child); err == nil {
					f.Close()
					info.markers[name] = true
				}
			}
		}
	}
	for _, s := range subdirs {
		if err := w.walk(s); err != nil {
			return err
		}
	}
	return nil
}

// isVenv reports whether the directory rel is a Python virtual
// environment: installed packages, not the project's code.
func (w *walker) isVenv(rel string) bool {
	fi, err := w.root.Lstat(rel + "/pyvenv.cfg")
	return err == nil && fi.Mode().IsRegular()
}

func (w *walker) typeScriptProjects() []Project {
	var ps []Project
	for _, d := range w.dirs {
		if !d.markers["tsconfig.json"] && !d.markers["jsconfig.json"] && !d.markers["package.json"] {
			continue
		}
		p := Project{Language: TypeScript, Dir: d.rel}
		for _, m := range tsMarkers {
			if d.markers[m] {
				p.Markers = append(p.Markers, join(d.rel, m))
			}
		}
		switch {
		case d.markers["tsconfig.json"]:
			p.Config = join(d.rel, "tsconfig.json")
		case d.markers["jsconfig.json"]:
			p.Config = join(d.rel, "jsconfig.json")
		}
		if p.Config != "" {
			p.Outside = w.configRefs(p.Config, map[string]bool{}, 0)
		}
		p.Name = w.packageName(d.rel)
		ps = append(ps, p)
	}
	// A package.json alone is a project when source files are its own:
	// under it and in no project nested in it.
	own, ownTS := map[string]bool{}, map[string]bool{}
	for _, d := range w.dirs {
		if !d.source[TypeScript] {
			continue
		}
		inner := ""
		for _, p := range ps {
			if within(p.Dir, d.rel) && (inner == "" || depth(p.Dir) > depth(inner)) {
				inner = p.Dir
			}
		}
		own[inner] = true
		ownTS[inner] = ownTS[inner] || d.ts
	}
	for i := range ps {
		ps[i].JavaScript = own[ps[i].Dir] && !ownTS[ps[i].Dir]
	}
	return slices.DeleteFunc(ps, func(p Project) bool { return p.Config == "" && !own[p.Dir] })
}

func (w *walker) pythonProjects() []Project {
	var ps []Project
	anySource := false
	for _, d := range w.dirs {
		anySource = anySource || d.source[Python]
		var markers []string
		for _, m := range pyMarkers {
			if d.markers[m] {
				markers = append(markers, join(d.rel, m))
			}
		}
		if len(markers) > 0 {
			ps = append(ps, Project{Language: Python, Dir: d.rel, Markers: markers, Name: w.pythonName(d.rel)})
		}
	}
	if len(ps) == 0 && anySource {
		ps = append(ps, Project{Language: Python, Dir: ".", Name: w.pythonName(".")})
	}
	return ps
}

// depth is the number of elements of a root-relative directory.
func depth(dir string) int {
	if dir == "." {
		return 0
	}
	return strings.Count(dir, "/") + 1
}

// join joins a root-relative directory and a name.
func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// baseName is the name of the directory rel: its last element, or the
// root's own name.
func (w *walker) baseName(rel string) string {
	if rel == "." {
		return filepath.Base(w.abs)
	}
	return path.Base(rel)
}

// packageName is package.json's name in rel, else the directory's.
func (w *walker) packageName(rel string) string {
	var pkg struct {
		Name string `json:"name"`
	}
	if data, err := rootfs.ReadRegular(w.root, join(rel, "package.json"), maxConfigBytes); err == nil {
		_ = json.Unmarshal(data, &pkg)
	}
	return cleanName(pkg.Name, w.baseName(rel))
}

// pythonName is pyproject.toml's project (or Poetry) name in rel, else
// the directory's.
func (w *walker) pythonName(rel string) string {
	var py struct {
		Project struct {
			Name string `toml:"name"`
		} `toml:"project"`
		Tool struct {
			Poetry struct {
				Name string `toml:"name"`
			} `toml:"poetry"`
		} `toml:"tool"`
	}
	if data, err := rootfs.ReadRegular(w.root, join(rel, "pyproject.toml"), maxConfigBytes); err == nil {
		_, _ = toml.Decode(string(data), &py)
	}
	name := py.Project.Name
	if name == "" {
		name = py.Tool.Poetry.Name
	}
	return cleanName(name, w.baseName(rel))
}

// cleanName returns name, else def, with spaces and control characters
// (which SCIP symbols separate fields with) replaced by dashes.
func cleanName(name, def string) string {
	if strings.TrimSpace(name) == "" {
		name = def
	}
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '-'
		}
		return r
	}, name)
}

// maxExtendsDepth bounds the chain of configurations read through
// extends and references.
const maxExtendsDepth = 16

// tsConfig is what discovery reads of a tsconfig.json or jsconfig.json.
type tsConfig struct {
	Extends    json.RawMessage `json:"extends"`
	References []struct {
		Path string `json:"path"`
	} `json:"references"`
	Include []string `json:"include"`
	Files   []string `json:"files"`
	Exclude []string `json:"exclude"`
}

// configRefs lists what the configuration file rel (root-relative), and
// those inside the root it extends or references, point at outside the
// root or in node_modules.
func (w *walker) configRefs(rel string, seen map[string]bool, depth int) []Reference {
	if seen[rel] || depth > maxExtendsDepth {
		return nil
	}
	seen[rel] = true
	data, err := rootfs.ReadRegular(w.root, rel, maxConfigBytes)
	if err != nil {
		if rootfs.Outside(err) {
			return []Reference{{File: rel, Field: "file", Target: rel, Why: "outside the root (a symbolic link)"}}
		}
		return nil
	}
	var c tsConfig
	if err := json.Unmarshal(jsonc(data), &c); err != nil {
		return nil // the indexer reports a broken configuration itself
	}
	dir := path.Dir(rel)
	var refs []Reference
	var extends []string
	var one string
	if json.Unmarshal(c.Extends, &one) == nil && one != "" {
		extends = []string{one}
	} else {
		_ = json.Unmarshal(c.Extends, &extends)
	}
	for _, e := range extends {
		if !pathLike(e) {
			refs = append(refs, Reference{File: rel, Field: "extends", Target: e, Why: "a package in node_modules"})
			continue
		}
		target, ok := w.resolve(dir, e)
		if !ok {
			refs = append(refs, Reference{File: rel, Field: "extends", Target: e, Why: "outside the root"})
			continue
		}
		// TypeScript tries the name as written, then with .json.
		next := target
		if !strings.HasSuffix(next, ".json") {
			if _, err := w.root.Stat(next); err != nil {
				next += ".json"
			}
		}
		refs = append(refs, w.configRefs(next, seen, depth+1)...)
	}
	for _, r := range c.References {
		target, ok := w.resolve(dir, r.Path)
		if !ok {
			refs = append(refs, Reference{File: rel, Field: "references", Target: r.Path, Why: "outside the root"})
			continue
		}
		if fi, err := w.root.Stat(target); err == nil && fi.IsDir() {
			target = join(target, "tsconfig.json")
		}
		refs = append(refs, w.configRefs(target, seen, depth+1)...)
	}
	for _, f := range []struct {
		field string
		pats  []string
	}{{"include", c.Include}, {"files", c.Files}} {
		for _, pat := range f.pats {
			if _, ok := w.resolve(dir, staticPrefix(pat)); !ok {
				refs = append(refs, Reference{File: rel, Field: f.field, Target: pat, Why: "outside the root"})
			}
		}
	}
	return refs
}

// pathLike reports whether an extends value names a file (relative or
// absolute) rather than a package resolved from node_modules.
func pathLike(s string) bool {
	return strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || s == "." || s == ".." ||
		strings.HasPrefix(s, "/") || filepath.IsAbs(s) || strings.HasPrefix(s, `.\`) || strings.HasPrefix(s, `..\`)
}

// staticPrefix is the part of an include pattern before its first
// wildcard element: the directory it can reach no higher than.
func staticPrefix(pat string) string {
	pat = strings.ReplaceAll(pat, `\`, "/")
	var keep []string
	for _, el := range strings.Split(pat, "/") {
		if strings.ContainsAny(el, "*?{[") {
			break
		}
		keep = append(keep, el)
	}
	if len(keep) == 0 {
		return "."
	}
	s := strings.Join(keep, "/")
	if s == "" {
		return "/" // the pattern started at the file system's root
	}
	return s
}

// resolve resolves the path p written in a configuration in the
// root-relative directory dir, and returns it root-relative, or false
// when it leads outside the root. Symbolic links are not resolved here:
// a file reached through one is read through os.Root, which refuses to
// leave.
func (w *walker) resolve(dir, p string) (string, bool) {
	p = strings.ReplaceAll(p, `\`, "/")
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		rel, err := filepath.Rel(w.abs, filepath.FromSlash(p))
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			return "", false
		}
		return filepath.ToSlash(rel), true
	}
	j := path.Join(dir, p)
	if j == ".." || strings.HasPrefix(j, "../") {
		return "", false
	}
	return j, true
}

// jsonc turns the JSON with comments and trailing commas that TypeScript
// accepts in its configurations into JSON.
func jsonc(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := strings.Index(string(data[i+2:]), "*/")
			if end < 0 {
				i = len(data)
			} else {
				i += 2 + end + 1
			}
			out = append(out, ' ')
		case c == ']' || c == '}':
			// Drop a trailing comma before the closing bracket.
			j := len(out) - 1
			for j >= 0 && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out = append(out[:j], out[j+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
