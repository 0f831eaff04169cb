package query

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/lsptools"
)

// CheckFileInput selects the file whose package is checked.
type CheckFileInput struct {
	File      string `json:"file" jsonschema:"repo-relative or absolute"`
	Analyzers *bool  `json:"analyzers,omitempty" jsonschema:"also run go vet analyzers (default false)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"page size 1-500 (default 50)"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"next_cursor of the last page"`
}

// FixRow is a suggested fix.
type FixRow struct {
	Message string `json:"message" jsonschema:"what the fix does"`
	Diff    string `json:"diff" jsonschema:"the fix as a unified diff"`
}

// DiagnosticRow is one problem in the package.
type DiagnosticRow struct {
	Path      string   `json:"path" jsonschema:"repo-relative file"`
	Line      int      `json:"line" jsonschema:"1-based line; 0 for an error of the package as a whole"`
	Column    int      `json:"column" jsonschema:"1-based column in characters; 0 when there is no line"`
	EndLine   int      `json:"end_line,omitempty" jsonschema:"1-based end line, when known"`
	EndColumn int      `json:"end_column,omitempty" jsonschema:"1-based end column in characters, when known"`
	Severity  string   `json:"severity" jsonschema:"error or warning"`
	Source    string   `json:"source" jsonschema:"list, parse, type or vet"`
	Code      string   `json:"code" jsonschema:"stable code: the type checker's error code (UnusedVar) or the analyzer (printf)"`
	Message   string   `json:"message" jsonschema:"the diagnostic"`
	Fixes     []FixRow `json:"fixes,omitempty" jsonschema:"suggested fixes"`
}

// CheckFileOutput lists the diagnostics of the file's package.
type CheckFileOutput struct {
	Envelope
	OK      bool            `json:"ok" jsonschema:"true when the package has no diagnostics"`
	Package string          `json:"package" jsonschema:"import path of the package checked"`
	Checker string          `json:"checker,omitempty" jsonschema:"the language server that checked a file of another language"`
	Pending []string        `json:"pending,omitempty" jsonschema:"what that server had not finished when the wait ended: the list may be partial"`
	Results []DiagnosticRow `json:"results" jsonschema:"the diagnostics, by file and position"`
}

// CheckFile type-checks the file's package from disk and lists its
// problems.
func CheckFile(ctx context.Context, s *Service, in CheckFileInput, _ func(Progress)) (*CheckFileOutput, error) {
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if lang := graph.LanguageOf(in.File); lang != "" && lang != graph.LanguageGo {
		return checkWithServer(ctx, s, in, lang)
	}
	p, err := s.sess.LivePackage(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	withVet := in.Analyzers != nil && *in.Analyzers
	var analyzers []*live.Analyzer
	if withVet {
		analyzers = live.VetAnalyzers
	}
	rows := []DiagnosticRow{}
	for _, d := range p.Diagnostics(analyzers) {
		path, ok := relPath(p.Root, d.Start.Filename)
		if !ok {
			path = "(outside the root)"
		}
		r := DiagnosticRow{Path: path, Line: d.Start.Line, Column: d.Start.Column, EndLine: d.End.Line, EndColumn: d.End.Column,
			Severity: d.Severity, Source: d.Source, Code: d.Code, Message: d.Message}
		for _, f := range d.Fixes {
			r.Fixes = append(r.Fixes, FixRow{Message: f.Message, Diff: f.Diff})
		}
		rows = append(rows, r)
	}
	query := fingerprint("check_file", p.Rel, withVet)
	view := p.Version()
	offset, err := decodeCursor(in.Cursor, query, view)
	if err != nil {
		return nil, err
	}
	out := &CheckFileOutput{Envelope: liveEnvelope(), OK: len(rows) == 0, Package: p.Pkg.PkgPath}
	end := min(offset+limit, len(rows))
	if offset > len(rows) {
		offset = len(rows)
	}
	out.Results = rows[offset:end]
	out.Page(len(rows), offset, len(out.Results), query, view)
	return out, nil
}

// checkWithServer answers check_file for a file of another language
// than Go from its language server's diagnostics (lsp_diagnostics), in
// the rows Go's answer has: the package is the file's directory, and a
// server that had not settled when the wait ended is said in pending.
func checkWithServer(ctx context.Context, s *Service, in CheckFileInput, lang string) (*CheckFileOutput, error) {
	if in.Analyzers != nil && *in.Analyzers {
		return nil, answer.Invalid("analyzers", "go vet's analyzers check Go; %s is %s", in.File, graph.LanguageName(lang))
	}
	d, err := s.lsp.Diagnostics(ctx, lsptools.DiagnosticsInput{File: in.File, Limit: in.Limit, Cursor: in.Cursor})
	if err != nil {
		return nil, err
	}
	out := &CheckFileOutput{Envelope: d.Envelope, OK: d.Total == 0 && d.Complete, Checker: d.Server, Pending: d.Pending,
		Results: make([]DiagnosticRow, 0, len(d.Results))}
	for _, r := range d.Results {
		out.Results = append(out.Results, DiagnosticRow{Path: r.Path, Line: r.Line, Column: r.Column, EndLine: r.EndLine, EndColumn: r.EndColumn,
			Severity: r.Severity, Source: r.Source, Code: r.Code, Message: r.Message})
		if out.Package == "" {
			out.Package = path.Dir(r.Path)
		}
	}
	if out.Package == "" {
		out.Package = path.Dir(filepath.ToSlash(in.File))
	}
	return out, nil
}

// Text renders the diagnostics one per line, as a compiler prints them.
func (o *CheckFileOutput) Text() string {
	var b strings.Builder
	what := "package " + o.Package
	if o.Checker != "" {
		what = o.Checker + " on " + o.Package
	}
	if o.OK {
		fmt.Fprintf(&b, "ok: %s has no diagnostics\n", what)
		return b.String()
	}
	fmt.Fprintf(&b, "%s: %d diagnostics\n", what, o.Total)
	if len(o.Pending) > 0 {
		fmt.Fprintf(&b, "partial: the server had not finished %s\n", strings.Join(o.Pending, ", "))
	}
	for _, d := range o.Results {
		where := d.Path
		if d.Line > 0 {
			where = fmt.Sprintf("%s:%d:%d", d.Path, d.Line, d.Column)
		}
		fmt.Fprintf(&b, "%s: %s [%s %s] %s\n", where, d.Severity, d.Source, d.Code, quoteContent(d.Message))
		for _, f := range d.Fixes {
			fmt.Fprintf(&b, "  fix: %s\n", quoteContent(f.Message))
			for _, l := range strings.Split(strings.TrimRight(f.Diff, "\n"), "\n") {
				fmt.Fprintf(&b, "    %s\n", quoteContent(l))
			}
		}
	}
	if o.NextCursor != nil {
		fmt.Fprintf(&b, "more: %d of %d left out (limit); next page: cursor %s\n", o.Total-o.Returned, o.Total, *o.NextCursor)
	}
	return b.String()
}
