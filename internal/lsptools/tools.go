package lsptools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/lsp"
)

const lspErrors = `Errors: LSP_UNAVAILABLE (no server for the file, not installed, or it died: data has its stderr tail; the next call restarts it), LSP_TIMEOUT (no answer in time; the request was cancelled), FILE_NOT_FOUND, OUTSIDE_ROOTS, INVALID_ARGUMENT.`

const lspPositionNote = ` line and column are 1-based, the column in Unicode characters.`

const DescDiagnostics = `Errors and warnings for one file from its language server (any language with a configured server: Python via pyright, TypeScript, C/C++, Rust, Go via gopls, ...). The file is re-read from disk and synced first; the call waits until the server has published for the current text and been quiet for about a second, or until wait seconds, then answers INCOMPLETE with what is pending (call again: nothing was cancelled). Rows: path:line:column severity message [source code]. For Go, check_file reads the type checker directly; lsp_hover explains a symbol. ` + lspErrors

const DescHover = `What the language server says about the symbol at a position: its type or signature and documentation, in the server's words.` + lspPositionNote + ` Use lsp_definition to jump to it, lsp_references for its uses, lsp_diagnostics for errors. Says "unsupported by this server" when the server has no hover. ` + lspErrors

const DescDefinition = `Where the symbol at a position is defined, per the language server: path:line:column with the line's text (paths outside the roots are absolute).` + lspPositionNote + ` Use lsp_references for the uses, lsp_hover for the type and docs. Says "unsupported by this server" when the server cannot. ` + lspErrors

const DescReferences = `Every use of the symbol at a position, per the language server, as path:line:column with the line's text, paged with limit and cursor.` + lspPositionNote + ` include_declaration adds the definition. Use lsp_definition for the definition alone; for Go, find_references answers from the index without a server. ` + lspErrors + ` CURSOR_INVALID.`

const DescDocumentSymbols = `Outline of one file from its language server: classes, functions, methods, fields, as indented lines "kind name detail line-end_line", nesting shown by indentation. Use lsp_workspace_symbols to search across files; for Go files get_file_outline needs no server. ` + lspErrors

const DescWorkspaceSymbols = `Search symbols by name across the workspace of one language server, chosen by file (any file of that language) or by server name (gopls, pyright, typescript, clangd, rust-analyzer, or a configured one). Rows: kind name container path:line:column; paged with limit and cursor. Use lsp_document_symbols for one file's outline; for Go, find_symbol searches the index. ` + lspErrors + ` CURSOR_INVALID.`

const DescCompletion = `What the language server would complete at a position: the first 50 items, each label, kind and detail.` + lspPositionNote + ` The column is where the cursor sits (after the text typed so far). Use lsp_hover for what a name is. ` + lspErrors

const DescRequest = `Send any request to a language server, including a server's custom methods (configured in sextant.toml as custom_methods): method and params as JSON, positions in params exactly as LSP counts them (0-based, in the position_encoding the answer names); file: URIs in params must name places inside the roots, and workspace/executeCommand is refused. The file, when given, is synced first and picks the server; otherwise name the server. Returns the raw JSON result. Prefer the typed tools: lsp_hover, lsp_definition, lsp_references, lsp_diagnostics. ` + lspErrors

const DescRestart = `Stop and restart the language server for a file's language (or named server) in its root, optionally with a new hard memory cap in MiB (memory_mb; -1 for none). Use it when a server answers wrongly, is SERVER LARGE, or keeps timing out; lsp_diagnostics and the other lsp tools restart a dead server by themselves. Returns the new process id, its cap and encoding. ` + lspErrors

// PositionInput names a position in a file.
type PositionInput struct {
	File   string `json:"file" jsonschema:"the file, root-relative or absolute inside a root"`
	Line   int    `json:"line" jsonschema:"1-based line number in the file"`
	Column int    `json:"column" jsonschema:"1-based column, counted in Unicode characters"`
}

// --- lsp_diagnostics

// DiagnosticsInput is the input of lsp_diagnostics.
type DiagnosticsInput struct {
	File   string `json:"file" jsonschema:"the file to check, root-relative or absolute inside a root"`
	Wait   int    `json:"wait,omitempty" jsonschema:"seconds to wait for the server to settle, 0 to 600 (default 25); then INCOMPLETE"`
	Limit  int    `json:"limit,omitempty" jsonschema:"diagnostics per page, 1 to 500 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page of the same call"`
}

// Diagnostic is one diagnostic.
type Diagnostic struct {
	Location
	Severity string `json:"severity" jsonschema:"error, warning, information or hint"`
	Source   string `json:"source,omitempty" jsonschema:"what reported it (compiler, linter)"`
	Code     string `json:"code,omitempty" jsonschema:"the diagnostic's code"`
	Message  string `json:"message" jsonschema:"the message"`
}

// DiagnosticsOutput is the answer of lsp_diagnostics.
type DiagnosticsOutput struct {
	answer.Envelope
	Status
	Complete bool         `json:"complete" jsonschema:"true when the server settled; false: INCOMPLETE, see pending"`
	Pending  []string     `json:"pending,omitempty" jsonschema:"what the server had not finished when the wait ended"`
	WaitedMS int64        `json:"waited_ms" jsonschema:"how long the call waited"`
	Results  []Diagnostic `json:"results" jsonschema:"the diagnostics of the current text"`
}

var severities = []string{"", "error", "warning", "information", "hint"}

// Diagnostics waits for and returns a file's diagnostics.
func (b *Bridge) Diagnostics(ctx context.Context, in DiagnosticsInput) (*DiagnosticsOutput, error) {
	wait := 25 * time.Second
	switch {
	case in.Wait < 0 || in.Wait > 600:
		return nil, answer.Invalid("wait", "must be between 0 and 600 seconds (got %d)", in.Wait)
	case in.Wait > 0:
		wait = time.Duration(in.Wait) * time.Second
	}
	c, err := b.srv.open(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	defer c.release()
	res := c.lease.Diagnostics(ctx, c.uri, wait)
	out := &DiagnosticsOutput{Status: c.status(), Complete: res.Complete, Pending: res.Pending, WaitedMS: res.Waited.Milliseconds()}
	all := make([]Diagnostic, 0, len(res.Diagnostics))
	for _, d := range res.Diagnostics {
		sev := "error"
		if d.Severity > 0 && d.Severity < len(severities) {
			sev = severities[d.Severity]
		}
		var code string
		if len(d.Code) > 0 {
			code = strings.Trim(string(d.Code), `"`)
		}
		all = append(all, Diagnostic{Location: c.location(c.uri, d.Range), Severity: sev, Source: d.Source, Code: code, Message: d.Message})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Line != all[j].Line {
			return all[i].Line < all[j].Line
		}
		return all[i].Column < all[j].Column
	})
	off, end, err := answer.PageOf(&out.Envelope, len(all), in.Limit, in.Cursor, "lsp_diagnostics", c.file.rel, answer.Fingerprint(all))
	if err != nil {
		return nil, err
	}
	out.Results = all[off:end]
	return out, nil
}

// Text renders the diagnostics one per line.
func (o *DiagnosticsOutput) Text() string {
	var b strings.Builder
	b.WriteString(o.Status.text())
	if !o.Complete {
		fmt.Fprintf(&b, "INCOMPLETE after %.1fs; pending: %s. Call again to keep waiting (nothing was cancelled).\n", float64(o.WaitedMS)/1000, strings.Join(o.Pending, "; "))
	}
	if o.Total == 0 {
		if o.Complete {
			b.WriteString("no diagnostics\n")
		} else {
			b.WriteString("no diagnostics so far\n")
		}
	}
	for _, d := range o.Results {
		fmt.Fprintf(&b, "%s:%d:%d %s %s", d.Path, d.Line, d.Column, d.Severity, answer.OneLine(d.Message))
		if d.Source != "" || d.Code != "" {
			fmt.Fprintf(&b, " [%s]", strings.TrimSpace(d.Source+" "+d.Code))
		}
		b.WriteByte('\n')
	}
	pageFooter(&b, o.Envelope)
	return b.String()
}

func pageFooter(b *strings.Builder, env answer.Envelope) {
	if env.Truncated && env.NextCursor != nil {
		fmt.Fprintf(b, "(%d of %d; pass cursor %s for more)\n", env.Returned, env.Total, *env.NextCursor)
	}
}

// --- lsp_hover

// HoverOutput is the answer of lsp_hover.
type HoverOutput struct {
	answer.Envelope
	Status
	Unsupported bool      `json:"unsupported,omitempty" jsonschema:"true when the server does not offer this"`
	Contents    string    `json:"contents" jsonschema:"the hover text (markdown or plain), empty when the server has nothing there"`
	Range       *Location `json:"range,omitempty" jsonschema:"the span the hover is about"`
}

// Hover asks the server about the symbol at a position.
func (b *Bridge) Hover(ctx context.Context, in PositionInput) (*HoverOutput, error) {
	c, params, err := b.srv.openAt(ctx, in)
	if err != nil {
		return nil, err
	}
	defer c.release()
	out := &HoverOutput{Status: c.status()}
	out.Fresh = true
	if c.unsupported("hoverProvider") {
		out.Unsupported = true
		return out, nil
	}
	var res *struct {
		Contents json.RawMessage `json:"contents"`
		Range    *lsp.Range      `json:"range"`
	}
	if err := c.lease.Call(ctx, "textDocument/hover", params, &res); err != nil {
		return nil, err
	}
	if res != nil {
		out.Contents = strings.TrimSpace(markup(res.Contents))
		if res.Range != nil {
			loc := c.location(c.uri, *res.Range)
			out.Range = &loc
		}
	}
	if out.Contents != "" {
		out.Total, out.Returned = 1, 1
	}
	return out, nil
}

// markup flattens hover contents: MarkupContent, a MarkedString or a list
// of them.
func markup(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if json.Unmarshal(raw, &mc) == nil && (mc.Kind != "" || mc.Language != "" || mc.Value != "") {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, m := range list {
			parts = append(parts, markup(m))
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// Text is the hover itself.
func (o *HoverOutput) Text() string {
	st := o.Status.text()
	switch {
	case o.Unsupported:
		return st + "unsupported by this server (" + o.Server + " has no hover)\n"
	case o.Contents == "":
		return st + "no hover information at this position\n"
	}
	return st + o.Contents + "\n"
}

// --- lsp_definition

// LocationsOutput is the answer of lsp_definition and lsp_references.
type LocationsOutput struct {
	answer.Envelope
	Status
	Unsupported bool       `json:"unsupported,omitempty" jsonschema:"true when the server does not offer this"`
	Results     []Location `json:"results" jsonschema:"the places found"`
}

// Definition asks where the symbol at a position is defined.
func (b *Bridge) Definition(ctx context.Context, in PositionInput) (*LocationsOutput, error) {
	return b.locations(ctx, in, "definitionProvider", "textDocument/definition", nil, 0, "")
}

// ReferencesInput is the input of lsp_references.
type ReferencesInput struct {
	PositionInput
	IncludeDeclaration *bool  `json:"include_declaration,omitempty" jsonschema:"also list the declaration itself (default false)"`
	Limit              int    `json:"limit,omitempty" jsonschema:"references per page, 1 to 500 (default 50)"`
	Cursor             string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page of the same call"`
}

// References asks for every use of the symbol at a position.
func (b *Bridge) References(ctx context.Context, in ReferencesInput) (*LocationsOutput, error) {
	decl := in.IncludeDeclaration != nil && *in.IncludeDeclaration
	return b.locations(ctx, in.PositionInput, "referencesProvider", "textDocument/references",
		map[string]any{"context": map[string]any{"includeDeclaration": decl}}, in.Limit, in.Cursor)
}

func (b *Bridge) locations(ctx context.Context, in PositionInput, capability, method string, extra map[string]any, limit int, cur string) (*LocationsOutput, error) {
	c, params, err := b.srv.openAt(ctx, in)
	if err != nil {
		return nil, err
	}
	defer c.release()
	for k, v := range extra {
		params[k] = v
	}
	out := &LocationsOutput{Status: c.status(), Results: []Location{}}
	if c.unsupported(capability) {
		out.Unsupported = true
		out.Fresh = true
		return out, nil
	}
	var raw json.RawMessage
	if err := c.lease.Call(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	all := c.locations(raw)
	off, end, err := answer.PageOf(&out.Envelope, len(all), limit, cur, method, c.file.rel, in.Line, in.Column, extra)
	if err != nil {
		return nil, err
	}
	out.Results = all[off:end]
	return out, nil
}

// locations decodes Location, Location[] or LocationLink[], sorted.
func (c *lspCall) locations(raw json.RawMessage) []Location {
	type loc struct {
		URI                  string     `json:"uri"`
		Range                *lsp.Range `json:"range"`
		TargetURI            string     `json:"targetUri"`
		TargetSelectionRange *lsp.Range `json:"targetSelectionRange"`
	}
	var list []loc
	if json.Unmarshal(raw, &list) != nil {
		var one loc
		if json.Unmarshal(raw, &one) == nil && (one.URI != "" || one.TargetURI != "") {
			list = []loc{one}
		}
	}
	out := []Location{}
	for _, l := range list {
		switch {
		case l.TargetURI != "" && l.TargetSelectionRange != nil:
			out = append(out, c.location(l.TargetURI, *l.TargetSelectionRange))
		case l.URI != "" && l.Range != nil:
			out = append(out, c.location(l.URI, *l.Range))
		}
	}
	slices.SortStableFunc(out, func(a, b Location) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return out
}

// writeHead writes the status lines that precede an answer, then says
// when the server cannot answer or has nothing (none) to list.
func writeHead(b *strings.Builder, st Status, unsupported bool, total int, none string) {
	b.WriteString(st.text())
	switch {
	case unsupported:
		b.WriteString("unsupported by this server (" + st.Server + ")\n")
	case total == 0:
		b.WriteString(none)
	}
}

// Text lists path:line:column per place.
func (o *LocationsOutput) Text() string {
	var b strings.Builder
	writeHead(&b, o.Status, o.Unsupported, o.Total, "nothing found at this position\n")
	for _, l := range o.Results {
		b.WriteString(l.String() + "\n")
	}
	pageFooter(&b, o.Envelope)
	return b.String()
}

// --- lsp_document_symbols

// FileInput names a file.
type FileInput struct {
	File string `json:"file" jsonschema:"the file, root-relative or absolute inside a root"`
}

// Symbol is one symbol of an outline or a search.
type Symbol struct {
	Name      string `json:"name" jsonschema:"the symbol's name"`
	Kind      string `json:"kind" jsonschema:"class, method, function, field, variable, ... (LSP symbol kinds)"`
	Detail    string `json:"detail,omitempty" jsonschema:"signature or type, when the server gives one"`
	Container string `json:"container,omitempty" jsonschema:"the enclosing symbol"`
	Depth     int    `json:"depth" jsonschema:"nesting depth in the outline, 0 at the top"`
	Location
}

// SymbolsOutput is the answer of lsp_document_symbols and
// lsp_workspace_symbols.
type SymbolsOutput struct {
	answer.Envelope
	Status
	Unsupported bool     `json:"unsupported,omitempty" jsonschema:"true when the server does not offer this"`
	Outline     bool     `json:"outline,omitempty" jsonschema:"true for one file's outline (indented by depth)"`
	Results     []Symbol `json:"results" jsonschema:"the symbols, in source order for an outline"`
}

var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field",
	"constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean",
	"array", "object", "key", "null", "enum_member", "struct", "event", "operator", "type_parameter"}

func lspKindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return fmt.Sprintf("kind%d", k)
}

type rawSymbol struct {
	Name           string      `json:"name"`
	Kind           int         `json:"kind"`
	Detail         string      `json:"detail"`
	Range          *lsp.Range  `json:"range"`
	SelectionRange *lsp.Range  `json:"selectionRange"`
	Children       []rawSymbol `json:"children"`
	ContainerName  string      `json:"containerName"`
	Location       *struct {
		URI   string     `json:"uri"`
		Range *lsp.Range `json:"range"`
	} `json:"location"`
}

// DocumentSymbols outlines a file.
func (b *Bridge) DocumentSymbols(ctx context.Context, in FileInput) (*SymbolsOutput, error) {
	c, err := b.srv.open(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	defer c.release()
	out := &SymbolsOutput{Status: c.status(), Outline: true, Results: []Symbol{}}
	out.Fresh = true
	if c.unsupported("documentSymbolProvider") {
		out.Unsupported = true
		return out, nil
	}
	var raw []rawSymbol
	if err := c.lease.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": c.uri}}, &raw); err != nil {
		return nil, err
	}
	var walk func(list []rawSymbol, depth int, container string)
	walk = func(list []rawSymbol, depth int, container string) {
		for _, r := range list {
			sym := c.symbol(r, c.uri)
			sym.Depth = depth
			if sym.Container == "" {
				sym.Container = container
			}
			out.Results = append(out.Results, sym)
			walk(r.Children, depth+1, r.Name)
		}
	}
	walk(raw, 0, "")
	out.Total, out.Returned = len(out.Results), len(out.Results)
	return out, nil
}

// symbol converts a DocumentSymbol, SymbolInformation or WorkspaceSymbol.
func (c *lspCall) symbol(r rawSymbol, uri string) Symbol {
	sym := Symbol{Name: r.Name, Kind: lspKindName(r.Kind), Detail: answer.OneLine(r.Detail), Container: r.ContainerName}
	switch {
	case r.SelectionRange != nil:
		sym.Location = c.location(uri, *r.SelectionRange)
		if r.Range != nil {
			full := c.location(uri, *r.Range)
			sym.EndLine, sym.EndColumn = full.EndLine, full.EndColumn
		}
	case r.Location != nil && r.Location.Range != nil:
		sym.Location = c.location(r.Location.URI, *r.Location.Range)
	case r.Location != nil:
		sym.Location = c.location(r.Location.URI, lsp.Range{})
	}
	sym.Text = ""
	return sym
}

// Text renders an outline as indented lines, a search as one line each.
func (o *SymbolsOutput) Text() string {
	var b strings.Builder
	writeHead(&b, o.Status, o.Unsupported, o.Total, "no symbols\n")
	for _, s := range o.Results {
		if o.Outline {
			fmt.Fprintf(&b, "%s%s %s", strings.Repeat("  ", s.Depth), s.Kind, s.Name)
			if s.Detail != "" {
				b.WriteString(" " + s.Detail)
			}
			fmt.Fprintf(&b, "  %d-%d\n", s.Line, s.EndLine)
			continue
		}
		fmt.Fprintf(&b, "%s %s", s.Kind, s.Name)
		if s.Container != "" {
			b.WriteString(" in " + s.Container)
		}
		fmt.Fprintf(&b, "  %s:%d:%d\n", s.Path, s.Line, s.Column)
	}
	pageFooter(&b, o.Envelope)
	return b.String()
}

// --- lsp_workspace_symbols

// WorkspaceSymbolsInput is the input of lsp_workspace_symbols.
type WorkspaceSymbolsInput struct {
	Query  string `json:"query" jsonschema:"the name or part of it, as the server matches (often fuzzy)"`
	File   string `json:"file,omitempty" jsonschema:"any file of the language, to pick its server and root"`
	Server string `json:"server,omitempty" jsonschema:"the server by name instead of file (gopls, pyright, ...)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"symbols per page, 1 to 500 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page of the same call"`
}

// WorkspaceSymbols searches the server's workspace.
func (b *Bridge) WorkspaceSymbols(ctx context.Context, in WorkspaceSymbolsInput) (*SymbolsOutput, error) {
	if err := answer.CheckSelector("query", in.Query); err != nil {
		return nil, err
	}
	c, err := b.srv.byServerOrFile(ctx, in.Server, in.File)
	if err != nil {
		return nil, err
	}
	defer c.release()
	out := &SymbolsOutput{Status: c.status(), Results: []Symbol{}}
	if c.unsupported("workspaceSymbolProvider") {
		out.Unsupported = true
		out.Fresh = true
		return out, nil
	}
	var raw []rawSymbol
	if err := c.lease.Call(ctx, "workspace/symbol", map[string]any{"query": in.Query}, &raw); err != nil {
		return nil, err
	}
	all := make([]Symbol, 0, len(raw))
	for _, r := range raw {
		all = append(all, c.symbol(r, ""))
	}
	off, end, err := answer.PageOf(&out.Envelope, len(all), in.Limit, in.Cursor, "workspace/symbol", c.spec.Name, in.Query)
	if err != nil {
		return nil, err
	}
	out.Results = all[off:end]
	return out, nil
}

// byServerOrFile acquires the server named, or the one for file
// (synced first).
func (s *servers) byServerOrFile(ctx context.Context, server, file string) (*lspCall, error) {
	if server == "" && file != "" {
		return s.open(ctx, "file", file)
	}
	spec, root, err := s.serverByName(server, file)
	if err != nil {
		return nil, err
	}
	return s.acquire(ctx, spec, root)
}

// --- lsp_completion

// CompletionItem is one completion.
type CompletionItem struct {
	Label  string `json:"label" jsonschema:"the text offered"`
	Kind   string `json:"kind,omitempty" jsonschema:"method, function, variable, ... (LSP completion kinds)"`
	Detail string `json:"detail,omitempty" jsonschema:"type or signature"`
}

// CompletionOutput is the answer of lsp_completion.
type CompletionOutput struct {
	answer.Envelope
	Status
	Unsupported bool             `json:"unsupported,omitempty" jsonschema:"true when the server does not offer this"`
	Results     []CompletionItem `json:"results" jsonschema:"the first 50 completions, in the server's order"`
}

var completionKinds = []string{"", "text", "method", "function", "constructor", "field", "variable", "class",
	"interface", "module", "property", "unit", "value", "enum", "keyword", "snippet", "color", "file",
	"reference", "folder", "enum_member", "constant", "struct", "event", "operator", "type_parameter"}

// maxCompletions is how many completions an answer carries.
const maxCompletions = 50

// Completion asks what could be typed at a position.
func (b *Bridge) Completion(ctx context.Context, in PositionInput) (*CompletionOutput, error) {
	c, params, err := b.srv.openAt(ctx, in)
	if err != nil {
		return nil, err
	}
	defer c.release()
	out := &CompletionOutput{Status: c.status(), Results: []CompletionItem{}}
	out.Fresh = true
	if c.unsupported("completionProvider") {
		out.Unsupported = true
		return out, nil
	}
	var raw json.RawMessage
	if err := c.lease.Call(ctx, "textDocument/completion", params, &raw); err != nil {
		return nil, err
	}
	type item struct {
		Label    string `json:"label"`
		Kind     int    `json:"kind"`
		Detail   string `json:"detail"`
		SortText string `json:"sortText"`
	}
	var items []item
	if json.Unmarshal(raw, &items) != nil {
		var list struct {
			Items []item `json:"items"`
		}
		_ = json.Unmarshal(raw, &list)
		items = list.Items
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i].SortText, items[j].SortText
		if a == "" {
			a = items[i].Label
		}
		if b == "" {
			b = items[j].Label
		}
		return a < b
	})
	for _, it := range items {
		if len(out.Results) == maxCompletions {
			break
		}
		k := ""
		if it.Kind > 0 && it.Kind < len(completionKinds) {
			k = completionKinds[it.Kind]
		}
		out.Results = append(out.Results, CompletionItem{Label: it.Label, Kind: k, Detail: answer.OneLine(it.Detail)})
	}
	out.Total, out.Returned, out.Truncated = len(items), len(out.Results), len(items) > len(out.Results)
	return out, nil
}

// Text lists one completion per line.
func (o *CompletionOutput) Text() string {
	var b strings.Builder
	writeHead(&b, o.Status, o.Unsupported, o.Total, "no completions\n")
	for _, it := range o.Results {
		b.WriteString(it.Label)
		if it.Kind != "" {
			b.WriteString("  " + it.Kind)
		}
		if it.Detail != "" {
			b.WriteString("  " + it.Detail)
		}
		b.WriteByte('\n')
	}
	if o.Truncated {
		fmt.Fprintf(&b, "(first %d of %d)\n", o.Returned, o.Total)
	}
	return b.String()
}

// --- lsp_request

// RequestInput is the input of lsp_request.
type RequestInput struct {
	Method  string `json:"method" jsonschema:"the LSP or custom method, e.g. textDocument/typeDefinition"`
	Params  string `json:"params,omitempty" jsonschema:"the params as a JSON object or array; $file_uri inside is replaced by the file's URI"`
	File    string `json:"file,omitempty" jsonschema:"a file to sync first; it also picks the server and root"`
	Server  string `json:"server,omitempty" jsonschema:"the server by name, when no file is given"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"seconds to wait for the answer, 1 to 600 (default: the configured request timeout)"`
}

// RequestOutput is the answer of lsp_request.
type RequestOutput struct {
	answer.Envelope
	Status
	FileURI       string   `json:"file_uri,omitempty" jsonschema:"the URI of the synced file"`
	CustomMethods []string `json:"custom_methods,omitempty" jsonschema:"the custom methods configured for this server"`
	Result        any      `json:"result" jsonschema:"the server's result, as it sent it"`
}

// maxRawResult bounds the raw result an answer carries.
const maxRawResult = 200 << 10

// Request sends a raw request.
func (b *Bridge) Request(ctx context.Context, in RequestInput) (*RequestOutput, error) {
	if err := answer.CheckSelector("method", in.Method); err != nil {
		return nil, err
	}
	if in.Method == "" {
		return nil, answer.Invalid("method", "is required")
	}
	switch in.Method {
	case "initialize", "shutdown", "exit", "initialized":
		return nil, answer.Invalid("method", "%s is the bridge's to send; use lsp_restart", in.Method)
	case "workspace/executeCommand":
		// A server's commands may write to the repository or run its code
		// (gopls.tidy, gopls.generate, gopls.run_tests): Sextant does
		// neither, whoever asks.
		return nil, answer.Invalid("method", "workspace/executeCommand is refused: a server's commands may write to the repository or run its code")
	}
	if in.Timeout < 0 || in.Timeout > 600 {
		return nil, answer.Invalid("timeout", "must be between 1 and 600 seconds")
	}
	c, err := b.srv.byServerOrFile(ctx, in.Server, in.File)
	if err != nil {
		return nil, err
	}
	defer c.release()
	var params any
	if strings.TrimSpace(in.Params) != "" {
		p := strings.ReplaceAll(in.Params, "$file_uri", c.uri)
		var v any
		if err := json.Unmarshal([]byte(p), &v); err != nil {
			return nil, answer.Invalid("params", "is not JSON: %v", err)
		}
		switch v.(type) {
		case map[string]any, []any:
		default:
			return nil, answer.Invalid("params", "must be a JSON object or array")
		}
		if err := b.srv.checkURIs(v); err != nil {
			return nil, err
		}
		params = json.RawMessage(p)
	}
	raw, err := c.lease.CallRaw(ctx, in.Method, params, time.Duration(in.Timeout)*time.Second)
	if err != nil {
		return nil, err
	}
	if len(raw) > maxRawResult {
		return nil, graph.Errorf(graph.CodeInvalidArgument, "the result is %d KiB, over the %d KiB an answer carries; narrow the request", len(raw)>>10, maxRawResult>>10).WithData("field", "params")
	}
	out := &RequestOutput{Status: c.status(), FileURI: c.uri, CustomMethods: c.lease.CustomMethods()}
	out.Fresh = true
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out.Result)
	}
	if out.Result != nil {
		out.Total, out.Returned = 1, 1
	}
	return out, nil
}

// Text is the result as compact JSON.
func (o *RequestOutput) Text() string {
	b, _ := json.Marshal(o.Result)
	return o.Status.text() + string(b) + "\n"
}

// --- lsp_restart

// RestartInput is the input of lsp_restart.
type RestartInput struct {
	File     string `json:"file,omitempty" jsonschema:"a file of the language whose server to restart (it also picks the root)"`
	Server   string `json:"server,omitempty" jsonschema:"the server by name, when no file is given"`
	MemoryMB int    `json:"memory_mb,omitempty" jsonschema:"new hard memory cap in MiB (address space), -1 for none; kept for later restarts"`
}

// RestartOutput is the answer of lsp_restart.
type RestartOutput struct {
	answer.Envelope
	Status
	Info          string   `json:"info,omitempty" jsonschema:"the server's name and version as it reports them"`
	MemoryCapMB   int      `json:"memory_cap_mb" jsonschema:"the hard cap in force, 0 for none"`
	CustomMethods []string `json:"custom_methods,omitempty" jsonschema:"the custom methods configured for this server"`
}

// Restart restarts a server.
func (b *Bridge) Restart(ctx context.Context, in RestartInput) (*RestartOutput, error) {
	if in.MemoryMB < -1 || (in.MemoryMB > 0 && in.MemoryMB < 64) {
		return nil, answer.Invalid("memory_mb", "must be -1 (no cap), 0 (keep) or at least 64 MiB")
	}
	spec, root, err := b.srv.serverByName(in.Server, in.File)
	if err != nil {
		return nil, err
	}
	pool, err := b.srv.running()
	if err != nil {
		return nil, err
	}
	l, err := pool.Restart(ctx, spec, root, in.MemoryMB)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	c := &lspCall{srv: b.srv, lease: l, spec: spec}
	out := &RestartOutput{Status: c.status(), Info: l.Info(), MemoryCapMB: l.MemoryCapMB(), CustomMethods: l.CustomMethods()}
	out.Fresh = true
	out.Total, out.Returned = 1, 1
	return out, nil
}

// Text says what runs now.
func (o *RestartOutput) Text() string {
	cap := "no memory cap"
	if o.MemoryCapMB > 0 {
		cap = fmt.Sprintf("memory cap %d MiB", o.MemoryCapMB)
	}
	s := fmt.Sprintf("%s restarted: pid %d, %s, positions %s", o.Server, o.Pid, cap, o.Encoding)
	if o.Info != "" {
		s += " (" + o.Info + ")"
	}
	if len(o.CustomMethods) > 0 {
		s += "; custom methods: " + strings.Join(o.CustomMethods, ", ")
	}
	return o.Status.text() + s + "\n"
}
