package load

import (
	"bytes"
	"errors"
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"
)

// Dependents returns the packages of units in which a declaration of one
// of the packages paths may be used: those packages, every package that
// imports one of them directly or through others, and every package whose
// tests import one of those (a package is loaded with its tests). Nothing
// outside that set can name the declaration, so loading it answers the
// uses of a declaration exactly, as a load of the whole workspace would,
// in a fraction of the packages. An external test package's path
// ("p_test") stands for its package p. The import lists are read from the
// files with go/build, as ListFiles reads the files, without the go
// command; like ListFiles it ignores settings written with `go env -w`.
//
// The packages are listed per unit, in the order of units, sorted by
// path, for each unit's load to take as its patterns; a path no unit has
// is left out.
func Dependents(units []Unit, paths ...string) [][]Dependent {
	type node struct {
		unit        int
		files       []string
		imports     []string // of the package's own files
		testImports []string // of its test files, in-package and external
	}
	nodes := map[string]*node{}
	for i, u := range units {
		walkPackages(u, func(ctxt *build.Context, dir, importPath string, _ *packages.Module) {
			bp, err := ctxt.ImportDir(dir, build.ImportComment)
			var noGo *build.NoGoError
			if bp == nil || errors.As(err, &noGo) {
				return
			}
			if _, dup := nodes[importPath]; dup {
				return // the first unit to list a path loads it, as the index keeps the first
			}
			var files []string
			for _, l := range [][]string{bp.GoFiles, bp.CgoFiles, bp.TestGoFiles, bp.XTestGoFiles} {
				for _, f := range l {
					files = append(files, filepath.Join(dir, f))
				}
			}
			nodes[importPath] = &node{unit: i, files: files, imports: bp.Imports,
				testImports: append(slices.Clone(bp.TestImports), bp.XTestImports...)}
		})
	}
	importers := map[string][]string{}
	for path, n := range nodes {
		for _, imp := range n.imports {
			importers[imp] = append(importers[imp], path)
		}
	}
	in := map[string]bool{}
	var queue []string
	for _, p := range paths {
		if _, ok := nodes[p]; !ok {
			p = strings.TrimSuffix(p, "_test")
		}
		if _, ok := nodes[p]; ok && !in[p] {
			in[p] = true
			queue = append(queue, p)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range importers[p] {
			if !in[q] {
				in[q] = true
				queue = append(queue, q)
			}
		}
	}
	tested := map[string]bool{}
	for path, n := range nodes {
		if in[path] {
			continue
		}
		for _, imp := range n.testImports {
			if in[imp] {
				tested[path] = true
				break
			}
		}
	}
	out := make([][]Dependent, len(units))
	for _, set := range []map[string]bool{in, tested} {
		for path := range set {
			n := nodes[path]
			out[n.unit] = append(out[n.unit], Dependent{Path: path, Files: n.files})
		}
	}
	for _, l := range out {
		slices.SortFunc(l, func(a, b Dependent) int { return strings.Compare(a.Path, b.Path) })
	}
	return out
}

// Dependent is a package Dependents found: its import path and the
// absolute paths of the Go files go/build selects for it, its tests'
// included.
type Dependent struct {
	Path  string
	Files []string
}

// Spells reports whether one of the files holds name as a whole word
// (an identifier, or the same letters in a comment or string), reading
// them whole: a package none of whose files does holds no use of a
// declaration called name, for a use is an identifier spelling it.
// A file that cannot be read counts as spelling it.
func Spells(files []string, name string) bool {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || hasWord(data, name) {
			return true
		}
	}
	return false
}

// hasWord reports whether data holds word not inside a longer
// identifier.
func hasWord(data []byte, word string) bool {
	w := []byte(word)
	for off := 0; ; {
		i := bytes.Index(data[off:], w)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(w)
		if !identByteBefore(data, i) && (end == len(data) || !identByte(data[end])) {
			return true
		}
		off = i + 1
	}
}

// identByteBefore reports whether the character before data[i] may be
// part of an identifier (a non-ASCII one counts: a letter, perhaps).
func identByteBefore(data []byte, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRune(data[:i])
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// identByte reports whether b may continue an identifier (a byte of a
// non-ASCII character counts).
func identByte(b byte) bool {
	return b == '_' || b >= utf8.RuneSelf || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
