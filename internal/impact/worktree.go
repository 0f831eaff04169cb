package impact

import (
	"context"
	"strings"

	"github.com/sextant-dev/sextant/internal/diff"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// Diff is the working tree's change as a unified diff: the files the
// working-tree impact compares (Go sources, and of the other languages
// the files the commit has), read as that impact reads them, from the
// commit's blobs and the disk, never by git diff.
type Diff struct {
	Base  string // the commit compared with
	Text  string // the unified diff, cut at the size asked
	Files int    // the files that differ
	Shown int    // the files Text holds, the last one cut when Cut
	Cut   bool   // Text stops short of the whole diff
}

// WorkingTreeDiff is the diff of repository's working tree ("" for the
// root's) against the commit base names ("" for HEAD), at most maxLines
// lines and maxBytes bytes of it: past either, the files left are not
// compared at all, so a huge change costs no more than the size asked.
func WorkingTreeDiff(ctx context.Context, v *session.View, repository, base string, maxLines, maxBytes int) (*Diff, error) {
	rp, err := v.Repo(repository)
	if err != nil {
		return nil, err
	}
	if !v.Session().IsRoot(rp.Root) {
		return nil, graph.Errorf(graph.CodeOutsideRoots, "repository %s (%s) is not under this server's roots, so its files are not read", rp.Name, rp.Root)
	}
	files, commit, err := gitChanges(ctx, rp.Root, base)
	if err != nil {
		return nil, err
	}
	d := &Diff{Base: commit}
	var b strings.Builder
	lines := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if d.Cut {
			d.Files++
			continue
		}
		text := diff.Compare(f.path, f.old, f.new).String()
		if text == "" {
			continue // no line differs
		}
		d.Files++
		d.Shown++
		for text != "" {
			l, rest, _ := strings.Cut(text, "\n")
			if lines == maxLines || b.Len()+len(l)+1 > maxBytes {
				d.Cut = true
				break
			}
			b.WriteString(l)
			b.WriteByte('\n')
			lines++
			text = rest
		}
	}
	d.Text = b.String()
	return d, nil
}
