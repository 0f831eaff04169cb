package query

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/outline"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/srcfile"
)

// GetFileOutlineInput is the input of get_file_outline.
type GetFileOutlineInput struct {
	Path           string `json:"path" jsonschema:"file or directory (not recursive)"`
	Repository     string `json:"repository,omitempty" jsonschema:"repository of a relative path"`
	Limit          int    `json:"limit,omitempty" jsonschema:"files per page 1-500 (default 50)"`
	Cursor         string `json:"cursor,omitempty" jsonschema:"next_cursor of the last page"`
	ResponseFormat string `json:"response_format,omitempty" jsonschema:"concise (default) or detailed"`
	Wait           Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// The outline of a file and its rows (see package outline).
type (
	OutlineMember = outline.Member
	OutlineEntry  = outline.Entry
	OutlineFile   = outline.File
)

// GetFileOutlineOutput is the answer of get_file_outline.
type GetFileOutlineOutput struct {
	Envelope
	Repository string        `json:"repository" jsonschema:"repository name"`
	Results    []OutlineFile `json:"results" jsonschema:"one outline per file"`
}

// GetFileOutline outlines a file, or each file of a directory: Go from
// the source on disk, so it works on files that do not compile; the
// languages read through SCIP from the snapshot's symbols, or from the
// source on disk (outline.ParseScript) when the file is not as indexed.
func GetFileOutline(ctx context.Context, s *Service, in GetFileOutlineInput, progress func(Progress)) (*GetFileOutlineOutput, error) {
	format, err := parseFormat(in.ResponseFormat)
	if err != nil {
		return nil, err
	}
	if err := checkSelectors("path", in.Path, "repository", in.Repository); err != nil {
		return nil, err
	}
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	// Parsed from disk: syntax is all it needs.
	v, loc, err := openPath(session.WithSyntax(ctx), s, in.Path, in.Repository, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	root, files, isDir, err := srcfile.List(loc, func(e fs.DirEntry) bool {
		// Regular files and symlinks (resolved, and refused if they
		// leave the root, when read); never FIFOs, sockets or devices.
		return (e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0) && graph.LanguageOf(e.Name()) != ""
	})
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if !isDir && graph.LanguageOf(loc.Rel) == "" {
		return nil, invalid("path", "%s is not a Go, TypeScript, JavaScript or Python file; outline one of those or a directory", loc.Rel)
	}
	fp := fingerprint("get_file_outline", loc.Repo.Name, loc.Rel)
	total := len(files)
	key := "disk"
	if isDir && total > limit {
		// A directory read in pages: its most used files first, in the
		// snapshot's order, so the cursor is bound to the snapshot.
		files = filesByUse(ctx, v, loc.Repo.Name, loc.Rel, files)
		key = v.Key([]string{loc.Repo.Name})
	}
	offset, err := decodeCursor(in.Cursor, fp, key)
	if err != nil {
		return nil, err
	}
	if offset > total {
		offset = total
	}
	pageFiles := files[offset:min(total, offset+limit)]
	out := &GetFileOutlineOutput{Repository: loc.Repo.Name, Results: []OutlineFile{}}
	indexed := false // an outline read from the snapshot, as fresh as it is
	for _, rel := range pageFiles {
		src, err := session.ReadIn(root, "path", rel)
		if err != nil {
			if !isDir {
				return nil, err
			}
			// One unreadable file of a directory (a symlink out of the
			// root, a FIFO named .go) does not hide the others.
			info := ErrorOf(err)
			out.Results = append(out.Results, OutlineFile{Path: rel, Entries: []OutlineEntry{},
				ParseErrors: []string{"not read: " + string(info.Code) + ": " + info.Message}})
			continue
		}
		if lang := graph.LanguageOf(rel); lang != graph.LanguageGo {
			if f, err := v.Reader().File(ctx, loc.Repo.Name, rel); err != nil || f.Hash != graph.ContentHash(src) {
				// Edited since its indexer ran: outlined from the file,
				// as fresh as Go's.
				of, err := outline.ParseScript(ctx, rel, src, lang)
				if err != nil {
					return nil, err
				}
				out.Results = append(out.Results, of)
				continue
			}
			of, err := indexedOutline(ctx, v, loc.Repo.Name, rel, src, format == Detailed)
			if err != nil {
				return nil, err
			}
			indexed = true
			out.Results = append(out.Results, of)
			continue
		}
		of, err := outline.Parse(ctx, rel, src, format == Detailed)
		if err != nil {
			return nil, err
		}
		if format == Detailed {
			attachKeys(ctx, v, loc.Repo.Name, &of)
		}
		out.Results = append(out.Results, of)
	}
	out.Envelope = v.Envelope()
	// Outlines are read from disk, so they are fresh whatever the snapshot;
	// those of other languages read from the snapshot are the snapshot's.
	if !indexed {
		out.Fresh, out.StaleReasons = true, nil
	}
	out.Page(total, offset, len(pageFiles), fp, key)
	return out, nil
}

// filesByUse orders the files of directory dir by how often the
// snapshot's other files use their declarations, most first, then by
// name: the page an agent reads first of a large package holds the code
// the rest of it calls. Without a snapshot to count from (an index not
// yet past its syntax stage) the order stays by name.
func filesByUse(ctx context.Context, v *session.View, repo, dir string, files []string) []string {
	prefix := dir + "/"
	if dir == "." || dir == "" {
		prefix = ""
	}
	syms, _, err := v.Reader().FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring, Repositories: []string{repo}, PathPrefix: prefix, Limit: 1 << 20})
	if err != nil {
		return files
	}
	fileOf := map[string]string{}
	var keys []string
	for _, s := range syms {
		if s.Kind != graph.KindPackage && path.Dir(s.Path) == path.Clean(dir) {
			fileOf[s.Key] = s.Path
			keys = append(keys, s.Key)
		}
	}
	if len(keys) == 0 {
		return files
	}
	refs, _, err := v.Reader().Refs(ctx, graph.RefQuery{Targets: keys})
	if err != nil {
		return files
	}
	uses := map[string]int{}
	for _, r := range refs {
		if f := fileOf[r.Target]; f != r.Path {
			uses[f]++
		}
	}
	out := slices.Clone(files)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Or(uses[b]-uses[a], strings.Compare(a, b)) })
	return out
}

// attachKeys adds the snapshot's stable keys to the outline's entries
// that the snapshot knows under the same qualified name and kind.
func attachKeys(ctx context.Context, v *session.View, repo string, of *OutlineFile) {
	syms, _, err := v.Reader().FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring, Repositories: []string{repo}, PathPrefix: of.Path})
	if err != nil {
		return
	}
	keys := map[string]string{}
	for _, s := range syms {
		if s.Path == of.Path {
			keys[s.QualifiedName] = s.Key
		}
	}
	for i := range of.Entries {
		e := &of.Entries[i]
		e.StableKey = keys[e.Name]
		for j := range e.Members {
			e.Members[j].StableKey = keys[e.Name+"."+e.Members[j].Name]
		}
	}
}

// Text renders the outline for an agent: indented declarations with their
// line ranges.
func (o *GetFileOutlineOutput) Text() string {
	var b strings.Builder
	for _, f := range o.Results {
		fmt.Fprintf(&b, "%s (package %s, %d lines", f.Path, f.Package, f.Lines)
		if f.BuildTags != "" {
			fmt.Fprintf(&b, ", //go:build %s", f.BuildTags)
		}
		b.WriteString(")\n")
		for _, e := range f.ParseErrors {
			fmt.Fprintf(&b, "  syntax error: %s\n", quoteContent(e))
		}
		for _, e := range f.Entries {
			fmt.Fprintf(&b, "  %d-%d %s\n", e.StartLine, e.EndLine, quoteContent(e.Signature))
			if e.Doc != "" {
				fmt.Fprintf(&b, "    // %s\n", quoteContent(e.Doc))
			}
			for _, m := range e.Members {
				fmt.Fprintf(&b, "    %d %s\n", m.StartLine, quoteContent(m.Signature))
			}
		}
	}
	if len(o.Results) == 0 {
		b.WriteString("No Go, TypeScript, JavaScript or Python files here; give one or a directory that holds some.\n")
	}
	writePaging(&b, o.Envelope)
	return b.String()
}

// indexedOutline outlines a file of a language Sextant does not parse
// (TypeScript, JavaScript, Python) from the snapshot's symbols of it, as
// its SCIP indexer declared them: top-level declarations with their
// members, in source order. The caller has checked that the file is as
// indexed.
func indexedOutline(ctx context.Context, v *session.View, repo, rel string, src []byte, detailed bool) (OutlineFile, error) {
	of := OutlineFile{Path: rel, Entries: []OutlineEntry{}, Lines: strings.Count(string(src), "\n")}
	if len(src) > 0 && src[len(src)-1] != '\n' {
		of.Lines++
	}
	syms, _, err := v.Reader().FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring, Repositories: []string{repo}, PathPrefix: rel, Limit: 100000})
	if err != nil {
		return of, graph.Wrap(graph.CodeInternal, err, "reading the symbols of "+rel)
	}
	var top, members []graph.Symbol
	for _, s := range syms {
		if s.Path != rel || s.Kind == graph.KindPackage {
			continue
		}
		if of.Package == "" {
			of.Package = s.PackageName
		}
		if s.Parent == "" {
			top = append(top, s)
		} else {
			members = append(members, s)
		}
	}
	byLine := func(a, b graph.Symbol) int {
		return cmp.Or(a.StartLine-b.StartLine, strings.Compare(a.QualifiedName, b.QualifiedName))
	}
	slices.SortFunc(top, byLine)
	slices.SortFunc(members, byLine)
	at := map[string]int{}
	for _, s := range top {
		e := OutlineEntry{Name: s.Name, Kind: string(s.Kind), Decl: outline.Decl{Signature: s.Signature, StartLine: s.StartLine, EndLine: s.EndLine, Exported: s.Exported}}
		if e.Signature == "" {
			e.Signature = string(s.Kind) + " " + s.Name
		}
		if detailed {
			e.Doc, _, _ = strings.Cut(s.Doc, "\n")
			e.StableKey = s.Key
		}
		at[s.Key] = len(of.Entries)
		of.Entries = append(of.Entries, e)
	}
	for _, s := range members {
		i, ok := at[s.Parent]
		if !ok {
			continue // a member of a member: the outline has two levels
		}
		m := OutlineMember{Name: s.Name, Kind: string(s.Kind), Decl: outline.Decl{Signature: s.Signature, StartLine: s.StartLine, EndLine: s.EndLine, Exported: s.Exported}}
		if detailed {
			m.Doc, _, _ = strings.Cut(s.Doc, "\n")
			m.StableKey = s.Key
		}
		of.Entries[i].Members = append(of.Entries[i].Members, m)
	}
	return of, nil
}
