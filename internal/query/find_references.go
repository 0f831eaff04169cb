package query

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index/scipindex"
	"github.com/sextant-dev/sextant/internal/session"
)

// FindReferencesInput is the input of find_references. The symbol is
// selected as get_symbol selects it; symbol_path narrows a qualified_name
// because path filters the references.
type FindReferencesInput struct {
	SymbolID
	// SymbolPath is the selector's path prefix: path here narrows the uses.
	SymbolPath string `json:"symbol_path,omitempty" jsonschema:"path prefix to narrow by"`
	FileName
	Kind         string `json:"kind,omitempty" jsonschema:"any of call,read,write,type,import,embed,override"`
	Path         string `json:"path,omitempty" jsonschema:"uses under this path prefix only"`
	IncludeTests *bool  `json:"include_tests,omitempty" jsonschema:"uses in test files (default true)"`
	Limit        int    `json:"limit,omitempty" jsonschema:"page size 1-500 (default 50)"`
	Cursor       string `json:"cursor,omitempty" jsonschema:"next_cursor of the last page"`
	Budget       int    `json:"budget,omitempty" jsonschema:"max tokens of text, 150+"`
	// ResponseFormat: the keys double a long answer's bytes, which every
	// client decodes; the name is enough to ask get_symbol.
	ResponseFormat string `json:"response_format,omitempty" jsonschema:"concise (default) or detailed"`
	Wait           Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

func (in FindReferencesInput) selector() selector {
	return selector{StableKey: in.StableKey, QualifiedName: in.QualifiedName, Repository: in.Repository,
		Path: in.SymbolPath, PathField: "symbol_path", File: in.File, Name: in.Name}
}

// RefRow is one use of the symbol.
type RefRow struct {
	Line         int    `json:"line" jsonschema:"1-based line of the use"`
	Column       int    `json:"column" jsonschema:"1-based column of the identifier, in characters"`
	Kind         string `json:"kind" jsonschema:"call, read, write, type, import, embed or override"`
	Enclosing    string `json:"enclosing,omitempty" jsonschema:"qualified name of the declaration the use is in"`
	EnclosingKey string `json:"enclosing_key,omitempty" jsonschema:"detailed only: stable key of that declaration"`
	Target       string `json:"target,omitempty" jsonschema:"the related method used, when it is not the symbol itself"`
	Text         string `json:"text" jsonschema:"the line's text, trimmed and cut around the use"`
	Layer        string `json:"layer,omitempty" jsonschema:"shared-graph overlay: local (edited) or shared"`
}

// RefFile holds the uses in one file.
type RefFile struct {
	Path       string   `json:"path" jsonschema:"repo-relative file"`
	References []RefRow `json:"references" jsonschema:"uses in line order"`
}

// FindReferencesOutput is the answer of find_references.
type FindReferencesOutput struct {
	Envelope
	Completeness string     `json:"completeness" jsonschema:"complete, or lower_bound when blind_spots may hide uses"`
	BlindSpots   []string   `json:"blind_spots,omitempty" jsonschema:"why more uses may exist, each as kind: detail"`
	Symbol       *SymbolRef `json:"symbol,omitempty" jsonschema:"the symbol whose uses these are"`
	Related      []string   `json:"related,omitempty" jsonschema:"qualified names of the methods related through interfaces whose uses count too"`
	Results      []RefFile  `json:"results" jsonschema:"uses grouped by file, in path order"`
	// Checked says what was type-checked for an answer given before the
	// first index of the repository had checked it whole.
	Checked string `json:"checked,omitempty" jsonschema:"set when answered before the whole index: what was type-checked for it"`

	budgetCut bool // the page was cut to fit the budget
	offset    int  // where the page starts
}

// FindReferences lists every use of a symbol.
func FindReferences(ctx context.Context, s *Service, in FindReferencesInput, progress func(Progress)) (*FindReferencesOutput, error) {
	sel := in.selector()
	if err := sel.validate(); err != nil {
		return nil, err
	}
	if err := checkSelectors("kind", in.Kind, "path", in.Path); err != nil {
		return nil, err
	}
	kinds, err := parseRefKinds(in.Kind)
	if err != nil {
		return nil, err
	}
	pathPrefix, err := cleanPathPrefix("path", in.Path)
	if err != nil {
		return nil, err
	}
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if err := checkBudget(in.Budget); err != nil {
		return nil, err
	}
	format, err := parseFormat(in.ResponseFormat)
	if err != nil {
		return nil, err
	}
	includeTests := in.IncludeTests == nil || *in.IncludeTests
	// The uses' enclosing declarations are named, not listed (refRows).
	ctx = graph.WithEnclosingNames(ctx, true)
	// Asked by key for a first page, the page is known before the symbol
	// is read (unless the symbol has related methods): a store may read
	// both in one round trip (with the view's pin, see openSymbol).
	openCtx := ctx
	if sel.StableKey != "" && in.Cursor == "" {
		openCtx = graph.WithRefsAhead(ctx, refQuery([]string{sel.StableKey}, sel.StableKey, kinds, pathPrefix, includeTests, limit))
	}
	v, sym, checked, err := openUses(openCtx, s, sel, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	related, err := relatedMethods(ctx, v, sym)
	if err != nil {
		return nil, err
	}
	targets := []string{sym.Key}
	names := map[string]string{sym.Key: sym.QualifiedName}
	for _, r := range related {
		targets = append(targets, r.Key)
		names[r.Key] = r.QualifiedName
	}
	// The symbol's own implicit uses count, not those of the methods
	// related to it (see graph.Ref.Implicit).
	q := refQuery(targets, sym.Key, kinds, pathPrefix, includeTests, 0)
	fp := fingerprint("find_references", sym.Key, q)
	vk := v.Key([]string{sym.Repository})
	offset, err := decodeCursor(in.Cursor, fp, vk)
	if err != nil {
		return nil, err
	}
	family, err := familyDeclarations(ctx, v, sym, related)
	if err != nil {
		return nil, err
	}
	for _, m := range family {
		names[m.Key] = m.QualifiedName
	}
	refs, total, err := readRefs(ctx, v, q, family, offset, limit)
	if err != nil {
		return nil, err
	}
	rows, err := refRows(ctx, v, sym.Repository, refs, sym.Key, names, format == Detailed)
	if err != nil {
		return nil, err
	}
	c, err := typeErrorSpots(ctx, v, sym.Repository, "uses")
	if err != nil {
		return nil, err
	}
	if blind.VisibleOutside(sym) {
		c.Add(blind.Outside, "exported from importable package %s: code outside the index may use it", sym.PackagePath)
	}
	ref := symbolRef(sym)
	out := &FindReferencesOutput{Symbol: &ref, Results: []RefFile{}, offset: offset}
	if checked > 0 {
		out.Checked = fmt.Sprintf("ahead of the whole index: %s and, of the packages importing it (directly or not, or in tests), those that spell %s; %d packages with their tests; no use in the repository lies elsewhere", sym.PackagePath, sym.Name, checked)
	}
	out.Completeness, out.BlindSpots = c.Verdict()
	for _, r := range related {
		out.Related = append(out.Related, r.QualifiedName)
	}
	env := v.Envelope()
	fitRows(len(rows), in.Budget, func(n int) {
		out.Envelope = env
		out.setRows(rows[:n], total, offset, fp, vk, n < len(rows))
	}, out.Text)
	return out, nil
}

// readRefs reads the page of uses q selects from offset, with the
// declarations of the family's methods (see familyDeclarations) among
// them in path order: all are read to merge them, which only a
// TypeScript or JavaScript method with a family needs.
func readRefs(ctx context.Context, v *session.View, q graph.RefQuery, family []graph.Symbol, offset, limit int) ([]graph.Ref, int, error) {
	var decls []graph.Ref
	sources := map[string]func(string, int) string{} // one reader per repository
	for _, m := range family {
		if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, graph.RefOverride) ||
			!strings.HasPrefix(m.Path, q.PathPrefix) || m.TestOnly && !q.IncludeTests {
			continue
		}
		line, ok := sources[m.Repository]
		if !ok {
			line = v.Source(m.Repository).Line
			sources[m.Repository] = line
		}
		decls = append(decls, scipindex.DeclarationRef(m, line))
	}
	if len(decls) == 0 {
		q.Offset, q.Limit = offset, limit
		refs, total, err := v.Reader().Refs(ctx, q)
		if err != nil {
			return nil, 0, graph.Wrap(graph.CodeInternal, err, "reading references")
		}
		return refs, total, nil
	}
	q.Offset, q.Limit = 0, 0
	refs, _, err := v.Reader().Refs(ctx, q)
	if err != nil {
		return nil, 0, graph.Wrap(graph.CodeInternal, err, "reading references")
	}
	refs = append(refs, decls...)
	slices.SortStableFunc(refs, func(a, b graph.Ref) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			strings.Compare(a.Repository, b.Repository), strings.Compare(a.Target, b.Target))
	})
	total := len(refs)
	refs = refs[min(offset, total):]
	if limit > 0 && len(refs) > limit {
		refs = refs[:limit]
	}
	return refs, total, nil
}

// refQuery is the query of find_references for the uses of targets and
// the implicit uses of key alone, the methods related to key among
// targets (see graph.Ref.Implicit), from the first.
func refQuery(targets []string, key string, kinds []graph.RefKind, pathPrefix string, includeTests bool, limit int) graph.RefQuery {
	return graph.RefQuery{Targets: targets, Implicit: []string{key}, Kinds: kinds, PathPrefix: pathPrefix,
		IncludeTests: includeTests, Limit: limit}
}

// refRow is a RefRow with its file, before grouping.
type refRow struct {
	path string
	row  RefRow
}

// setRows groups rows by file and fills the paging fields.
func (o *FindReferencesOutput) setRows(rows []refRow, total, offset int, fp, vk string, cut bool) {
	o.Results = []RefFile{}
	// One slice holds the rows, each file's a part of it (rows are in
	// path order, so a file's rows are consecutive).
	all := make([]RefRow, len(rows))
	for i := 0; i < len(rows); {
		j := i
		for ; j < len(rows) && rows[j].path == rows[i].path; j++ {
			all[j] = rows[j].row
		}
		o.Results = append(o.Results, RefFile{Path: rows[i].path, References: all[i:j:j]})
		i = j
	}
	o.Truncated, o.NextCursor = false, nil
	o.Page(total, offset, len(rows), fp, vk)
	o.budgetCut = cut
}

// refRows turns references into rows: the enclosing declaration's name
// (and with keys its stable key) and the line's text, read from disk once
// per file.
func refRows(ctx context.Context, v *session.View, repo string, refs []graph.Ref, subject string, names map[string]string, keys bool) ([]refRow, error) {
	var enclKeys []string
	seen := make(map[string]bool, len(refs)/2)
	for i, r := range refs {
		if i > 0 && r.Enclosing == refs[i-1].Enclosing {
			continue // a run of uses in one declaration, the common case
		}
		if r.Enclosing != "" && !seen[r.Enclosing] {
			seen[r.Enclosing] = true
			enclKeys = append(enclKeys, r.Enclosing)
		}
	}
	encl := map[string]string{}
	if qn, ok := v.Reader().Symbols.(graph.QualifiedNamer); ok && len(enclKeys) > 0 {
		// Only the names are needed: a store that can read just those
		// saves reading every enclosing declaration whole (about a third
		// of a 300-use answer's time on SQLite).
		names, err := qn.QualifiedNames(ctx, enclKeys)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading enclosing declarations")
		}
		encl = names
	} else if len(enclKeys) > 0 {
		syms, err := v.Reader().SymbolsByKeys(ctx, enclKeys)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading enclosing declarations")
		}
		for _, s := range syms {
			encl[s.Key] = s.QualifiedName
		}
	}
	readers := map[string]func(string, int) string{}
	rows := make([]refRow, 0, len(refs))
	var lastRepo, enclName string
	var lines func(string, int) string
	for i, r := range refs {
		useRepo := r.Repository // a use may be in another repository than the symbol
		if useRepo == "" {
			useRepo = repo
		}
		if useRepo != lastRepo || lines == nil {
			var ok bool
			if lines, ok = readers[useRepo]; !ok {
				lines = v.Source(useRepo).Line
				readers[useRepo] = lines
			}
			lastRepo = useRepo
		}
		if i == 0 || r.Enclosing != refs[i-1].Enclosing {
			enclName = encl[r.Enclosing]
		}
		row := RefRow{Line: r.Line, Column: r.Col, Kind: string(r.Kind), Enclosing: enclName,
			Text: answer.Excerpt(lines(r.Path, r.Line), r.Col), Layer: string(r.Layer)}
		if keys {
			row.EnclosingKey = r.Enclosing
		}
		if r.Target != subject {
			row.Target = names[r.Target]
		}
		rows = append(rows, refRow{path: r.Path, row: row})
	}
	return rows, nil
}

// parseRefKinds parses a comma-separated list of reference kinds.
func parseRefKinds(s string) ([]graph.RefKind, error) {
	if s == "" {
		return nil, nil
	}
	var out []graph.RefKind
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		ok := false
		for _, k := range graph.RefKinds {
			if string(k) == part {
				out = append(out, k)
				ok = true
			}
		}
		if !ok {
			return nil, invalid("kind", "unknown reference kind %q; use call, read, write, type, import, embed or override, comma-separated", part)
		}
	}
	return out, nil
}

// Text renders the uses grouped by file, each path spelled once. What a
// row would repeat from the rows before it is left out: the kind most
// uses share is named once in the header and only the other kinds are
// marked, a run of uses in one declaration names it once, and a second
// use on the same line does not repeat the line's text.
func (o *FindReferencesOutput) Text() string {
	var b strings.Builder
	common := o.commonKind()
	if o.Symbol != nil {
		// The declaration's file is not spelled here: the rows below may
		// spell it, and a path is spelled once.
		fmt.Fprintf(&b, "%d uses of %s %s", o.Total, o.Symbol.Kind, o.Symbol.QualifiedName)
		if o.Returned < o.Total {
			fmt.Fprintf(&b, "; showing %d-%d", o.offset+1, o.offset+o.Returned)
		}
		if common != "" {
			fmt.Fprintf(&b, "; kind %s unless marked", common)
		}
		b.WriteString("\n")
	}
	if len(o.Related) > 0 {
		fmt.Fprintf(&b, "counting uses of related methods: %s\n", strings.Join(o.Related, ", "))
	}
	// The rows are written piece by piece, not with fmt: they are most
	// of the text, and formatting them was a tenth of an answer's time.
	var num [20]byte
	for _, f := range o.Results {
		b.Grow(len(f.Path) + 64*len(f.References))
	}
	for _, f := range o.Results {
		b.WriteString(f.Path)
		b.WriteByte('\n')
		// A run of uses in one declaration names it once, on the first.
		prev, prevLine := "", 0
		for _, r := range f.References {
			b.WriteByte(' ')
			b.Write(strconv.AppendInt(num[:0], int64(r.Line), 10))
			b.WriteByte(':')
			b.Write(strconv.AppendInt(num[:0], int64(r.Column), 10))
			if r.Kind != common {
				b.WriteString(" ")
				b.WriteString(r.Kind)
			}
			if r.Target != "" {
				b.WriteString(" via ")
				b.WriteString(r.Target)
			}
			if r.Enclosing != "" && r.Enclosing != prev {
				b.WriteString(" in ")
				b.WriteString(r.Enclosing)
			}
			prev = r.Enclosing
			if r.Text != "" && r.Line != prevLine {
				b.WriteString(": ")
				b.WriteString(r.Text)
			}
			prevLine = r.Line
			b.WriteString(layerMark(r.Layer))
			b.WriteString("\n")
		}
	}
	if o.Total == 0 {
		b.WriteString("No uses found with these filters.\n")
	}
	blind.Write(&b, o.Completeness, o.BlindSpots)
	if o.Checked != "" {
		b.WriteString("checked " + o.Checked + "\n")
	}
	writeMore(&b, o.Envelope, o.offset, o.budgetCut, "references")
	writeFreshness(&b, o.Envelope)
	return b.String()
}

// commonKind is the kind most uses of the page share, named once in the
// text's header; "" when fewer than two uses share one.
func (o *FindReferencesOutput) commonKind() string {
	count := map[string]int{}
	for _, f := range o.Results {
		for _, r := range f.References {
			count[r.Kind]++
		}
	}
	best, n := "", 1
	for _, k := range graph.RefKinds {
		if c := count[string(k)]; c > n {
			best, n = string(k), c
		}
	}
	return best
}
