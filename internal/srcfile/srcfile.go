// Package srcfile is a source file as it is on disk now, read through
// os.Root and parsed: its content and content hash, its lines, and its
// declarations named as the indexer names them, so that read_source,
// search_code and get_context_budget can check the index's spans against
// the disk. A Cache keeps the parses of unchanged files; its owner (the
// query service) keeps one per process of tools. List names the files at
// a path: the file, or a directory's entries.
package srcfile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/session"
	"github.com/sextant-dev/sextant/internal/syntax"
)

// Decl is one declaration found by parsing a file as it is on disk
// now. Lines are 1-based; DocLine is where its doc comment starts (Line
// when it has none).
type Decl struct {
	QualifiedName string
	Kind          graph.Kind
	DocLine       int
	Line          int
	EndLine       int
}

// File is a file read and parsed for verified source: its content, its
// lines' starting offsets, and its declarations.
type File struct {
	Rel     string         // repo-relative path
	Content []byte         // as read
	Hash    string         // hex SHA-256 of Content, comparable with graph.File.Hash
	Decls   []Decl         // in source order
	Fset    *token.FileSet // of Syntax
	Syntax  *ast.File      // nil when it does not parse at all, or is not Go
	lines   []int          // byte offset of each line's start
}

// LineCount is the number of lines of the file (a final line without a
// newline counts).
func (f *File) LineCount() int {
	n := len(f.lines)
	if n > 0 && f.lines[n-1] == len(f.Content) {
		n--
	}
	return n
}

// Text returns lines from..to (1-based, inclusive) without the final newline.
func (f *File) Text(from, to int) string {
	if from < 1 {
		from = 1
	}
	if n := f.LineCount(); to > n {
		to = n
	}
	if from > to {
		return ""
	}
	end := len(f.Content)
	if to < len(f.lines) {
		end = f.lines[to] - 1
	}
	return string(f.Content[f.lines[from-1]:end])
}

// Find returns the declarations of the file named qn, of a kind that can
// be what the index called kind.
func (f *File) Find(qn string, kind graph.Kind) []Decl {
	if strings.HasPrefix(qn, "init#") {
		qn = "init"
	}
	var out []Decl
	for _, d := range f.Decls {
		if d.QualifiedName == qn && (kind == "" || graph.SameKindFamily(d.Kind, kind)) {
			out = append(out, d)
		}
	}
	return out
}

// Cache keeps parsed files by absolute path, valid while the content
// hash is the same, so repeated reads of a large file parse it once.
type Cache struct {
	mu    sync.Mutex
	files map[string]*File
}

// maxCachedFiles bounds the files a Cache keeps.
const maxCachedFiles = 256

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{files: map[string]*File{}} }

// Load reads rel in the repository at root through os.Root and parses
// it, reusing the last parse when the content is unchanged.
func (c *Cache) Load(root, rel string) (*File, error) {
	content, err := session.ReadFile(root, rel)
	if err != nil {
		return nil, err
	}
	hash := graph.ContentHash(content)
	abs := filepath.Join(root, filepath.FromSlash(rel))
	c.mu.Lock()
	if f, ok := c.files[abs]; ok && f.Hash == hash {
		c.mu.Unlock()
		return f, nil
	}
	c.mu.Unlock()
	f := parse(rel, content, hash)
	c.mu.Lock()
	if len(c.files) >= maxCachedFiles {
		for k := range c.files {
			delete(c.files, k)
			break
		}
	}
	c.files[abs] = f
	c.mu.Unlock()
	return f, nil
}

// parse indexes content's lines and, for a Go file, its declarations,
// named as the indexer names them (Name, Type.Method, Type.Field,
// Interface.Method), except that every init func is "init": the indexer
// numbers them across the package's files, which one file cannot know.
func parse(rel string, content []byte, hash string) *File {
	f := &File{Rel: rel, Content: content, Hash: hash, lines: []int{0}}
	for i, c := range content {
		if c == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	if filepath.Ext(rel) != ".go" {
		return f
	}
	f.Fset = token.NewFileSet()
	file, _ := parser.ParseFile(f.Fset, rel, content, parser.ParseComments|parser.SkipObjectResolution)
	if file == nil {
		return f
	}
	f.Syntax = file
	line := func(p token.Pos) int { return f.Fset.PositionFor(p, false).Line }
	add := func(qn string, kind graph.Kind, doc *ast.CommentGroup, from, to token.Pos) {
		d := Decl{QualifiedName: qn, Kind: kind, Line: line(from), EndLine: line(to)}
		d.DocLine = d.Line
		if doc != nil && line(doc.Pos()) < d.Line {
			d.DocLine = line(doc.Pos())
		}
		f.Decls = append(f.Decls, d)
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name == nil {
				continue
			}
			qn, kind := d.Name.Name, graph.KindFunc
			if name, method := syntax.FuncName(d); method {
				qn, kind = name, graph.KindMethod
			}
			add(qn, kind, d.Doc, d.Pos(), d.End())
		case *ast.GenDecl:
			whole := !d.Lparen.IsValid() && len(d.Specs) == 1
			for _, spec := range d.Specs {
				from, to := spec.Pos(), spec.End()
				if whole {
					from, to = d.Pos(), d.End()
				}
				switch spec := spec.(type) {
				case *ast.ValueSpec:
					kind := graph.KindVar
					if d.Tok == token.CONST {
						kind = graph.KindConst
					}
					doc := spec.Doc
					if doc == nil && whole {
						doc = d.Doc
					}
					for _, id := range spec.Names {
						add(id.Name, kind, doc, from, to)
					}
				case *ast.TypeSpec:
					doc := spec.Doc
					if doc == nil && whole {
						doc = d.Doc
					}
					kind := graph.KindType
					switch t := spec.Type.(type) {
					case *ast.InterfaceType:
						kind = graph.KindInterface
						for _, m := range t.Methods.List {
							for _, n := range m.Names {
								add(syntax.Qualified(spec.Name.Name, n.Name), graph.KindInterfaceMethod, m.Doc, m.Pos(), m.End())
							}
						}
					case *ast.StructType:
						for _, fl := range t.Fields.List {
							names := fl.Names
							if len(names) == 0 {
								if id := syntax.EmbeddedName(fl.Type); id != "" {
									add(syntax.Qualified(spec.Name.Name, id), graph.KindField, fl.Doc, fl.Pos(), fl.End())
								}
							}
							for _, n := range names {
								add(syntax.Qualified(spec.Name.Name, n.Name), graph.KindField, fl.Doc, fl.Pos(), fl.End())
							}
						}
					}
					add(spec.Name.Name, kind, doc, from, to)
				}
			}
		}
	}
	return f
}
