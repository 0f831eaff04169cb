package query

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/live"
	"github.com/sextant-dev/sextant/internal/position"
)

// InferTypeInput is a position in a Go file.
type InferTypeInput struct {
	File   string `json:"file" jsonschema:"Go file, repo-relative or absolute"`
	Line   int    `json:"line" jsonschema:"1-based line in the file"`
	Column int    `json:"column" jsonschema:"1-based column, in characters"`
}

// Definition is where an object is declared.
type Definition struct {
	Path    string `json:"path,omitempty" jsonschema:"repo-relative file; empty outside the roots"`
	Line    int    `json:"line,omitempty" jsonschema:"1-based line"`
	Column  int    `json:"column,omitempty" jsonschema:"1-based column in characters"`
	Package string `json:"package,omitempty" jsonschema:"import path of the declaring package"`
}

// TypeInfo is what the type checker knows at a position.
type TypeInfo struct {
	Token      string      `json:"token" jsonschema:"the identifier or expression found at the position"`
	Type       string      `json:"type" jsonschema:"its type, qualified by package name outside the file's package"`
	Kind       string      `json:"kind" jsonschema:"var, field, const, func, method, type, package, builtin, label, nil or expression"`
	Name       string      `json:"name,omitempty" jsonschema:"the object it denotes, if any"`
	Signature  string      `json:"signature,omitempty" jsonschema:"for functions: the declaration (instantiated for generics)"`
	Underlying string      `json:"underlying,omitempty" jsonschema:"for a named type: its underlying type"`
	TypeArgs   []string    `json:"type_args,omitempty" jsonschema:"for a generic instantiation: the type arguments"`
	Value      string      `json:"value,omitempty" jsonschema:"for constants: the value"`
	Definition *Definition `json:"definition,omitempty" jsonschema:"where the object is declared"`
}

// InferTypeOutput is the answer of infer_type.
type InferTypeOutput struct {
	Envelope
	Results *TypeInfo `json:"results,omitempty" jsonschema:"the type at the position"`
}

// InferType reports the type of the expression or object at a position.
func InferType(ctx context.Context, s *Service, in InferTypeInput, _ func(Progress)) (*InferTypeOutput, error) {
	if in.Line < 1 {
		return nil, invalid("line", "must be 1 or more (got %d)", in.Line)
	}
	if in.Column < 1 {
		return nil, invalid("column", "must be 1 or more (got %d)", in.Column)
	}
	if err := goOnlyFile(in.File, "infer_type"); err != nil {
		return nil, err
	}
	p, err := s.sess.LivePackage(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	ti, err := typeAt(p, in.Line, in.Column)
	if err != nil {
		return nil, err
	}
	out := &InferTypeOutput{Envelope: liveEnvelope(), Results: ti}
	out.Page(1, 0, 1, "", "")
	return out, nil
}

// typeAt finds the innermost expression at line:column of p's file.
func typeAt(p *live.Package, line, col int) (*TypeInfo, error) {
	src := p.Src(p.Filename)
	off, ok := position.Offset(src, line, col)
	if !ok {
		field := "column"
		if _, lineOK := position.Offset(src, line, 1); !lineOK {
			field = "line"
		}
		return nil, invalid(field, "%d:%d is not a position in %s (%d lines)", line, col, p.Rel, bytes.Count(src, []byte("\n"))+1)
	}
	if p.File == nil {
		return nil, graph.Errorf(graph.CodeParseError, "%s did not parse; call check_file for its errors", p.Rel)
	}
	tf := p.Fset.File(p.File.FileStart)
	pos := tf.Pos(off)
	path, _ := astutil.PathEnclosingInterval(p.File, pos, pos)
	info := p.Pkg.TypesInfo
	q := qualifier(p.Pkg.Types, p.File, info)
	notFound := graph.Errorf(graph.CodeSymbolNotFound, "no expression at %s:%d:%d; point at an identifier or an expression", p.Rel, line, col)
	if len(path) == 0 || info == nil {
		return nil, notFound
	}
	switch n := path[0].(type) {
	case *ast.Ident:
		return identType(p, n, path[1:], q)
	case *ast.SelectorExpr:
		return identType(p, n.Sel, path, q)
	case ast.Expr:
		tv, ok := info.Types[n]
		if !ok || tv.Type == nil {
			return nil, notFound
		}
		ti := &TypeInfo{Token: p.ExprText(n), Type: types.TypeString(tv.Type, q), Kind: "expression"}
		if tv.Value != nil {
			ti.Value = tv.Value.ExactString()
		}
		if sig, ok := tv.Type.Underlying().(*types.Signature); ok {
			ti.Signature = types.TypeString(sig, q)
		}
		return ti, nil
	}
	return nil, notFound
}

// identType describes an identifier: the object it declares or uses, with
// the type the checker recorded for this use (instantiated for generics).
func identType(p *live.Package, id *ast.Ident, parents []ast.Node, q types.Qualifier) (*TypeInfo, error) {
	info := p.Pkg.TypesInfo
	obj := info.Defs[id]
	if obj == nil {
		obj = info.Uses[id]
	}
	ti := &TypeInfo{Token: id.Name}
	var t types.Type
	if tv, ok := info.Types[id]; ok && tv.Type != nil {
		t = tv.Type
		if tv.Value != nil {
			ti.Value = tv.Value.ExactString()
		}
	}
	if obj == nil {
		if info.Implicits != nil {
			// The name of a type switch's guard declares one object per clause.
			for _, n := range parents {
				if cc, ok := n.(*ast.CaseClause); ok {
					obj = info.Implicits[cc]
				}
			}
		}
		if obj == nil && t == nil {
			if id.Name == "_" {
				return nil, graph.Errorf(graph.CodeSymbolNotFound, "_ at this position declares nothing")
			}
			return nil, graph.Errorf(graph.CodeSymbolNotFound, "%s at this position has no type information (a package clause, a label, or code that did not type-check); call check_file", id.Name)
		}
	}
	if t == nil && obj != nil {
		t = obj.Type()
	}
	if inst, ok := info.Instances[id]; ok {
		t = inst.Type
		for i := 0; i < inst.TypeArgs.Len(); i++ {
			ti.TypeArgs = append(ti.TypeArgs, types.TypeString(inst.TypeArgs.At(i), q))
		}
	}
	if t != nil {
		ti.Type = types.TypeString(t, q)
	}
	if obj == nil {
		ti.Kind = "expression"
		return ti, nil
	}
	ti.Name = obj.Name()
	switch o := obj.(type) {
	case *types.Var:
		ti.Kind = "var"
		if o.IsField() {
			ti.Kind = "field"
		}
	case *types.Const:
		ti.Kind = "const"
		if ti.Value == "" {
			ti.Value = o.Val().ExactString()
		}
	case *types.TypeName:
		ti.Kind = "type"
		ti.Type = types.TypeString(o.Type(), q)
		if inst, ok := info.Instances[id]; ok {
			ti.Type = types.TypeString(inst.Type, q)
		}
		if _, isParam := o.Type().(*types.TypeParam); !isParam {
			ti.Underlying = cutUTF8(types.TypeString(o.Type().Underlying(), q), 400)
		}
	case *types.Func:
		ti.Kind = "func"
		sig, _ := t.(*types.Signature)
		if sig == nil {
			sig, _ = o.Type().(*types.Signature)
		}
		if recv := o.Signature().Recv(); recv != nil {
			ti.Kind = "method"
		}
		if sig != nil {
			ti.Signature = funcDecl(o, sig, q)
			ti.Type = types.TypeString(sig, q)
		}
	case *types.PkgName:
		ti.Kind = "package"
		ti.Type = ""
		ti.Definition = &Definition{Package: o.Imported().Path()}
		return ti, nil
	case *types.Builtin:
		ti.Kind = "builtin"
		return ti, nil
	case *types.Label:
		ti.Kind = "label"
	case *types.Nil:
		ti.Kind = "nil"
		return ti, nil
	}
	if pos := p.Position(obj.Pos()); pos.Line > 0 {
		d := &Definition{}
		if obj.Pkg() != nil {
			d.Package = obj.Pkg().Path()
		}
		if path, ok := relPath(p.Root, pos.Filename); ok {
			d.Path, d.Line, d.Column = path, pos.Line, pos.Column
		}
		ti.Definition = d
	}
	return ti, nil
}

// funcDecl renders a function as its declaration reads: func (r T)
// Name(params) results, with sig (instantiated for generics) in place of
// the declared signature.
func funcDecl(fn *types.Func, sig *types.Signature, q types.Qualifier) string {
	var b bytes.Buffer
	b.WriteString("func ")
	if recv := fn.Signature().Recv(); recv != nil {
		b.WriteString("(")
		if recv.Name() != "" && recv.Name() != "_" {
			b.WriteString(recv.Name() + " ")
		}
		b.WriteString(types.TypeString(recv.Type(), q))
		b.WriteString(") ")
	}
	b.WriteString(fn.Name())
	types.WriteSignature(&b, sig, q)
	return b.String()
}

// qualifier names packages other than pkg as the file refers to them
// (its import names, so pflag imported as flag is flag), and packages the
// file does not import by their name, as gopls does.
func qualifier(pkg *types.Package, f *ast.File, info *types.Info) types.Qualifier {
	local := map[*types.Package]string{}
	for _, imp := range f.Imports {
		if pn := info.PkgNameOf(imp); pn != nil {
			name := pn.Name()
			if name == "." {
				name = ""
			}
			local[pn.Imported()] = name
		}
	}
	return func(other *types.Package) string {
		if other == pkg {
			return ""
		}
		if name, ok := local[other]; ok {
			return name
		}
		return other.Name()
	}
}

// Text renders the type for an agent.
func (o *InferTypeOutput) Text() string {
	t := o.Results
	if t == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n", t.Kind, quoteContent(t.Token), quoteContent(t.Type))
	if t.Signature != "" {
		fmt.Fprintf(&b, "signature: %s\n", quoteContent(t.Signature))
	}
	if len(t.TypeArgs) > 0 {
		fmt.Fprintf(&b, "type arguments: %s\n", quoteContent(strings.Join(t.TypeArgs, ", ")))
	}
	if t.Underlying != "" && t.Underlying != t.Type {
		fmt.Fprintf(&b, "underlying: %s\n", quoteContent(t.Underlying))
	}
	if t.Value != "" {
		fmt.Fprintf(&b, "value: %s\n", quoteContent(t.Value))
	}
	if d := t.Definition; d != nil {
		switch {
		case d.Path != "":
			fmt.Fprintf(&b, "defined at %s:%d:%d (package %s)\n", d.Path, d.Line, d.Column, d.Package)
		case d.Package != "":
			fmt.Fprintf(&b, "defined in package %s\n", d.Package)
		}
	}
	return b.String()
}
