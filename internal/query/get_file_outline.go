package query

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/outline"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/srcfile"
)

// GetFileOutlineInput is the input of get_file_outline.
type GetFileOutlineInput struct {
	Path           string `json:"path" jsonschema:"Go file or directory (not recursive)"`
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

// GetFileOutline outlines a file, or each Go file of a directory, from the
// source on disk: it works on files that do not compile.
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
		return (e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0) && strings.HasSuffix(e.Name(), ".go")
	})
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if !isDir && !strings.HasSuffix(loc.Rel, ".go") {
		return nil, invalid("path", "%s is not a Go file (.go); outline a .go file or a directory", loc.Rel)
	}
	fp := fingerprint("get_file_outline", loc.Repo.Name, loc.Rel)
	offset, err := decodeCursor(in.Cursor, fp, "disk")
	if err != nil {
		return nil, err
	}
	total := len(files)
	if offset > total {
		offset = total
	}
	pageFiles := files[offset:min(total, offset+limit)]
	out := &GetFileOutlineOutput{Repository: loc.Repo.Name, Results: []OutlineFile{}}
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
	// Outlines are read from disk, so they are fresh whatever the snapshot.
	out.Fresh, out.StaleReasons = true, nil
	out.Page(total, offset, len(pageFiles), fp, "disk")
	return out, nil
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
		b.WriteString("No Go files here; give a .go file or a directory that holds some.\n")
	}
	writePaging(&b, o.Envelope)
	return b.String()
}
