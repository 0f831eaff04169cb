package impact

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/outline"
)

// A change to a file of TypeScript, JavaScript or Python is compared
// declaration by declaration as a Go file's is, with the declarations
// its source gives (outline.ParseScript, the outline of an edited file):
// each with its first line as its signature and its lines, less its
// members', as its body, whitespace folded. Such a file is a namespace of
// its own: its path stands in for the package clause, so that two files
// of a directory declaring one name are two declarations.

// scriptSource reports whether a repo-relative path is a file of a
// language read through SCIP, outside the directories of installed
// packages (node_modules) and of tools (a name starting with ".").
func scriptSource(p string) bool {
	switch graph.LanguageOf(p) {
	case graph.LanguageTypeScript, graph.LanguageJavaScript, graph.LanguagePython:
	default:
		return false
	}
	for _, el := range strings.Split(p, "/") {
		if el == "node_modules" || el == "__pycache__" || strings.HasPrefix(el, ".") {
			return false
		}
	}
	return true
}

// isSource reports whether a change to the file p is compared by
// declarations: a Go file the go command builds, or a scriptSource.
func isSource(p string) bool { return isGoSource(p) || scriptSource(p) }

// scriptVersion is parseVersion for a scriptSource.
func scriptVersion(name string, content []byte) fileVersion {
	fv := fileVersion{pkgName: name}
	if len(content) == 0 {
		return fv
	}
	f, err := outline.ParseScript(context.Background(), name, content, graph.LanguageOf(name))
	if err != nil {
		return fv
	}
	lines := strings.Split(strings.ReplaceAll(string(content), "\r\n", "\n"), "\n")
	// text is lines from to to (1-based, inclusive) but those skip
	// holds, whitespace folded.
	text := func(from, to int, skip [][2]int) string {
		var b strings.Builder
		for l := max(from, 1); l <= min(to, len(lines)); l++ {
			if slices.ContainsFunc(skip, func(r [2]int) bool { return r[0] <= l && l <= r[1] }) {
				continue
			}
			b.WriteString(lines[l-1])
			b.WriteByte('\n')
		}
		return strings.Join(strings.Fields(b.String()), " ") + "\x00"
	}
	fold := func(s string) string { return strings.Join(strings.Fields(s), " ") + "\x00" }
	for _, e := range f.Entries {
		var members [][2]int
		for _, m := range e.Members {
			fv.decls = append(fv.decls, versionDecl{QualifiedName: e.Name + "." + m.Name, Kind: graph.Kind(m.Kind), Line: m.StartLine, EndLine: m.EndLine,
				Receiver: e.Name, sig: fold(m.Signature), body: text(m.StartLine, m.EndLine, nil)})
			members = append(members, [2]int{m.StartLine, m.EndLine})
		}
		fv.decls = append(fv.decls, versionDecl{QualifiedName: e.Name, Kind: graph.Kind(e.Kind), Line: e.StartLine, EndLine: e.EndLine,
			sig: fold(e.Signature), body: text(e.StartLine, e.EndLine, members)})
	}
	return fv
}

// findScript is find for a declaration of a scriptSource: the index's
// symbol of its file with its qualified name.
func findScript(ctx context.Context, r graph.Reader, repo string, c *changedDecl) error {
	c.Package = path.Dir(c.Path)
	syms, err := r.LookupSymbols(ctx, graph.Lookup{QualifiedName: c.QualifiedName, PackagePath: c.Package, Repository: repo})
	if err != nil {
		return graph.Wrap(graph.CodeInternal, err, "looking up "+c.QualifiedName)
	}
	for _, s := range syms {
		if s.Path == c.Path && (string(s.Kind) == c.Kind || graph.SameKindFamily(graph.Kind(c.Kind), s.Kind)) {
			c.sym, c.found = s, true
			return nil
		}
	}
	return nil
}
