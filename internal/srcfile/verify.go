package srcfile

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// Span is a symbol located in its file as the file is now.
type Span struct {
	File     *File
	From, To int // the declaration with its doc comment
	Decl     Decl
	Note     string // how the file changed since the snapshot, if it did
}

// Verify locates sym in its file as it is on disk now. When the file
// changed since the snapshot the declaration is found again by name; when
// it is gone the answer is SYMBOL_NOT_FOUND saying so, never stale text.
func Verify(ctx context.Context, v *session.View, files *Cache, sym graph.Symbol) (Span, error) {
	repo, err := v.Repo(sym.Repository)
	if err != nil {
		return Span{}, err
	}
	if !v.Session().IsRoot(repo.Root) {
		return Span{}, graph.Errorf(graph.CodeOutsideRoots, "repository %s (%s) is not under this server's roots, so its files are not read", repo.Name, repo.Root)
	}
	f, err := files.Load(repo.Root, sym.Path)
	if err != nil {
		if graph.CodeOf(err) == graph.CodeFileNotFound {
			return Span{}, graph.Errorf(graph.CodeSymbolNotFound,
				"%s was declared in %s, which was deleted since snapshot %d (the file changed); find it again with find_symbol or search_code",
				sym.QualifiedName, sym.Path, repo.Snapshot.ID).WithData("file_changed", true)
		}
		return Span{}, err
	}
	changed := true
	if rec, err := v.Reader().File(ctx, repo.Name, sym.Path); err == nil && rec.Hash == f.Hash {
		changed = false
	}
	if !sym.IsGo() {
		return verifyIndexed(f, sym, changed, repo.Snapshot.ID)
	}
	if sym.Kind == graph.KindPackage {
		line := 1
		if f.Syntax != nil {
			line = f.Fset.PositionFor(f.Syntax.Package, false).Line
		}
		return Span{File: f, From: line, To: line, Decl: Decl{QualifiedName: sym.QualifiedName, Kind: sym.Kind, DocLine: line, Line: line, EndLine: line}}, nil
	}
	cands := f.Find(sym.QualifiedName, sym.Kind)
	if len(cands) == 0 {
		e := graph.Errorf(graph.CodeSymbolNotFound,
			"%s was at %s:%d-%d in snapshot %d, but the file changed and no longer declares it (renamed or deleted); names declared near there now are in data.suggestions",
			sym.QualifiedName, sym.Path, sym.StartLine, sym.EndLine, repo.Snapshot.ID).WithData("file_changed", true)
		if sug := NearbyDecls(f, sym.StartLine, sym.Kind); len(sug) > 0 {
			e.WithData("suggestions", sug)
		}
		return Span{}, e
	}
	best := cands[0]
	for _, d := range cands[1:] {
		if abs(d.Line-sym.StartLine) < abs(best.Line-sym.StartLine) {
			best = d
		}
	}
	vs := Span{File: f, From: best.DocLine, To: best.EndLine, Decl: best}
	if changed {
		if best.Line == sym.StartLine && best.EndLine == sym.EndLine {
			vs.Note = fmt.Sprintf("file changed since snapshot %d; this declaration did not move", repo.Snapshot.ID)
		} else {
			vs.Note = fmt.Sprintf("file changed since snapshot %d; re-located to lines %d-%d (snapshot had %d-%d)",
				repo.Snapshot.ID, best.Line, best.EndLine, sym.StartLine, sym.EndLine)
		}
	}
	return vs, nil
}

// NearbyDecls names up to 8 declarations of f, those of kind first, then
// nearest to line, as suggestions after a rename.
func NearbyDecls(f *File, line int, kind graph.Kind) []string {
	ds := append([]Decl(nil), f.Decls...)
	sort.SliceStable(ds, func(i, j int) bool {
		if a, b := ds[i].Kind == kind, ds[j].Kind == kind; a != b {
			return a
		}
		return abs(ds[i].Line-line) < abs(ds[j].Line-line)
	})
	var out []string
	for _, d := range ds {
		if len(out) == 8 {
			break
		}
		out = append(out, fmt.Sprintf("%s (%s %s:%d)", d.QualifiedName, d.Kind, f.Rel, d.Line))
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// verifyIndexed locates a symbol of a language Sextant does not parse
// (TypeScript, JavaScript, Python: indexed through SCIP) in its file as it
// is now: the indexed span while the file is as indexed; after a change,
// the span moved to the line nearest its old start that names it, else
// SYMBOL_NOT_FOUND, never text that may no longer be the declaration.
func verifyIndexed(f *File, sym graph.Symbol, changed bool, snapshot int64) (Span, error) {
	n := f.LineCount()
	from, to := sym.StartLine, sym.EndLine
	note := ""
	if changed {
		at := nearestNaming(f, sym.Name, sym.StartLine)
		if at == 0 || to-from+at > n {
			return Span{}, graph.Errorf(graph.CodeSymbolNotFound,
				"%s was at %s:%d-%d in snapshot %d, but the file changed and no longer names it (renamed or deleted); find it again with find_symbol",
				sym.QualifiedName, sym.Path, sym.StartLine, sym.EndLine, snapshot).WithData("file_changed", true)
		}
		from, to = at, to-from+at
		note = fmt.Sprintf("file changed since snapshot %d; re-located by name to lines %d-%d (snapshot had %d-%d), its length as indexed",
			snapshot, from, to, sym.StartLine, sym.EndLine)
	}
	if from < 1 || to < from || to > n {
		return Span{}, graph.Errorf(graph.CodeSymbolNotFound,
			"%s was at %s:%d-%d in snapshot %d, which the file's %d lines do not hold", sym.QualifiedName, sym.Path, sym.StartLine, sym.EndLine, snapshot, n).
			WithData("file_changed", true)
	}
	return Span{File: f, From: from, To: to, Note: note,
		Decl: Decl{QualifiedName: sym.QualifiedName, Kind: sym.Kind, DocLine: from, Line: from, EndLine: to}}, nil
}

// nearestNaming is the line of f nearest to line that holds name as a
// whole word, 0 if none.
func nearestNaming(f *File, name string, line int) int {
	if name == "" {
		return 0
	}
	word := func(b byte) bool {
		return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
	}
	names := func(l int) bool {
		text := f.Text(l, l)
		for i := 0; ; {
			j := strings.Index(text[i:], name)
			if j < 0 {
				return false
			}
			j += i
			end := j + len(name)
			if (j == 0 || !word(text[j-1])) && (end == len(text) || !word(text[end])) {
				return true
			}
			i = j + 1
		}
	}
	n := f.LineCount()
	for d := 0; d <= n; d++ {
		if l := line - d; l >= 1 && l <= n && names(l) {
			return l
		}
		if l := line + d; d > 0 && l >= 1 && l <= n && names(l) {
			return l
		}
	}
	return 0
}
