package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/scipindex"
	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// amendSCIP is Refresh's path for an edit of TypeScript, JavaScript or
// Python files alone (paths, changed, added or removed): it runs the
// indexer of each project that holds one of them, and of no other
// project, and amends the snapshot with their indexes in place of what
// the projects' files had; Go and the other projects stay as they are.
// It reports graph.PhaseBackground before the first indexer starts: the
// snapshot serving until then says it is stale. An indexer that fails
// fails the refresh, with its output's last line, and the snapshot
// serving stays; a change it cannot place (a file of no project, a store
// that cannot remove files) is errWhole.
//
// A use the project makes of another project's declaration is joined to
// it through lookup, which reads the snapshot being amended.
func amendSCIP(ctx context.Context, w graph.AmendWriter, base baseState, abs string, paths []string, opts Options,
	lookup func(ctx context.Context, keys []string) ([]graph.Symbol, error)) (Result, error) {
	fr, ok := w.(graph.FileRemover)
	if !ok {
		return Result{}, fmt.Errorf("%w: the store cannot remove files", errWhole)
	}
	if !scipEnabled() {
		return Result{}, fmt.Errorf("%w: %s changed, which Go does not declare", errWhole, paths[0])
	}
	plan := discoverSCIP(abs)
	if plan.refused != "" || len(plan.diags) > 0 {
		return Result{}, fmt.Errorf("%w: the projects of other languages are not indexed as before", errWhole)
	}
	var projects []scipindexer.Project
	for _, p := range paths {
		i := ownerOf(plan.projects, p)
		if i < 0 {
			return Result{}, fmt.Errorf("%w: %s is in no project", errWhole, p)
		}
		if !slices.ContainsFunc(projects, func(q scipindexer.Project) bool {
			return q.Dir == plan.projects[i].Dir && q.Language == plan.projects[i].Language
		}) {
			projects = append(projects, plan.projects[i])
		}
	}
	report := func(msg string) {
		if opts.Progress != nil {
			opts.Progress(Progress{Phase: graph.PhaseBackground, Message: msg})
		}
	}
	runner := scipindexer.NewRunner(plan.cfg)
	root, err := os.OpenRoot(abs)
	if err != nil {
		return Result{}, fmt.Errorf("opening %s: %w", abs, err)
	}
	defer root.Close()
	res := Result{Repository: base.repo.Repository}
	links := map[scipindexer.Language]*scipindex.Linker{}
	for _, p := range projects {
		link := links[p.Language]
		if link == nil {
			link = scipindex.NewLinker(base.repo.Name, projectNames(plan.projects, p.Language))
			link.Lookup = lookup
			links[p.Language] = link
		}
		tool := indexerName(p.Language)
		report(fmt.Sprintf("%s indexing %s again", tool, p.Dir))
		out, err := runner.Index(ctx, abs, p)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
			}
			var ie *scipindexer.Error
			if errors.As(err, &ie) {
				ge := ie.Coded()
				if last := lastLine(ie.Output); last != "" {
					ge.Message += "; its output ends: " + last
				}
				return Result{}, ge
			}
			return Result{}, graph.Wrap(graph.CodeIndexingFailed, err, fmt.Sprintf("%s on %s", tool, p.Dir))
		}
		// The project's files in the base, and those added since.
		mine := func(f string) bool {
			i := ownerOf(plan.projects, f)
			return i >= 0 && plan.projects[i].Dir == p.Dir && plan.projects[i].Language == p.Language
		}
		var files []string
		for f := range base.files {
			if mine(f) {
				files = append(files, f)
			}
		}
		for _, f := range paths {
			if !slices.Contains(files, f) && mine(f) {
				files = append(files, f)
			}
		}
		slices.Sort(files)
		err = fr.RemoveFiles(ctx, files)
		if err == nil {
			var f *os.File
			if f, err = os.Open(out.Path); err == nil {
				var r scipindex.Result
				r, err = scipindex.Import(ctx, f, w, scipindex.Options{Repository: base.repo.Repository, Root: root, ProjectDir: p.Dir, Skip: p.Nested, Link: link})
				f.Close()
				res.addSCIP(r)
			}
		}
		out.Remove()
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, fmt.Errorf("indexing %s: %w", abs, ctx.Err())
			}
			return Result{}, graph.Wrap(graph.CodeIndexingFailed, err, fmt.Sprintf("importing the index of %s", p.Dir))
		}
	}
	for _, l := range links {
		linked, err := l.Write(ctx, w)
		if err != nil {
			return Result{}, graph.Wrap(graph.CodeIndexingFailed, err, "joining the projects")
		}
		res.addSCIP(linked)
	}
	snap, err := w.Publish(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("publishing amended snapshot: %w", err)
	}
	res.Snapshot = snap
	return res, nil
}

// ownerOf returns the index in projects of the project whose files
// include the file at rel: the innermost of its language family that
// holds it; -1 for none.
func ownerOf(projects []scipindexer.Project, rel string) int {
	best := -1
	for i, p := range projects {
		if p.Language != languageOf(rel) || !under(p.Dir, rel) {
			continue
		}
		if slices.ContainsFunc(p.Nested, func(n string) bool { return under(n, rel) }) {
			continue
		}
		if best < 0 || len(p.Dir) > len(projects[best].Dir) {
			best = i
		}
	}
	return best
}

// languageOf is the indexer's language of the file at rel ("" for Go and
// the rest).
func languageOf(rel string) scipindexer.Language {
	switch graph.LanguageOf(path.Base(rel)) {
	case graph.LanguagePython:
		return scipindexer.Python
	case graph.LanguageTypeScript, graph.LanguageJavaScript:
		return scipindexer.TypeScript
	}
	return ""
}

// under reports whether rel is in directory dir ("." for the root).
func under(dir, rel string) bool {
	return dir == "." || strings.HasPrefix(rel, dir+"/")
}

// lastLine is the last line of out that is not blank.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
