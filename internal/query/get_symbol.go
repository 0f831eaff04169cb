package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
)

// GetSymbolInput is the input of get_symbol. Exactly one selector form is
// used: stable_key; qualified_name (narrowed by repository and path); or
// file + name.
type GetSymbolInput struct {
	SymbolSelector
	ResponseFormat string `json:"response_format,omitempty" jsonschema:"concise (default) or detailed"`
	Wait           Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// paramDocs shows the forms a qualified name may take, once, here.
func (GetSymbolInput) paramDocs() map[string]string {
	return map[string]string{"qualified_name": "Name, Type.Method, http.Server or net/http.Server"}
}

// MemberRow is a method or field listed under a type.
type MemberRow struct {
	Name      string `json:"name" jsonschema:"member name"`
	Kind      string `json:"kind" jsonschema:"method, field or interface_method"`
	Signature string `json:"signature" jsonschema:"member signature"`
	StableKey string `json:"stable_key" jsonschema:"durable key of the member"`
	Path      string `json:"path" jsonschema:"repo-relative file"`
	StartLine int    `json:"start_line" jsonschema:"1-based first line"`
	EndLine   int    `json:"end_line" jsonschema:"1-based last line"`
	Exported  bool   `json:"exported" jsonschema:"whether the member is exported"`
}

// SymbolDetail is one symbol in full.
type SymbolDetail struct {
	StableKey      string      `json:"stable_key" jsonschema:"durable key of the symbol"`
	Layer          string      `json:"layer,omitempty" jsonschema:"shared-graph overlay: local (edited) or shared"`
	Repository     string      `json:"repository" jsonschema:"repository name"`
	Language       string      `json:"language,omitempty" jsonschema:"typescript, javascript or python; omitted for Go"`
	RepositoryPath string      `json:"repository_path" jsonschema:"absolute root of the repository"`
	PackagePath    string      `json:"package_path" jsonschema:"import path of the package"`
	PackageName    string      `json:"package_name" jsonschema:"package name"`
	ModulePath     string      `json:"module_path" jsonschema:"module path"`
	Path           string      `json:"path" jsonschema:"repo-relative file"`
	Name           string      `json:"name" jsonschema:"declared name"`
	QualifiedName  string      `json:"qualified_name" jsonschema:"Name, Type.Method or Type.Field"`
	Kind           string      `json:"kind" jsonschema:"symbol kind"`
	Signature      string      `json:"signature" jsonschema:"declaration signature"`
	Doc            string      `json:"doc,omitempty" jsonschema:"doc comment"`
	Receiver       string      `json:"receiver,omitempty" jsonschema:"receiver type of a method, e.g. *Server"`
	Exported       bool        `json:"exported" jsonschema:"whether the name is exported"`
	TestOnly       bool        `json:"test_only" jsonschema:"declared in a _test.go file"`
	StartLine      int         `json:"start_line" jsonschema:"1-based first line"`
	EndLine        int         `json:"end_line" jsonschema:"1-based last line"`
	StartColumn    int         `json:"start_column,omitempty" jsonschema:"detailed only: 1-based column in characters"`
	EndColumn      int         `json:"end_column,omitempty" jsonschema:"detailed only: 1-based column in characters"`
	Methods        []MemberRow `json:"methods,omitempty" jsonschema:"for types and interfaces: declared methods"`
	Fields         []MemberRow `json:"fields,omitempty" jsonschema:"for struct types: fields, embedded ones included"`
	Identity       string      `json:"canonical_identity,omitempty" jsonschema:"detailed only: what the stable key hashes"`
}

// GetSymbolOutput is the answer of get_symbol: one symbol, total 1.
type GetSymbolOutput struct {
	Envelope
	Results *SymbolDetail `json:"results,omitempty" jsonschema:"the symbol"`
}

// maxConciseDoc bounds the doc comment of a concise answer.
const maxConciseDoc = 1200

// GetSymbol returns one symbol's detail.
func GetSymbol(ctx context.Context, s *Service, in GetSymbolInput, progress func(Progress)) (*GetSymbolOutput, error) {
	format, err := parseFormat(in.ResponseFormat)
	if err != nil {
		return nil, err
	}
	v, sym, err := openSymbol(ctx, s, in.selector(), progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	v.Use(sym.Repository)
	detail, err := detail(ctx, v, sym, format)
	if err != nil {
		return nil, err
	}
	out := &GetSymbolOutput{Results: detail}
	out.Envelope = v.Envelope()
	out.Page(1, 0, 1, "", "")
	return out, nil
}

// detail fills a SymbolDetail, with members for types.
func detail(ctx context.Context, v *session.View, sym graph.Symbol, format Format) (*SymbolDetail, error) {
	d := &SymbolDetail{Layer: string(sym.Layer),
		StableKey: sym.Key, Repository: sym.Repository, PackagePath: sym.PackagePath,
		PackageName: sym.PackageName, ModulePath: sym.ModulePath, Path: sym.Path, Name: sym.Name,
		QualifiedName: sym.QualifiedName, Kind: string(sym.Kind), Signature: sym.Signature,
		Doc: sym.Doc, Receiver: sym.Receiver, Exported: sym.Exported, TestOnly: sym.TestOnly,
		StartLine: sym.StartLine, EndLine: sym.EndLine,
	}
	if !sym.IsGo() {
		d.Language = sym.Language
	}
	for _, r := range v.Repos() {
		if r.Name == sym.Repository {
			d.RepositoryPath = r.Root
		}
	}
	if format == Detailed {
		d.StartColumn, d.EndColumn = sym.StartCol, sym.EndCol
		variant := ""
		if sym.TestOnly {
			variant = "test"
		}
		d.Identity = graph.Identity{Language: sym.Lang(), Repository: sym.Repository, PackagePath: sym.PackagePath,
			QualifiedName: sym.QualifiedName, Kind: sym.Kind, Variant: variant}.String()
		d.Identity = strings.ReplaceAll(d.Identity, "\x00", " ")
	} else if len(d.Doc) > maxConciseDoc {
		d.Doc = cutUTF8(d.Doc, maxConciseDoc) + "… (cut; response_format detailed gives all)"
	}
	if sym.Kind == graph.KindType || sym.Kind == graph.KindInterface {
		kids, err := v.Reader().Children(ctx, sym.Repository, sym.Key)
		if err != nil {
			return nil, graph.Wrap(graph.CodeInternal, err, "reading members")
		}
		for _, k := range kids {
			m := MemberRow{Name: k.Name, Kind: string(k.Kind), Signature: k.Signature, StableKey: k.Key,
				Path: k.Path, StartLine: k.StartLine, EndLine: k.EndLine, Exported: k.Exported}
			if k.Kind == graph.KindField {
				d.Fields = append(d.Fields, m)
			} else {
				d.Methods = append(d.Methods, m)
			}
		}
	}
	return d, nil
}

// Text renders the symbol for an agent.
func (o *GetSymbolOutput) Text() string {
	d := o.Results
	if d == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s  (package %s, repository %s)\n", d.Kind, d.QualifiedName, d.PackagePath, d.Repository)
	fmt.Fprintf(&b, "%s:%d-%d%s\n", d.Path, d.StartLine, d.EndLine, layerMark(d.Layer))
	fmt.Fprintf(&b, "%s\n", quoteContent(d.Signature))
	if d.Doc != "" {
		for _, line := range strings.Split(strings.TrimRight(d.Doc, "\n"), "\n") {
			fmt.Fprintf(&b, "// %s\n", quoteContent(line))
		}
	}
	writeMembers(&b, "fields", d.Fields, d.Path)
	writeMembers(&b, "methods", d.Methods, d.Path)
	if d.Identity != "" {
		fmt.Fprintf(&b, "identity: %s\n", d.Identity)
	}
	fmt.Fprintf(&b, "key: %s\n", d.StableKey)
	writeFreshness(&b, o.Envelope)
	return b.String()
}

func writeMembers(b *strings.Builder, title string, ms []MemberRow, path string) {
	if len(ms) == 0 {
		return
	}
	fmt.Fprintf(b, "%s:\n", title)
	for _, m := range ms {
		where := fmt.Sprintf("%d", m.StartLine)
		if m.Path != path {
			where = m.Path + ":" + where
		}
		fmt.Fprintf(b, "  %s %s\n", where, quoteContent(m.Signature))
	}
}
