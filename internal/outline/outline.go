// Package outline lists the declarations of a Go file from its source
// alone, as get_file_outline answers them: each top-level declaration with
// its signature as written, its lines and its members (fields, interface
// methods, the methods declared in the file), for files that do not
// compile or do not parse whole. Its work is linear in the file's size,
// whatever its nesting, and stops when the context ends.
package outline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// Decl is what an entry and a member say alike of their declaration,
// after its name and kind: how it reads, where it is, and (detailed) its
// doc and key. Embedded, its fields stay flat in the JSON.
type Decl struct {
	Signature string `json:"signature" jsonschema:"signature as written in the source"`
	StartLine int    `json:"start_line" jsonschema:"1-based first line"`
	EndLine   int    `json:"end_line" jsonschema:"1-based last line"`
	Exported  bool   `json:"exported" jsonschema:"whether the name is exported"`
	Doc       string `json:"doc,omitempty" jsonschema:"detailed only: first line of the doc comment"`
	StableKey string `json:"stable_key,omitempty" jsonschema:"detailed only: key in the current snapshot, when it has this declaration"`
}

// Member is a method, field or interface method under a type.
type Member struct {
	Name string `json:"name" jsonschema:"member name"`
	Kind string `json:"kind" jsonschema:"method, field or interface_method"`
	Decl
}

// Entry is one top-level declaration, with its members.
type Entry struct {
	Name string `json:"name" jsonschema:"declared name"`
	Kind string `json:"kind" jsonschema:"const, var, type, interface, func or method"`
	Decl
	Members []Member `json:"members,omitempty" jsonschema:"fields, interface methods and methods declared in this file"`
}

// File is the outline of one file.
type File struct {
	Path        string   `json:"path" jsonschema:"repo-relative file"`
	Package     string   `json:"package" jsonschema:"package name from the package clause"`
	Lines       int      `json:"lines" jsonschema:"number of lines in the file"`
	BuildTags   string   `json:"build_constraint,omitempty" jsonschema:"the file's //go:build line, if any"`
	ParseErrors []string `json:"parse_errors,omitempty" jsonschema:"syntax errors; the outline holds what parsed"`
	Entries     []Entry  `json:"entries" jsonschema:"declarations in source order"`
}

// Parse parses src and lists its declarations. Parse errors do not
// stop it: the parser recovers and the outline shows what it found. Its
// work is linear in the size of src, and it stops when ctx is done.
func Parse(ctx context.Context, rel string, src []byte, detailed bool) (File, error) {
	fset := token.NewFileSet()
	parsed := src
	if !utf8.Valid(src) {
		// go/parser drops the whole file when the package clause has an
		// error, and reports a bad byte in a nearby comment as one. Parse a
		// copy with each invalid byte replaced by one ASCII byte, so lines
		// and columns stay, and report the bytes ourselves.
		parsed = sanitizeUTF8(src)
	}
	f, err := parser.ParseFile(fset, rel, parsed, parser.ParseComments|parser.SkipObjectResolution)
	if !utf8.Valid(src) {
		err = errors.Join(invalidUTF8(rel, src), err)
	}
	of := File{Path: rel, Lines: bytes.Count(src, []byte("\n")), Entries: []Entry{}}
	if len(src) > 0 && src[len(src)-1] != '\n' {
		of.Lines++
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			if len(of.ParseErrors) < 10 {
				of.ParseErrors = append(of.ParseErrors, line)
			}
		}
	}
	if f == nil {
		return of, nil
	}
	sig := sigPrinter{fset: fset, src: parsed}
	if f.Name != nil {
		of.Package = f.Name.Name
	}
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build ") {
				of.BuildTags = strings.TrimPrefix(c.Text, "//go:build ")
			}
		}
	}
	line := func(p token.Pos) int { return fset.PositionFor(p, false).Line }
	doc := func(groups ...*ast.CommentGroup) string {
		if !detailed {
			return ""
		}
		for _, g := range groups {
			if g != nil {
				return answer.FirstLine(g.Text())
			}
		}
		return ""
	}
	byType := map[string]int{} // type name → index in Entries
	var methods []ast.Decl
	for _, decl := range f.Decls {
		if err := ctx.Err(); err != nil {
			return of, err
		}
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) > 0 {
				methods = append(methods, d)
				continue
			}
			of.Entries = append(of.Entries, Entry{Name: d.Name.Name, Kind: "func",
				Decl: Decl{Signature: sig.funcSignature(d), StartLine: line(d.Pos()), EndLine: line(d.End()),
					Exported: ast.IsExported(d.Name.Name), Doc: doc(d.Doc)}})
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				start, end := spec.Pos(), spec.End()
				if !d.Lparen.IsValid() {
					start, end = d.Pos(), d.End()
				}
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					e := Entry{Name: sp.Name.Name, Kind: "type", Decl: Decl{Signature: sig.typeSignature(sp),
						StartLine: line(start), EndLine: line(end), Exported: ast.IsExported(sp.Name.Name), Doc: doc(sp.Doc, d.Doc)}}
					switch t := sp.Type.(type) {
					case *ast.StructType:
						for _, fld := range t.Fields.List {
							if err := ctx.Err(); err != nil {
								return of, err
							}
							for _, name := range fieldNames(fld) {
								e.Members = append(e.Members, Member{Name: name, Kind: "field",
									Decl: Decl{Signature: sig.fieldSignature(name, fld), StartLine: line(fld.Pos()), EndLine: line(fld.End()),
										Exported: ast.IsExported(name), Doc: doc(fld.Doc, fld.Comment)}})
							}
						}
					case *ast.InterfaceType:
						if sp.Assign == 0 {
							e.Kind = "interface"
						}
						for _, m := range t.Methods.List {
							if err := ctx.Err(); err != nil {
								return of, err
							}
							if _, ok := m.Type.(*ast.FuncType); !ok || len(m.Names) == 0 {
								continue // embedded interface or type union
							}
							e.Members = append(e.Members, Member{Name: m.Names[0].Name, Kind: "interface_method",
								Decl: Decl{Signature: m.Names[0].Name + strings.TrimPrefix(sig.node(m.Type), "func"),
									StartLine: line(m.Pos()), EndLine: line(m.End()), Exported: ast.IsExported(m.Names[0].Name), Doc: doc(m.Doc, m.Comment)}})
						}
					}
					byType[sp.Name.Name] = len(of.Entries)
					of.Entries = append(of.Entries, e)
				case *ast.ValueSpec:
					for _, name := range sp.Names {
						if name.Name == "_" {
							continue
						}
						of.Entries = append(of.Entries, Entry{Name: name.Name, Kind: d.Tok.String(),
							Decl: Decl{Signature: sig.valueSignature(d.Tok, name.Name, sp), StartLine: line(start), EndLine: line(end),
								Exported: ast.IsExported(name.Name), Doc: doc(sp.Doc, d.Doc)}})
					}
				}
			}
		}
	}
	for _, decl := range methods {
		if err := ctx.Err(); err != nil {
			return of, err
		}
		d := decl.(*ast.FuncDecl)
		recv := syntax.ReceiverBase(d.Recv.List[0].Type)
		m := Member{Name: d.Name.Name, Kind: "method", Decl: Decl{Signature: sig.funcSignature(d),
			StartLine: line(d.Pos()), EndLine: line(d.End()), Exported: ast.IsExported(d.Name.Name), Doc: doc(d.Doc)}}
		if i, ok := byType[recv]; ok {
			of.Entries[i].Members = append(of.Entries[i].Members, m)
			continue
		}
		// The receiver's type is declared in another file: list the method
		// at top level, named as Type.Method.
		of.Entries = append(of.Entries, Entry{Name: syntax.Qualified(recv, m.Name), Kind: "method", Decl: m.Decl})
	}
	sort.SliceStable(of.Entries, func(i, j int) bool { return of.Entries[i].StartLine < of.Entries[j].StartLine })
	return of, nil
}

// MaxPrinted bounds the source a signature is printed from. go/printer
// decides whether a struct, interface or function literal fits on one
// line by printing it, again at every level of nesting, so its work grows
// with the cube of the nesting; a node whose source is longer than this is
// shown from its source text instead, cut to this many bytes. The work per
// signature is then bounded, and an outline's linear in its file.
const MaxPrinted = 1000

// sigPrinter prints the signatures of one parsed file.
type sigPrinter struct {
	fset *token.FileSet
	src  []byte // the text that was parsed
}

// node prints an AST node on one line.
func (p sigPrinter) node(n ast.Node) string {
	return p.span(n, n.Pos(), n.End())
}

// span prints n, whose source is [from, to), on one line: with go/printer
// when that source is short, else from the source text, cut.
func (p sigPrinter) span(n ast.Node, from, to token.Pos) string {
	if to-from <= MaxPrinted {
		var b bytes.Buffer
		if err := (&printer.Config{Mode: printer.RawFormat}).Fprint(&b, p.fset, n); err != nil {
			return ""
		}
		return answer.OneLine(b.String())
	}
	f := p.fset.File(from)
	if f == nil {
		return ""
	}
	start := min(max(int(from)-f.Base(), 0), len(p.src))
	end := min(start+MaxPrinted+utf8.UTFMax, int(to)-f.Base(), len(p.src))
	if end < start {
		return ""
	}
	return answer.OneLine(answer.CutUTF8(string(p.src[start:end]), MaxPrinted)) + "…"
}

func (p sigPrinter) funcSignature(d *ast.FuncDecl) string {
	cp := *d
	cp.Body, cp.Doc = nil, nil
	return p.node(&cp)
}

func (p sigPrinter) typeSignature(sp *ast.TypeSpec) string {
	cp := *sp
	cp.Doc, cp.Comment = nil, nil
	// The source printed: all of it, or up to the elided body.
	from, to := sp.Pos(), sp.End()
	elided := ""
	switch sp.Type.(type) {
	case *ast.StructType:
		elided = "struct{...}"
	case *ast.InterfaceType:
		elided = "interface{...}"
	}
	if elided != "" {
		cp.Type = &ast.Ident{Name: elided}
		to = sp.Name.End()
		if sp.TypeParams != nil {
			to = sp.TypeParams.End()
		}
		if to-from > MaxPrinted {
			return "type " + p.span(nil, from, to) + " " + elided
		}
	}
	return "type " + p.span(&cp, from, to)
}

// maxValueSig bounds the initialiser shown in a const or var signature.
const maxValueSig = 120

func (p sigPrinter) valueSignature(tok token.Token, name string, sp *ast.ValueSpec) string {
	sig := tok.String() + " " + name
	if sp.Type != nil {
		sig += " " + p.node(sp.Type)
	}
	if len(sp.Values) > 0 {
		val := ""
		for i, n := range sp.Names {
			if n.Name == name && i < len(sp.Values) {
				val = p.node(sp.Values[i])
			}
		}
		if len(sp.Values) == 1 && len(sp.Names) > 1 {
			val = p.node(sp.Values[0])
		}
		if len(val) > maxValueSig {
			val = answer.CutUTF8(val, maxValueSig) + "…"
		}
		if val != "" {
			sig += " = " + val
		}
	}
	return sig
}

func fieldNames(f *ast.Field) []string {
	if len(f.Names) == 0 {
		if name := syntax.EmbeddedName(f.Type); name != "" {
			return []string{name}
		}
		return nil
	}
	var names []string
	for _, n := range f.Names {
		if n.Name != "_" {
			names = append(names, n.Name)
		}
	}
	return names
}

func (p sigPrinter) fieldSignature(name string, f *ast.Field) string {
	if len(f.Names) == 0 {
		return p.node(f.Type)
	}
	return name + " " + p.node(f.Type)
}

// sanitizeUTF8 returns src with each byte of an invalid UTF-8 sequence
// replaced by '?', so byte offsets do not move.
func sanitizeUTF8(src []byte) []byte {
	out := append([]byte(nil), src...)
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		if r == utf8.RuneError && n == 1 {
			out[i] = '?'
		}
		i += n
	}
	return out
}

// invalidUTF8 reports the first invalid UTF-8 byte of src as a syntax error.
func invalidUTF8(rel string, src []byte) error {
	line, col := 1, 1
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Errorf("%s:%d:%d: illegal UTF-8 encoding", rel, line, col)
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		col++
		i += n
	}
	return nil
}
