package query

import (
	"crypto/sha256"
	"encoding/hex"
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

// diskDecl is one declaration found by parsing a file as it is on disk
// now. Lines are 1-based; DocLine is where its doc comment starts (Line
// when it has none).
type diskDecl struct {
	QualifiedName string
	Kind          graph.Kind
	DocLine       int
	Line          int
	EndLine       int
}

// diskFile is a file read and parsed for verified source: its content, its
// lines' starting offsets, and its declarations.
type diskFile struct {
	rel     string
	content []byte
	hash    string     // hex SHA-256 of content, comparable with graph.File.Hash
	lines   []int      // byte offset of each line's start
	decls   []diskDecl // in source order
	fset    *token.FileSet
	syntax  *ast.File // nil when it does not parse at all
}

// lineCount is the number of lines of the file (a final line without a
// newline counts).
func (f *diskFile) lineCount() int {
	n := len(f.lines)
	if n > 0 && f.lines[n-1] == len(f.content) {
		n--
	}
	return n
}

// text returns lines from..to (1-based, inclusive) without the final newline.
func (f *diskFile) text(from, to int) string {
	if from < 1 {
		from = 1
	}
	if n := f.lineCount(); to > n {
		to = n
	}
	if from > to {
		return ""
	}
	end := len(f.content)
	if to < len(f.lines) {
		end = f.lines[to] - 1
	}
	return string(f.content[f.lines[from-1]:end])
}

// find returns the declarations of the file named qn, of a kind that can
// be what the index called kind.
func (f *diskFile) find(qn string, kind graph.Kind) []diskDecl {
	if strings.HasPrefix(qn, "init#") {
		qn = "init"
	}
	var out []diskDecl
	for _, d := range f.decls {
		if d.QualifiedName == qn && (kind == "" || graph.SameKindFamily(d.Kind, kind)) {
			out = append(out, d)
		}
	}
	return out
}

// fileCache keeps parsed files by absolute path, valid while the content
// hash is the same, so repeated reads of a large file parse it once.
type fileCache struct {
	mu    sync.Mutex
	files map[string]*diskFile
}

const maxCachedFiles = 256

var parsedFiles = &fileCache{files: map[string]*diskFile{}}

// loadDisk reads rel in the repository at root through os.Root and parses
// it, reusing the last parse when the content is unchanged.
func loadDisk(root, rel string) (*diskFile, error) {
	content, err := session.ReadFile(root, rel)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(content)
	hash := hex.EncodeToString(sum[:])
	abs := filepath.Join(root, filepath.FromSlash(rel))
	parsedFiles.mu.Lock()
	if f, ok := parsedFiles.files[abs]; ok && f.hash == hash {
		parsedFiles.mu.Unlock()
		return f, nil
	}
	parsedFiles.mu.Unlock()
	f := parseDisk(rel, content, hash)
	parsedFiles.mu.Lock()
	if len(parsedFiles.files) >= maxCachedFiles {
		for k := range parsedFiles.files {
			delete(parsedFiles.files, k)
			break
		}
	}
	parsedFiles.files[abs] = f
	parsedFiles.mu.Unlock()
	return f, nil
}

// parseDisk indexes content's lines and, for a Go file, its declarations,
// named as the indexer names them (Name, Type.Method, Type.Field,
// Interface.Method), except that every init func is "init": the indexer
// numbers them across the package's files, which one file cannot know.
func parseDisk(rel string, content []byte, hash string) *diskFile {
	f := &diskFile{rel: rel, content: content, hash: hash, lines: []int{0}}
	for i, c := range content {
		if c == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	if filepath.Ext(rel) != ".go" {
		return f
	}
	f.fset = token.NewFileSet()
	file, _ := parser.ParseFile(f.fset, rel, content, parser.ParseComments|parser.SkipObjectResolution)
	if file == nil {
		return f
	}
	f.syntax = file
	line := func(p token.Pos) int { return f.fset.PositionFor(p, false).Line }
	add := func(qn string, kind graph.Kind, doc *ast.CommentGroup, from, to token.Pos) {
		d := diskDecl{QualifiedName: qn, Kind: kind, Line: line(from), EndLine: line(to)}
		d.DocLine = d.Line
		if doc != nil && line(doc.Pos()) < d.Line {
			d.DocLine = line(doc.Pos())
		}
		f.decls = append(f.decls, d)
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
