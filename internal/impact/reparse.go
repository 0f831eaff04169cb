package impact

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"

	"github.com/sextant-dev/sextant/internal/par"
)

// editVersion is parseVersion(name, content) for content that is an edit
// of base, the version of baseContent: a diff changes a few declarations
// of each file, and parsing again only the top-level declarations the
// edit touches, keeping the rest of base, costs a fraction of parsing the
// whole file. It parses the whole file when the edit is not inside
// declarations of a file base parsed cleanly, or what it touches does not
// parse cleanly alone.
func editVersion(name string, base fileVersion, baseContent, content []byte) fileVersion {
	if fv, ok := reparse(name, base, baseContent, content); ok {
		return fv
	}
	return parseVersion(name, content)
}

// readVersions reads the old and new versions of each changed file, the
// old with parse and the new as an edit of it, the files at once on the
// machine's processors.
func readVersions(changes []fileChange, parse func(name string, content []byte) fileVersion) [][2]fileVersion {
	out := make([][2]fileVersion, len(changes))
	par.Each(len(changes), func(i int) {
		c := changes[i]
		old := parse(c.path, c.old)
		out[i] = [2]fileVersion{old, editVersion(c.path, old, c.old, c.new)}
	})
	return out
}

// reparsePrefix makes a region of top-level declarations a file; it has
// no newline, so the region's lines are the file's from its first.
const reparsePrefix = "package p;"

// reparse is editVersion when only the declarations the edit touches need
// parsing. The bytes before the first of them and after the last are
// base's, which parsed cleanly: the scanner starts the first at the start
// of a declaration in both versions, and after the last (a declaration
// ends in an identifier, a literal, or a closing bracket, and base has a
// semicolon, a newline, a comment or the end of the file next) it reads
// the same tokens as in base. So the declarations between parse as they
// do in the whole file when they parse cleanly alone. An import
// declaration is not parsed alone: where it may stand depends on what is
// before it.
func reparse(name string, base fileVersion, baseContent, content []byte) (fileVersion, bool) {
	tops := base.tops
	if len(tops) == 0 || len(content) == 0 {
		return fileVersion{}, false
	}
	if bytes.Equal(baseContent, content) {
		return base, true
	}
	// The edit: the bytes from p to oldEnd of base are those from p to
	// newEnd of content.
	p := commonPrefix(baseContent, content)
	oldEnd := len(baseContent) - commonSuffix(baseContent[p:], content[p:])
	// Declarations i to j (those the edit touches, and any between)
	// hold it.
	i := sort.Search(len(tops), func(k int) bool { return tops[k].start > p }) - 1
	j := sort.Search(len(tops), func(k int) bool { return tops[k].end >= oldEnd })
	if i < 0 || j == len(tops) {
		return fileVersion{}, false
	}
	j = max(j, i)
	for _, t := range tops[i : j+1] {
		if t.imports {
			return fileVersion{}, false
		}
	}
	delta := len(content) - len(baseContent)
	from, oldTo := tops[i].start, tops[j].end
	to := oldTo + delta
	src := make([]byte, 0, len(reparsePrefix)+to-from)
	src = append(append(src, reparsePrefix...), content[from:to]...)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil || f == nil {
		return fileVersion{}, false
	}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			return fileVersion{}, false
		}
	}
	line0 := tops[i].line
	decls, newTops := declsOf(f.Decls, fset.File(f.Pos()), src, func(p token.Pos) int { return line0 + fset.PositionFor(p, false).Line - 1 })
	for k := range newTops {
		newTops[k].start += from - len(reparsePrefix)
		newTops[k].end += from - len(reparsePrefix)
	}
	lines := bytes.Count(content[from:to], []byte("\n")) - bytes.Count(baseContent[from:oldTo], []byte("\n"))

	first, last := 0, 0 // base's decls of the declarations before i, and up to j
	for k, t := range tops {
		if k < i {
			first += t.decls
		}
		if k <= j {
			last += t.decls
		}
	}
	fv := fileVersion{pkgName: base.pkgName}
	fv.decls = make([]versionDecl, 0, first+len(decls)+len(base.decls)-last)
	fv.decls = append(append(fv.decls, base.decls[:first]...), decls...)
	for _, d := range base.decls[last:] {
		d.Line += lines
		d.EndLine += lines
		fv.decls = append(fv.decls, d)
	}
	fv.tops = make([]topDecl, 0, i+len(newTops)+len(tops)-j-1)
	fv.tops = append(append(fv.tops, tops[:i]...), newTops...)
	for _, t := range tops[j+1:] {
		t.start += delta
		t.end += delta
		t.line += lines
		fv.tops = append(fv.tops, t)
	}
	return fv, true
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && bytes.Equal(a[i:i+64], b[i:i+64]) {
		i += 64
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && bytes.Equal(a[len(a)-i-64:len(a)-i], b[len(b)-i-64:len(b)-i]) {
		i += 64
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
