package impact

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"

	"github.com/sextant-dev/sextant/internal/answer"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// The kinds of change get_impact names for a declaration.
const (
	ChangeBody      = "body"      // the body or value changed; the signature did not
	ChangeSignature = "signature" // the signature (of a type: its definition) changed
	ChangeAdded     = "added"
	ChangeRemoved   = "removed"
)

// versionDecl is one declaration of one version of a file, with what a
// change compares: its signature and its body, each as its source text
// (the parts joined by NULs), compared by their tokens (sameTokens) so
// that comments and layout do not count as changes.
type versionDecl struct {
	QualifiedName string
	Kind          graph.Kind
	Line, EndLine int
	Receiver      string // a method's receiver base type
	sig, body     string
	methods       []string // an interface's method names, with their signatures' tokens
}

// fileVersion is one version of a Go file: its package clause and its
// declarations. A file that does not parse has what the parser kept.
type fileVersion struct {
	pkgName string
	decls   []versionDecl
	// tops are the file's top-level declarations, in order, when it
	// parsed without errors (nil otherwise): a version edited from this
	// one parses again only those the edit touches (editVersion).
	tops []topDecl
	// syntaxErr is the parser's first error, when the content does not
	// parse: the parser may have lost declarations (all of them when it
	// gives up), so their absence says nothing.
	syntaxErr string
}

// topDecl is one top-level declaration of a fileVersion.
type topDecl struct {
	start, end int  // byte offsets of its first and after its last token
	line       int  // the line it starts on
	decls      int  // how many of the version's decls it has, in order after those of the declarations before it
	imports    bool // an import declaration
}

// maxSyntaxErr bounds the parser's error a fileVersion keeps.
const maxSyntaxErr = 200

// parseVersion reads the declarations of a Go file's content.
func parseVersion(name string, content []byte) fileVersion {
	if scriptSource(name) {
		return scriptVersion(name, content)
	}
	var fv fileVersion
	if len(content) == 0 {
		return fv
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, content, parser.SkipObjectResolution)
	if err != nil {
		fv.syntaxErr = err.Error()
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			fv.syntaxErr = list[0].Error()
		}
		if len(fv.syntaxErr) > maxSyntaxErr { // it may quote a literal
			fv.syntaxErr = answer.CutUTF8(fv.syntaxErr, maxSyntaxErr) + "…"
		}
	}
	if f == nil {
		return fv
	}
	if f.Name != nil {
		fv.pkgName = f.Name.Name
	}
	var tops []topDecl
	fv.decls, tops = declsOf(f.Decls, fset.File(f.Pos()), content, func(p token.Pos) int { return fset.PositionFor(p, false).Line })
	if err == nil {
		fv.tops = tops
	}
	return fv
}

// declsOf reads the declarations of decls, parsed from content into tf,
// each top-level one with its byte offsets in content; line gives the
// line of a position.
func declsOf(decls []ast.Decl, tf *token.File, content []byte, line func(token.Pos) int) ([]versionDecl, []topDecl) {
	var out []versionDecl
	tops := make([]topDecl, 0, len(decls))
	toks := func(nodes ...ast.Node) string {
		var b strings.Builder
		for _, n := range nodes {
			if n == nil {
				continue
			}
			b.WriteString(sourceText(tf, content, n.Pos(), n.End()))
			b.WriteByte('\x00')
		}
		return b.String()
	}
	add := func(d versionDecl, from, to token.Pos) {
		d.Line, d.EndLine = line(from), line(to)
		out = append(out, d)
	}
	for _, decl := range decls {
		before := len(out)
		switch d := decl.(type) {
		case *ast.FuncDecl:
			vd := versionDecl{QualifiedName: d.Name.Name, Kind: graph.KindFunc, sig: toks(d.Type)}
			if d.Name.Name == "init" && d.Recv == nil {
				vd.sig = "" // several per package: told apart by position, see changedIn
			}
			if d.Body != nil {
				vd.body = toks(d.Body)
			}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				vd.Receiver = syntax.ReceiverBase(d.Recv.List[0].Type)
				vd.QualifiedName, vd.Kind = vd.Receiver+"."+d.Name.Name, graph.KindMethod
				vd.sig = toks(d.Recv.List[0].Type, d.Type)
			}
			add(vd, d.Pos(), d.End())
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.ValueSpec:
					kind := graph.KindVar
					if d.Tok == token.CONST {
						kind = graph.KindConst
					}
					var typ string
					if spec.Type != nil {
						typ = toks(spec.Type)
					}
					for i, id := range spec.Names {
						if id.Name == "_" {
							continue
						}
						vd := versionDecl{QualifiedName: id.Name, Kind: kind, sig: typ}
						if len(spec.Values) == len(spec.Names) {
							vd.body = toks(spec.Values[i])
						} else {
							for _, v := range spec.Values {
								vd.body += toks(v)
							}
						}
						add(vd, spec.Pos(), spec.End())
					}
				case *ast.TypeSpec:
					vd := versionDecl{QualifiedName: spec.Name.Name, Kind: graph.KindType, sig: toks(spec)}
					switch t := spec.Type.(type) {
					case *ast.InterfaceType:
						vd.Kind = graph.KindInterface
						for _, m := range t.Methods.List {
							for _, n := range m.Names {
								ms := tokensOf(toks(m.Type))
								vd.methods = append(vd.methods, n.Name+"\x01"+ms)
								add(versionDecl{QualifiedName: spec.Name.Name + "." + n.Name, Kind: graph.KindInterfaceMethod,
									Receiver: spec.Name.Name, sig: ms}, m.Pos(), m.End())
							}
						}
					case *ast.StructType:
						for _, fl := range t.Fields.List {
							names := make([]string, 0, len(fl.Names))
							for _, n := range fl.Names {
								names = append(names, n.Name)
							}
							if len(names) == 0 {
								if id := syntax.EmbeddedName(fl.Type); id != "" {
									names = append(names, id)
								}
							}
							for _, n := range names {
								sig := toks(fl.Type)
								if fl.Tag != nil {
									sig += toks(fl.Tag)
								}
								add(versionDecl{QualifiedName: spec.Name.Name + "." + n, Kind: graph.KindField,
									Receiver: spec.Name.Name, sig: sig}, fl.Pos(), fl.End())
							}
						}
					}
					add(vd, spec.Pos(), spec.End())
				}
			}
		}
		top := topDecl{line: line(decl.Pos()), decls: len(out) - before}
		if tf != nil && decl.Pos().IsValid() && decl.End().IsValid() {
			top.start, top.end = tf.Offset(decl.Pos()), tf.Offset(decl.End())
		}
		if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			top.imports = true
		}
		tops = append(tops, top)
	}
	return out, tops
}

// sourceText is content between from and to.
func sourceText(tf *token.File, content []byte, from, to token.Pos) string {
	if tf == nil || !from.IsValid() || !to.IsValid() {
		return ""
	}
	start, end := tf.Offset(from), tf.Offset(to)
	if start < 0 || end > len(content) || start >= end {
		return ""
	}
	return string(content[start:end])
}

// sameTokens reports whether two texts of versionDecl (source parts
// joined by NULs) have the same tokens: most declarations of a changed
// file are byte for byte the same, and only the others are scanned.
func sameTokens(a, b string) bool {
	return a == b || tokensOf(a) == tokensOf(b)
}

// tokensOf is the tokens of each NUL-terminated part of text, comments
// dropped, separated by spaces, each part ended by a NUL.
func tokensOf(text string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(text, "\x00") {
		if part == "" {
			continue
		}
		var s scanner.Scanner
		fs := token.NewFileSet()
		src := []byte(part)
		s.Init(fs.AddFile("", -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.SEMICOLON && lit == "\n" {
				continue // an inserted semicolon is layout
			}
			if lit != "" {
				b.WriteString(lit)
			} else {
				b.WriteString(tok.String())
			}
			b.WriteByte(' ')
		}
		b.WriteByte('\x00')
	}
	return b.String()
}
