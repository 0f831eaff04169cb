package webui

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/query"
)

// pages holds what every page handler reads.
type pages struct {
	svc  *query.Service
	tmpl map[string]*template.Template
	log  *slog.Logger
}

// view is what the layout template receives.
type view struct {
	Title string
	Query string          // the search box's text
	Env   *query.Envelope // the freshness of what the page shows
	Data  any
	// Refresh reloads the page after a few seconds, without script: an
	// index is running and the page will have its answer.
	Refresh bool
}

// render writes page name filled with data, or an error page.
func (p *pages) render(w http.ResponseWriter, r *http.Request, name string, v view) {
	t := p.tmpl[name]
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		p.log.Error("ui page", "page", name, "err", err)
		http.Error(w, "the page failed to render", http.StatusInternalServerError)
		return
	}
	writeHTML(w, &b)
}

// writeHTML writes a rendered page. Control characters, bidirectional
// overrides and invisible format characters anywhere in it (a file name,
// a comment, a string of the repository) are written as visible escapes
// (\u202e), the tools' rule (query.EscapeControls): html/template's
// escaping makes them text, this makes them seen.
func writeHTML(w http.ResponseWriter, b *bytes.Buffer) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(query.EscapeControls(b.String())))
}

// fail writes the error page with status code.
func (p *pages) fail(w http.ResponseWriter, r *http.Request, code int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	p.render(w, r, "error", view{Title: http.StatusText(code), Data: errorData{Code: strconv.Itoa(code), Message: msg}})
}

type errorData struct{ Code, Message string }

// failed writes the error page for a tool's error, with the HTTP status
// its code means.
func (p *pages) failed(w http.ResponseWriter, r *http.Request, err error) {
	info := query.ErrorOf(err)
	status := http.StatusInternalServerError
	switch info.Code {
	case graph.CodeSymbolNotFound, graph.CodeFileNotFound, graph.CodeRepositoryNotFound:
		status = http.StatusNotFound
	case graph.CodeInvalidArgument, graph.CodeAmbiguousSymbol, graph.CodeNotAFunction, graph.CodeOutsideRoots, graph.CodeCursorInvalid, graph.CodeUnsupportedLanguage:
		status = http.StatusBadRequest
	case graph.CodeIndexNotReady:
		status = http.StatusServiceUnavailable
	}
	if status == http.StatusInternalServerError && !errors.Is(err, context.Canceled) {
		p.log.Error("ui page", "path", r.URL.Path, "err", err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	p.render(w, r, "error", view{Title: string(info.Code), Data: errorData{Code: string(info.Code), Message: info.Text()}, Refresh: status == http.StatusServiceUnavailable})
}

// overviewData is the overview page.
type overviewData struct {
	O      *query.GetRepositoryOverviewOutput
	Repos  []query.RepositoryRow
	Layers drawing
	Full   bool // the layers section asked for alone
}

// overview is the repository overview: modules, languages, packages by
// import layer (drawn), hot spots.
func (p *pages) overview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	repo := r.URL.Query().Get("repo")
	repos, err := call[query.ListRepositoriesOutput](ctx, p.svc, "list_repositories", map[string]any{})
	if err != nil {
		p.failed(w, r, err)
		return
	}
	if repo == "" && len(repos.Results) > 0 {
		repo = repos.Results[0].Name
	}
	args := map[string]any{"budget": 8000}
	if repo != "" {
		args["repository"] = repo
	}
	full := r.URL.Query().Get("layers") == "all"
	o, err := call[query.GetRepositoryOverviewOutput](ctx, p.svc, "get_repository_overview", args)
	if err != nil {
		p.failed(w, r, err)
		return
	}
	layers := o.Layers
	if full {
		args["section"] = "layers"
		lo, err := call[query.GetRepositoryOverviewOutput](ctx, p.svc, "get_repository_overview", args)
		if err != nil {
			p.failed(w, r, err)
			return
		}
		layers = lo.Layers
	}
	var nodes []gnode
	top := 0
	for _, l := range layers {
		top = max(top, l.Layer)
	}
	for _, l := range layers {
		for _, dir := range l.Packages {
			nodes = append(nodes, gnode{ID: dir, Label: dir, Title: dir, Href: pkgHref(o.Repository, dir), Layer: top - l.Layer})
		}
	}
	more := "/?" + url.Values{"repo": {o.Repository}, "layers": {"all"}}.Encode()
	perLayer := layerCap
	if full {
		perLayer = maxLayerCap
	}
	d := layout(nodes, nil, perLayer, more)
	p.render(w, r, "overview", view{Title: o.Repository, Env: &o.Envelope, Data: overviewData{O: o, Repos: repos.Results, Layers: d, Full: full}})
}

// pkgData is the package page.
type pkgData struct {
	Repo, Dir string
	O         *query.GetFileOutlineOutput
}

// pkg is a package directory: its files and their declarations.
func (p *pages) pkg(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	dir, repo := q.Get("dir"), q.Get("repo")
	if dir == "" {
		dir = "."
	}
	args := map[string]any{"path": dir, "response_format": "detailed", "limit": 200}
	if repo != "" {
		args["repository"] = repo
	}
	o, err := call[query.GetFileOutlineOutput](r.Context(), p.svc, "get_file_outline", args)
	if err != nil {
		p.failed(w, r, err)
		return
	}
	p.render(w, r, "package", view{Title: dir, Env: &o.Envelope, Data: pkgData{Repo: o.Repository, Dir: dir, O: o}})
}

// symbolData is the symbol page.
type symbolData struct {
	S        *query.SymbolDetail
	Lines    []srcLine
	Verified bool
	Note     string
	Refs     *query.FindReferencesOutput
	RefsErr  string
	Func     bool
	Callers  drawing
	Callees  drawing
	GraphErr string
	Effects  *query.EffectsOutput
	Witness  drawing // the effects' witness paths
	Type     bool
}

// symbol is one symbol: its verified source with identifiers linked, its
// references, its callers and callees as graphs expanded a level at a
// time, its effects.
func (p *pages) symbol(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	key := q.Get("key")
	g, err := call[query.GetSymbolOutput](ctx, p.svc, "get_symbol", map[string]any{"stable_key": key})
	if err != nil {
		p.failed(w, r, err)
		return
	}
	s := g.Results
	d := symbolData{S: s}
	src, err := call[query.ReadSourceOutput](ctx, p.svc, "read_source", map[string]any{"stable_key": key, "budget": 8000})
	if err != nil {
		p.failed(w, r, err)
		return
	}
	d.Verified = src.Verified
	if len(src.Results) > 0 {
		b := src.Results[0]
		d.Note = b.Note
		if s.Language == "" {
			d.Lines = goLines(b.Source, path.Join(s.RepositoryPath, b.Path), s.Repository, b.StartLine, "", b.StartByte == 0)
		} else {
			// infer_type reads Go alone: the other languages' identifiers
			// link through the references their SCIP index recorded.
			last := b.StartLine + strings.Count(strings.TrimSuffix(b.Source, "\n"), "\n")
			uses, err := query.ScriptUses(ctx, p.svc, key, b.StartLine, last, scriptNames(b.Source))
			if err != nil {
				p.log.Warn("ui page", "page", "symbol", "uses", err)
			}
			d.Lines = scriptLines(b.Source, b.StartLine, uses, b.StartByte == 0)
		}
	}
	if refs, err := call[query.FindReferencesOutput](ctx, p.svc, "find_references", map[string]any{"stable_key": key, "limit": 100, "budget": 8000, "response_format": "detailed"}); err != nil {
		d.RefsErr = query.ErrorOf(err).Text()
	} else {
		d.Refs = refs
	}
	switch s.Kind {
	case "func", "method", "interface_method":
		d.Func = true
		st := parseGraphState(q)
		if d.Callers, err = p.callGraph(ctx, s, st, true); err == nil {
			d.Callees, err = p.callGraph(ctx, s, st, false)
		}
		if err != nil {
			d.GraphErr = query.ErrorOf(err).Text()
		}
		if eff, err := call[query.EffectsOutput](ctx, p.svc, "explain_effects", map[string]any{"stable_key": key}); err == nil {
			d.Effects = eff
			d.Witness = effectGraph(eff, layerCap)
		}
	case "type", "interface":
		d.Type = s.Language == ""
	}
	p.render(w, r, "symbol", view{Title: s.QualifiedName, Env: &g.Envelope, Data: d})
}

// typeData is the type page.
type typeData struct {
	S *query.SymbolDetail
	T *query.ExplainTypeOutput
}

// typ is a type's protocol: method sets, interfaces satisfied,
// constructors, channels, goroutines.
func (p *pages) typ(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.URL.Query().Get("key")
	g, err := call[query.GetSymbolOutput](ctx, p.svc, "get_symbol", map[string]any{"stable_key": key})
	if err != nil {
		p.failed(w, r, err)
		return
	}
	t, err := call[query.ExplainTypeOutput](ctx, p.svc, "explain_type", map[string]any{"stable_key": key, "budget": 8000})
	if err != nil {
		p.failed(w, r, err)
		return
	}
	p.render(w, r, "type", view{Title: g.Results.QualifiedName, Env: &t.Envelope, Data: typeData{S: g.Results, T: t}})
}

// searchData is the search page and its results fragment.
type searchData struct {
	Q       string
	Symbols *query.FindSymbolOutput
	Code    *query.SearchCodeOutput
	Err     string
}

// maxQuery bounds the search text a page passes on.
const maxQuery = 256

func (p *pages) searchFor(ctx context.Context, q string) searchData {
	d := searchData{Q: q}
	if strings.TrimSpace(q) == "" {
		return d
	}
	if len(q) > maxQuery {
		q = q[:maxQuery]
	}
	// find_symbol refuses surrounding whitespace, as every selector.
	name := strings.TrimSpace(q)
	if !strings.ContainsAny(name, " \t") {
		fs, err := call[query.FindSymbolOutput](ctx, p.svc, "find_symbol", map[string]any{"name": name, "limit": 20})
		if err != nil {
			d.Err = query.ErrorOf(err).Text()
		}
		d.Symbols = fs
	}
	sc, err := call[query.SearchCodeOutput](ctx, p.svc, "search_code", map[string]any{"question": q, "limit": 10, "budget": 150})
	if err != nil && d.Err == "" {
		d.Err = query.ErrorOf(err).Text()
	}
	d.Code = sc
	return d
}

// search is the search page: find_symbol and search_code on q.
func (p *pages) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	p.render(w, r, "search", view{Title: "search", Query: q, Data: p.searchFor(r.Context(), q)})
}

// searchResults is the results of search alone, which the page's script
// fetches as a person types.
func (p *pages) searchResults(w http.ResponseWriter, r *http.Request) {
	d := p.searchFor(r.Context(), r.URL.Query().Get("q"))
	var b bytes.Buffer
	if err := p.tmpl["search"].ExecuteTemplate(&b, "results", d); err != nil {
		p.log.Error("ui page", "page", "search results", "err", err)
		http.Error(w, "the results failed to render", http.StatusInternalServerError)
		return
	}
	writeHTML(w, &b)
}

// impactData is the impact page.
type impactData struct {
	O       *query.GetImpactOutput
	Diff    []diffLine // the working tree against HEAD, as a unified diff
	DiffCut string     // what the cut diff leaves out
	DiffErr string
	Changes []changeSource
	Reach   drawing
}

// diffLine is one line of a unified diff and its style: file (the ---
// and +++ header), hunk (@@), add, del, or "" for context and notes.
type diffLine struct {
	Class, Text string
}

// The caps of the impact page's diff: past either, the files left are
// not compared (query.WorkingTreeDiff).
const (
	maxDiffLines = 2000
	maxDiffBytes = 256 << 10
)

// diffLines styles the lines of a unified diff.
func diffLines(text string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		c := ""
		switch {
		case l == "":
		case strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
			c = "file"
		case strings.HasPrefix(l, "@@ "):
			c = "hunk"
		case l[0] == '+':
			c = "add"
		case l[0] == '-':
			c = "del"
		}
		out = append(out, diffLine{Class: c, Text: l})
	}
	return out
}

// changeSource is the source of one changed declaration, as on disk now.
type changeSource struct {
	Decl  query.ChangedDecl
	Lines []srcLine
}

// maxChangeSources bounds the changed declarations whose source the page
// shows.
const maxChangeSources = 12

// impact is the working tree's impact: what changed, as a unified diff
// and as the changed declarations' source, what it reaches (drawn),
// breaking changes, the tests and the go test lines.
func (p *pages) impact(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	args := map[string]any{"diff": true, "limit": 200, "budget": 8000}
	repo := r.URL.Query().Get("repo")
	if repo != "" {
		args["repository"] = repo
	}
	o, err := call[query.GetImpactOutput](ctx, p.svc, "get_impact", args)
	if err != nil {
		p.failed(w, r, err)
		return
	}
	d := impactData{O: o}
	if df, err := query.WorkingTreeDiff(ctx, p.svc, repo, maxDiffLines, maxDiffBytes); err != nil {
		d.DiffErr = query.ErrorOf(err).Text()
	} else {
		if df.Text != "" {
			d.Diff = diffLines(df.Text)
		}
		if df.Cut {
			d.DiffCut = "cut at " + itoa(maxDiffLines) + " lines or " + itoa(maxDiffBytes>>10) + " KiB: " + itoa(df.Shown) + " of " + itoa(df.Files) + " files shown, the last of them in part"
		}
	}
	for i, c := range o.Changed {
		if i == maxChangeSources || c.Change == "removed" {
			continue
		}
		ref := c.Path + ":" + strconv.Itoa(c.Line) + "-" + strconv.Itoa(c.EndLine)
		rs, err := call[query.ReadSourceOutput](ctx, p.svc, "read_source", map[string]any{"ref": ref, "budget": 2000})
		if err != nil || len(rs.Results) == 0 {
			continue
		}
		b := rs.Results[0]
		d.Changes = append(d.Changes, changeSource{Decl: c, Lines: goLines(b.Source, "", "", b.StartLine, "plain", false)})
	}
	d.Reach = reachGraph(o, 20)
	p.render(w, r, "impact", view{Title: "impact", Env: &o.Envelope, Data: d})
}

// def sends a person to the definition of the identifier at file, line
// and column: the symbol page of the declaration that holds it, at its
// line, or a page saying where it is declared when that is outside the
// roots or no declaration of the index.
func (p *pages) def(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	line, _ := strconv.Atoi(q.Get("line"))
	col, _ := strconv.Atoi(q.Get("col"))
	it, err := call[query.InferTypeOutput](ctx, p.svc, "infer_type", map[string]any{"file": q.Get("file"), "line": line, "column": col})
	if err != nil {
		p.failed(w, r, err)
		return
	}
	ti := it.Results
	if ti != nil && ti.Definition != nil && ti.Definition.Path != "" {
		args := map[string]any{"path": ti.Definition.Path, "response_format": "detailed"}
		if repo := q.Get("repo"); repo != "" {
			args["repository"] = repo
		}
		if o, err := call[query.GetFileOutlineOutput](ctx, p.svc, "get_file_outline", args); err == nil && len(o.Results) == 1 {
			if key := enclosingKey(o.Results[0], ti.Definition.Line); key != "" {
				http.Redirect(w, r, "/symbol?"+url.Values{"key": {key}}.Encode()+"#L"+strconv.Itoa(ti.Definition.Line), http.StatusSeeOther)
				return
			}
		}
	}
	p.render(w, r, "def", view{Title: "definition", Env: &it.Envelope, Data: ti})
}

// enclosingKey is the key of the innermost declaration of f spanning line.
func enclosingKey(f query.OutlineFile, line int) string {
	key := ""
	for _, e := range f.Entries {
		if e.StartLine <= line && line <= e.EndLine {
			key = e.StableKey
			for _, m := range e.Members {
				if m.StartLine <= line && line <= m.EndLine && m.StableKey != "" {
					key = m.StableKey
				}
			}
		}
	}
	return key
}

// symHref is the address of the symbol page of key.
func symHref(key string) string {
	if key == "" {
		return ""
	}
	return "/symbol?" + url.Values{"key": {key}}.Encode()
}

// pkgHref is the address of the package page of dir in repo.
func pkgHref(repo, dir string) string {
	return "/package?" + url.Values{"repo": {repo}, "dir": {dir}}.Encode()
}
