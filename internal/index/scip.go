package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/scipindex"
	"github.com/sextant-dev/sextant/internal/scipindexer"
)

// SCIPEnv is the variable that turns the SCIP frontend off: with
// SEXTANT_SCIP=off an index reads Go alone, and neither looks for
// TypeScript, JavaScript or Python projects nor runs their indexers.
const SCIPEnv = "SEXTANT_SCIP"

// LanguageResult is what an index did with the projects of one SCIP
// indexer (TypeScript and JavaScript share scip-typescript): for the
// summary, which names a language found but not indexed.
type LanguageResult struct {
	// Language is what was found: "typescript" (TypeScript, with any
	// JavaScript), "javascript" (projects of JavaScript alone, which
	// TypeScript's indexer serves) or "python".
	Language string `json:"language"`
	// Projects are the projects' directories, root-relative.
	Projects []string `json:"projects"`
	// Indexer and Version name the indexer, its version from its index.
	Indexer string `json:"indexer"`
	Version string `json:"version,omitempty"`
	// Indexed counts the projects imported; Files and Symbols what they
	// wrote.
	Indexed int `json:"indexed"`
	Files   int `json:"files"`
	Symbols int `json:"symbols"`
	// NotIndexed says why no project was indexed ("" when one was): the
	// indexer is not installed (with the command that installs it), is
	// disabled, or failed.
	NotIndexed string `json:"not_indexed,omitempty"`
	// Failed are the failures of single projects, each with its reason
	// (scipindexer.Reason) and the tail of the indexer's output.
	Failed []string `json:"failed,omitempty"`
	// Empty are the projects whose configuration includes no file (a
	// workspace's base tsconfig.json), not indexed and not failed.
	Empty []string `json:"empty,omitempty"`
}

// scipPlan is what discovery found for the SCIP frontend of a root.
type scipPlan struct {
	projects []scipindexer.Project
	cfg      scipindexer.Config
	diags    []graph.Diagnostic // discovery that failed
	// refused says why no indexer runs: the [scip] configuration does
	// not load (or may not be applied, untrusted).
	refused string
}

// discoverSCIP finds the TypeScript, JavaScript and Python projects under
// abs, unless SCIPEnv turns the frontend off. A failure is a diagnostic:
// Go is indexed all the same.
func discoverSCIP(abs string) scipPlan {
	if !scipEnabled() {
		return scipPlan{}
	}
	projects, err := scipindexer.Discover(abs)
	if err != nil {
		return scipPlan{diags: []graph.Diagnostic{{Kind: graph.KindSkipped,
			Message: "TypeScript, JavaScript and Python not indexed: finding their projects: " + err.Error()}}}
	}
	if len(projects) == 0 {
		return scipPlan{}
	}
	cfg, err := scipindexer.LoadConfig(abs)
	if err != nil {
		return scipPlan{projects: projects, refused: err.Error()}
	}
	return scipPlan{projects: projects, cfg: cfg}
}

// indexSCIP runs each project's indexer and imports its index into w,
// beside the Go records, before the snapshot is published; it adds what
// it wrote to res, and its diagnostics (written to w) to res.Diagnostics,
// the languages it could not index to res.Skipped. An indexer that is not
// installed, disabled or failing, and an index that does not decode, is
// a diagnostic; only a failed write or ctx ends the index.
func indexSCIP(ctx context.Context, w graph.SnapshotWriter, repo graph.Repository, abs string, plan scipPlan, res *Result) error {
	diags := slices.Clone(plan.diags)
	defer func() { res.Skipped = append(res.Skipped, skippedOf(diags)...) }()
	if len(plan.projects) == 0 {
		return writeDiags(ctx, w, diags, res)
	}
	runner := scipindexer.NewRunner(plan.cfg)
	root, err := os.OpenRoot(abs)
	if err != nil {
		return fmt.Errorf("opening %s: %w", abs, err)
	}
	defer root.Close()
	byLang := map[scipindexer.Language]*LanguageResult{}
	var order []scipindexer.Language
	for _, p := range plan.projects {
		lr := byLang[p.Language]
		if lr == nil {
			lr = &LanguageResult{Language: foundLanguage(plan.projects, p.Language), Indexer: indexerName(p.Language)}
			byLang[p.Language] = lr
			order = append(order, p.Language)
		}
		lr.Projects = append(lr.Projects, p.Dir)
	}
	for _, l := range order {
		lr := byLang[l]
		lr.NotIndexed = plan.refused
		if lr.NotIndexed == "" {
			if err := runner.Available(l); err != nil {
				lr.NotIndexed = err.Error()
				var ie *scipindexer.Error
				if errors.As(err, &ie) {
					lr.NotIndexed = ie.Message
				}
			}
		}
		if lr.NotIndexed != "" {
			diags = append(diags, graph.Diagnostic{Path: markerOf(plan.projects, l), Kind: graph.KindSkipped,
				Message: graph.NotIndexedMessage(lr.Language, lr.Projects, lr.NotIndexed)})
			continue
		}
		link := scipindex.NewLinker(repo.Name, projectNames(plan.projects, l))
		for _, p := range plan.projects {
			if p.Language != l {
				continue
			}
			if err := importProject(ctx, w, runner, repo, abs, root, p, link, lr, res, &diags); err != nil {
				return err
			}
		}
		linked, err := link.Write(ctx, w)
		if err != nil {
			return err
		}
		res.addSCIP(linked)
		if lr.Indexed == 0 && len(lr.Failed) > 0 {
			lr.NotIndexed = "every project failed: " + lr.Failed[0]
		}
	}
	for _, l := range order {
		res.Languages = append(res.Languages, *byLang[l])
	}
	return writeDiags(ctx, w, diags, res)
}

// importProject runs p's indexer and imports its index, leaving out the
// documents of the projects nested in p, which their own run imports.
func importProject(ctx context.Context, w graph.SnapshotWriter, runner *scipindexer.Runner, repo graph.Repository, abs string, root *os.Root,
	p scipindexer.Project, link *scipindex.Linker, lr *LanguageResult, res *Result, diags *[]graph.Diagnostic) error {
	failed := func(msg string) {
		first, _, _ := strings.Cut(msg, "\n") // the output's tail is in the diagnostic
		lr.Failed = append(lr.Failed, p.Dir+": "+first)
		*diags = append(*diags, graph.Diagnostic{Path: projectPath(p), Kind: "list", Message: msg})
	}
	out, err := runner.Index(ctx, abs, p)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("indexing %s: %w", abs, ctx.Err())
		}
		var ie *scipindexer.Error
		if errors.As(err, &ie) && ie.Reason == scipindexer.Empty {
			lr.Empty = append(lr.Empty, p.Dir)
			return nil
		}
		if errors.As(err, &ie) {
			msg := ie.Coded().Error()
			if ie.Output != "" {
				msg += "\n" + ie.Output
			}
			failed(msg)
			return nil
		}
		failed(fmt.Sprintf("%s: %s on %s: %v", graph.CodeIndexingFailed, lr.Indexer, p.Dir, err))
		return nil
	}
	defer out.Remove()
	f, err := os.Open(out.Path)
	if err != nil {
		failed(fmt.Sprintf("%s: %s on %s: reading its index: %v", graph.CodeIndexingFailed, lr.Indexer, p.Dir, err))
		return nil
	}
	defer f.Close()
	r, err := scipindex.Import(ctx, f, w, scipindex.Options{Repository: repo, Root: root, ProjectDir: p.Dir, Skip: p.Nested, Link: link})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("indexing %s: %w", abs, ctx.Err())
		}
		var ge *graph.Error
		if errors.As(err, &ge) && ge.Code == graph.CodeParseError {
			// The decoder failed before anything was written.
			failed(fmt.Sprintf("%s: %s on %s: its index does not decode: %v", graph.CodeIndexingFailed, lr.Indexer, p.Dir, err))
			return nil
		}
		return fmt.Errorf("importing the index of %s: %w", p.Dir, err)
	}
	lr.Indexed++
	if r.Version != "" {
		lr.Version = r.Version
	}
	lr.Files += r.Files
	lr.Symbols += r.Symbols
	res.addSCIP(r)
	return nil
}

// projectNames are the package names of the projects of language l.
func projectNames(projects []scipindexer.Project, l scipindexer.Language) []string {
	var out []string
	for _, p := range projects {
		if p.Language == l {
			out = append(out, p.Name)
		}
	}
	return out
}

// addSCIP counts what scipindex.Import wrote (its diagnostics too) in
// res.
func (res *Result) addSCIP(r scipindex.Result) {
	res.Packages += r.Packages
	res.Files += r.Files
	res.Symbols += r.Symbols
	res.Refs += r.Refs
	res.CallEdges += r.CallEdges
	res.Implementations += r.Implements
	res.Diagnostics += len(r.Diagnostics)
}

func writeDiags(ctx context.Context, w graph.SnapshotWriter, diags []graph.Diagnostic, res *Result) error {
	if len(diags) == 0 {
		return nil
	}
	if err := w.AddDiagnostics(ctx, diags); err != nil {
		return fmt.Errorf("writing diagnostics: %w", err)
	}
	res.Diagnostics += len(diags)
	return nil
}

func skippedOf(diags []graph.Diagnostic) []graph.Diagnostic {
	var out []graph.Diagnostic
	for _, d := range diags {
		if d.Skipped() {
			out = append(out, d)
		}
	}
	return out
}

func indexerName(l scipindexer.Language) string {
	if l == scipindexer.Python {
		return scipindexer.PythonCommand
	}
	return scipindexer.TypeScriptCommand
}

// projectPath is the file that made p a project, else its directory.
func projectPath(p scipindexer.Project) string {
	if len(p.Markers) > 0 {
		return p.Markers[0]
	}
	return p.Dir
}

// markerOf is the path the diagnostic of language l not indexed points
// at: its first project's.
func markerOf(ps []scipindexer.Project, l scipindexer.Language) string {
	for _, p := range ps {
		if p.Language == l {
			return projectPath(p)
		}
	}
	return ""
}

// foundLanguage is the graph's language of the projects of l that were
// found: JavaScript when every one of TypeScript's holds JavaScript
// alone, so that a repository of JavaScript is not said to hold
// TypeScript.
func foundLanguage(ps []scipindexer.Project, l scipindexer.Language) string {
	if l != scipindexer.TypeScript {
		return string(l)
	}
	for _, p := range ps {
		if p.Language == l && !p.JavaScript {
			return graph.LanguageTypeScript
		}
	}
	return graph.LanguageJavaScript
}

// scipSource reports whether a file of this name is source a SCIP
// indexer reads: a change to one is not a Go package's, and an amend
// cannot re-derive it.
func scipSource(name string) bool {
	lang := graph.LanguageOf(name)
	return lang != "" && lang != graph.LanguageGo
}

// scipEnabled reports whether SCIPEnv leaves the SCIP frontend on.
func scipEnabled() bool { return !strings.EqualFold(os.Getenv(SCIPEnv), "off") }

// hasSCIPFiles reports whether the tree at dir holds source a SCIP
// indexer reads, in a directory discovery walks.
func hasSCIPFiles(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return filepath.SkipDir
		}
		if d.IsDir() && p != dir && scipindexer.SkipDir(d.Name()) {
			return filepath.SkipDir
		}
		if found = !d.IsDir() && scipSource(d.Name()); found {
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
