package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sextant-dev/sextant/internal/effectrow"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// FindSymbolInput is the input of find_symbol.
type FindSymbolInput struct {
	Name           string `json:"name" jsonschema:"name: Server, NewSrvMux, Server.Start"`
	Mode           string `json:"mode,omitempty" jsonschema:"fuzzy (default), exact, prefix, substring"`
	Kind           string `json:"kind,omitempty" jsonschema:"type, interface, func, method, field, var, const, package, interface_method"`
	Repository     string `json:"repository,omitempty" jsonschema:"only this repository, by name"`
	Path           string `json:"path,omitempty" jsonschema:"repo-relative path prefix, e.g. internal/"`
	Exported       *bool  `json:"exported,omitempty" jsonschema:"true: exported only; false: unexported"`
	Effects        string `json:"effects,omitempty" jsonschema:"functions that may do any of, e.g. net,fs"`
	Limit          int    `json:"limit,omitempty" jsonschema:"page size 1-500 (default 50)"`
	Cursor         string `json:"cursor,omitempty" jsonschema:"next_cursor of the last page"`
	ResponseFormat string `json:"response_format,omitempty" jsonschema:"concise (default) or detailed"`
	Wait           Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// SymbolRow is one match of find_symbol.
type SymbolRow struct {
	StableKey     string `json:"stable_key" jsonschema:"durable key of the symbol; pass to get_symbol"`
	Repository    string `json:"repository" jsonschema:"repository name"`
	Path          string `json:"path" jsonschema:"repo-relative file"`
	Name          string `json:"name" jsonschema:"declared name"`
	QualifiedName string `json:"qualified_name" jsonschema:"Name, Type.Method or Type.Field"`
	Kind          string `json:"kind" jsonschema:"symbol kind"`
	Signature     string `json:"signature" jsonschema:"declaration signature"`
	Exported      bool   `json:"exported" jsonschema:"whether the name is exported"`
	StartLine     int    `json:"start_line" jsonschema:"1-based first line of the declaration"`
	EndLine       int    `json:"end_line" jsonschema:"1-based last line of the declaration"`
	Layer         string `json:"layer,omitempty" jsonschema:"shared-graph overlay: local (edited) or shared"`

	PackagePath string `json:"package_path,omitempty" jsonschema:"detailed only: import path"`
	Doc         string `json:"doc,omitempty" jsonschema:"detailed only: first line of the doc comment"`
	StartColumn int    `json:"start_column,omitempty" jsonschema:"detailed only: 1-based column in characters"`
	EndColumn   int    `json:"end_column,omitempty" jsonschema:"detailed only: 1-based column in characters"`
	TestOnly    bool   `json:"test_only,omitempty" jsonschema:"detailed only: declared in a _test.go file"`
}

// FindSymbolOutput is the answer of find_symbol.
type FindSymbolOutput struct {
	Envelope
	Results []SymbolRow `json:"results" jsonschema:"matches, best first"`
}

// FindSymbol searches symbols by name.
func FindSymbol(ctx context.Context, s *Service, in FindSymbolInput, progress func(Progress)) (*FindSymbolOutput, error) {
	format, err := parseFormat(in.ResponseFormat)
	if err != nil {
		return nil, err
	}
	if err := checkSelectors("name", in.Name, "mode", in.Mode, "kind", in.Kind, "repository", in.Repository, "path", in.Path); err != nil {
		return nil, err
	}
	if err := checkSelector("effects", in.Effects); err != nil {
		return nil, err
	}
	effs, err := effectrow.ParseEffects("effects", in.Effects)
	if err != nil {
		return nil, err
	}
	if in.Name == "" && effs == nil {
		return nil, invalid("name", "is required; give a name or part of one")
	}
	q := graph.SymbolQuery{Name: in.Name, Exported: in.Exported}
	switch in.Mode {
	case "":
		q.Mode = graph.MatchFuzzy
	case "exact", "prefix", "substring", "fuzzy":
		q.Mode = graph.MatchMode(in.Mode)
	default:
		return nil, invalid("mode", "must be exact, prefix, substring or fuzzy (got %q)", in.Mode)
	}
	if in.Kind != "" {
		k, ok := graph.ParseKind(in.Kind)
		if !ok {
			return nil, invalid("kind", "unknown kind %q; use one of %s", in.Kind, kindList())
		}
		q.Kinds = []graph.Kind{k}
	}
	if effs != nil {
		switch {
		case in.Kind == "":
			q.Kinds = []graph.Kind{graph.KindFunc, graph.KindMethod}
		case q.Kinds[0] != graph.KindFunc && q.Kinds[0] != graph.KindMethod:
			return nil, invalid("kind", "effects filter functions and methods only (got kind %q)", in.Kind)
		}
		if in.Name == "" {
			q.Mode = graph.MatchSubstring
		}
	}
	path, err := cleanPathPrefix("path", in.Path)
	if err != nil {
		return nil, err
	}
	q.PathPrefix = path
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if len(effs) == 0 {
		ctx = session.WithSyntax(ctx) // declarations are read from syntax; effects need the complete index
	}
	v, err := s.open(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	var names []string
	if in.Repository != "" {
		r, err := v.Repo(in.Repository)
		if err != nil {
			return nil, err
		}
		names = []string{r.Name}
		q.Repositories = names
	}
	fp := fingerprint("find_symbol", q, in.Kind, effs)
	vk := v.Key(names)
	offset, err := decodeCursor(in.Cursor, fp, vk)
	if err != nil {
		return nil, err
	}
	q.Offset, q.Limit = offset, limit
	if names == nil {
		// A view narrowed to its roots' repositories searches those; the
		// cursor is bound to them through the view's key.
		q.Repositories = v.Scope()
	}
	q.Brief = format == Concise // rowOf reads no more
	var syms []graph.Symbol
	var total int
	if effs != nil {
		syms, total, err = findWithEffects(ctx, v.Reader(), q, effs)
	} else {
		syms, total, err = v.Reader().FindSymbols(ctx, q)
	}
	if err != nil {
		return nil, graph.Wrap(graph.CodeInternal, err, "searching symbols")
	}
	if names == nil {
		for _, r := range v.Repos() {
			v.Use(r.Name)
		}
	} else {
		v.Use(names...)
	}
	out := &FindSymbolOutput{Results: make([]SymbolRow, 0, len(syms))}
	for _, sym := range syms {
		out.Results = append(out.Results, rowOf(sym, format))
	}
	out.Envelope = v.Envelope()
	out.Page(total, offset, len(syms), fp, vk)
	return out, nil
}

func rowOf(sym graph.Symbol, format Format) SymbolRow {
	row := SymbolRow{Layer: string(sym.Layer),
		StableKey: sym.Key, Repository: sym.Repository, Path: sym.Path, Name: sym.Name,
		QualifiedName: sym.QualifiedName, Kind: string(sym.Kind), Signature: sym.Signature,
		Exported: sym.Exported, StartLine: sym.StartLine, EndLine: sym.EndLine,
	}
	if format == Detailed {
		row.PackagePath = sym.PackagePath
		row.Doc = firstLine(sym.Doc)
		row.StartColumn, row.EndColumn = sym.StartCol, sym.EndCol
		row.TestOnly = sym.TestOnly
	}
	return row
}

func kindList() string {
	parts := make([]string, len(graph.Kinds))
	for i, k := range graph.Kinds {
		parts[i] = string(k)
	}
	return strings.Join(parts, ", ")
}

// Text renders the answer for an agent: one line per symbol, each path
// spelled once per run of rows in the same file.
func (o *FindSymbolOutput) Text() string {
	var b strings.Builder
	if o.Total == 0 {
		b.WriteString("No symbol matches. Try mode fuzzy or substring, drop the kind or path filter, or call list_repositories to check what is indexed.\n")
		writeFreshness(&b, o.Envelope)
		return b.String()
	}
	fmt.Fprintf(&b, "%d of %d matches\n", o.Returned, o.Total)
	multiRepo := false
	for _, r := range o.Results {
		if r.Repository != o.Results[0].Repository {
			multiRepo = true
		}
	}
	lastFile := ""
	for _, r := range o.Results {
		file := r.Path
		if multiRepo {
			file = r.Repository + ":" + r.Path
		}
		if file != lastFile {
			fmt.Fprintf(&b, "%s\n", file)
			lastFile = file
		}
		fmt.Fprintf(&b, "  %d-%d %s %s: %s%s\n", r.StartLine, r.EndLine, r.Kind, r.QualifiedName, quoteContent(r.Signature), layerMark(r.Layer))
		if r.Doc != "" {
			fmt.Fprintf(&b, "    // %s\n", quoteContent(r.Doc))
		}
	}
	writePaging(&b, o.Envelope)
	writeFreshness(&b, o.Envelope)
	return b.String()
}

// findWithEffects pages the matches of q whose effect rows hold any of
// effs: every match is read, filtered by its records, then paged.
func findWithEffects(ctx context.Context, r graph.Reader, q graph.SymbolQuery, effs []graph.Effect) ([]graph.Symbol, int, error) {
	offset, limit := q.Offset, q.Limit
	q.Offset, q.Limit = 0, 0
	all, _, err := r.FindSymbols(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	keys := make([]string, len(all))
	for i, s := range all {
		keys[i] = s.Key
	}
	recs, err := r.EffectRecords(ctx, keys)
	if err != nil {
		return nil, 0, err
	}
	match := map[string]bool{}
	for _, rec := range recs {
		if slices.Contains(effs, rec.Effect) {
			match[rec.Function] = true
		}
	}
	var kept []graph.Symbol
	for _, s := range all {
		if match[s.Key] {
			kept = append(kept, s)
		}
	}
	total := len(kept)
	offset = min(offset, total)
	return kept[offset:min(total, offset+limit)], total, nil
}
