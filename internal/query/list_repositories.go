package query

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// ListRepositoriesInput is the input of list_repositories.
type ListRepositoriesInput struct {
	Repository     string `json:"repository,omitempty" jsonschema:"only this repository, by name; omit to list all"`
	ResponseFormat string `json:"response_format,omitempty" jsonschema:"concise (default) or detailed; detailed adds module Go versions and recorded diagnostics"`
	Wait           Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// RepositoryRow is one repository in list_repositories.
type RepositoryRow struct {
	Name          string       `json:"name" jsonschema:"repository name, used by the repository parameter of other tools"`
	Root          string       `json:"root" jsonschema:"absolute directory of the repository"`
	Modules       []string     `json:"modules" jsonschema:"module paths found under the root"`
	VCSHead       string       `json:"vcs_head,omitempty" jsonschema:"commit the work tree was at when indexed"`
	SnapshotID    int64        `json:"snapshot_id" jsonschema:"current snapshot of this repository"`
	SnapshotAgeMS int64        `json:"snapshot_age_ms" jsonschema:"age of that snapshot in milliseconds"`
	Fresh         bool         `json:"fresh" jsonschema:"true when no file changed on disk since the snapshot"`
	Amended       []string     `json:"amended,omitempty" jsonschema:"package directories re-indexed alone after an edit; calls through interfaces and effects elsewhere wait for the whole index that follows"`
	Packages      int          `json:"packages" jsonschema:"number of packages"`
	Files         int          `json:"files" jsonschema:"number of files"`
	Symbols       int          `json:"symbols" jsonschema:"number of symbols"`
	Diagnostics   int          `json:"diagnostics" jsonschema:"number of load, parse and type errors recorded"`
	Details       []Diagnostic `json:"diagnostic_samples,omitempty" jsonschema:"detailed only: the first recorded diagnostics"`
	GoVersions    []string     `json:"go_versions,omitempty" jsonschema:"detailed only: go directive of each module, in module order"`
}

// Diagnostic is a recorded load, parse or type error.
type Diagnostic struct {
	Package string `json:"package" jsonschema:"import path of the package"`
	Path    string `json:"path,omitempty" jsonschema:"repo-relative file"`
	Line    int    `json:"line,omitempty" jsonschema:"1-based line"`
	Column  int    `json:"column,omitempty" jsonschema:"1-based column in characters"`
	Kind    string `json:"kind" jsonschema:"list, parse, type or unknown"`
	Message string `json:"message" jsonschema:"the compiler's message"`
}

// ListRepositoriesOutput is the answer of list_repositories.
type ListRepositoriesOutput struct {
	Envelope
	Results []RepositoryRow `json:"results" jsonschema:"the repositories, by name"`
}

// ListRepositories lists what the index holds.
func ListRepositories(ctx context.Context, s *Service, in ListRepositoriesInput, progress func(Progress)) (*ListRepositoriesOutput, error) {
	format, err := parseFormat(in.ResponseFormat)
	if err != nil {
		return nil, err
	}
	if err := checkSelector("repository", in.Repository); err != nil {
		return nil, err
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	repos := v.Repos()
	if in.Repository != "" {
		r, err := v.Repo(in.Repository)
		if err != nil {
			return nil, err
		}
		repos = []graph.RepositoryStatus{r}
	}
	out := &ListRepositoriesOutput{Results: []RepositoryRow{}}
	for _, r := range repos {
		v.Use(r.Name)
		row := RepositoryRow{
			Name: r.Name, Root: r.Root, VCSHead: r.VCSHead, Modules: []string{},
			SnapshotID:    r.Snapshot.ID,
			SnapshotAgeMS: s.sess.Now().Sub(r.Snapshot.CreatedAt).Milliseconds(),
			Fresh:         len(v.Staleness(r)) == 0,
			Packages:      r.Packages, Files: r.Files, Symbols: r.Symbols, Diagnostics: r.Diagnostics,
			Amended: r.Snapshot.Amended,
		}
		for _, m := range r.Modules {
			row.Modules = append(row.Modules, m.Path)
			if format == Detailed {
				row.GoVersions = append(row.GoVersions, m.GoVersion)
			}
		}
		if format == Detailed && r.Diagnostics > 0 {
			ds, err := v.Reader().Diagnostics(ctx, r.Name, 10)
			if err != nil {
				return nil, graph.Wrap(graph.CodeInternal, err, "reading diagnostics")
			}
			for _, d := range ds {
				row.Details = append(row.Details, diagnosticOf(d))
			}
		}
		out.Results = append(out.Results, row)
	}
	out.Envelope = v.Envelope()
	out.Page(len(out.Results), 0, len(out.Results), "", "")
	return out, nil
}

func diagnosticOf(d graph.Diagnostic) Diagnostic {
	return Diagnostic{Package: d.Package, Path: d.Path, Line: d.Line, Column: d.Col, Kind: d.Kind, Message: d.Message}
}

// Text renders the answer for an agent.
func (o *ListRepositoriesOutput) Text() string {
	var b strings.Builder
	if len(o.Results) == 0 {
		return "No repositories are indexed yet. Run `sextant index DIR`, or start the server in a Go module.\n"
	}
	for _, r := range o.Results {
		fresh := "fresh"
		if !r.Fresh {
			fresh = "STALE (files changed since indexing)"
		}
		fmt.Fprintf(&b, "%s  %s\n  snapshot %d, %s old, %s; %d packages, %d files, %d symbols, %d diagnostics\n",
			r.Name, r.Root, r.SnapshotID, age(r.SnapshotAgeMS), fresh, r.Packages, r.Files, r.Symbols, r.Diagnostics)
		if len(r.Amended) > 0 {
			fmt.Fprintf(&b, "  amended after an edit of %s; a whole index follows\n", strings.Join(r.Amended, ", "))
		}
		if len(r.Modules) > 1 || (len(r.Modules) == 1 && r.Modules[0] != r.Name) {
			fmt.Fprintf(&b, "  modules: %s\n", strings.Join(r.Modules, ", "))
		}
		for _, d := range r.Details {
			fmt.Fprintf(&b, "  %s\n", d.text())
		}
	}
	return b.String()
}

func (d Diagnostic) text() string {
	pos := d.Package
	if d.Path != "" {
		pos = fmt.Sprintf("%s:%d:%d", d.Path, d.Line, d.Column)
	}
	return fmt.Sprintf("%s: %s error: %s", pos, d.Kind, quoteContent(d.Message))
}

func age(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
