package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/live"
)

// CheckFileInput selects the file whose package is checked.
type CheckFileInput struct {
	File      string `json:"file" jsonschema:"Go file, repo-relative or absolute"`
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
	Results []DiagnosticRow `json:"results" jsonschema:"the diagnostics, by file and position"`
}

// CheckFile type-checks the file's package from disk and lists its
// problems.
func CheckFile(ctx context.Context, s *Service, in CheckFileInput, _ func(Progress)) (*CheckFileOutput, error) {
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
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

// Text renders the diagnostics one per line, as a compiler prints them.
func (o *CheckFileOutput) Text() string {
	var b strings.Builder
	if o.OK {
		fmt.Fprintf(&b, "ok: package %s has no diagnostics\n", o.Package)
		return b.String()
	}
	fmt.Fprintf(&b, "package %s: %d diagnostics\n", o.Package, o.Total)
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
