package main

import (
	"bytes"
	"fmt"
	"github.com/sextant-dev/sextant/internal/syntax"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The copy of the module is instrumented by inserting, at the start of
// every function body (declarations and literals), a call that records
// who called it. Text is inserted on the lines that are already there
// (after the opening brace, and after the package name for the import),
// so every line keeps its number: a position the runtime reports in the
// instrumented copy is the same position in the pristine copy that is
// indexed.

// recorderPkg is the import path, under the module, of the recorder
// package written into the instrumented copy, and recorderName its name
// in the files that import it.
const (
	recorderDir  = "internal/sextantrec"
	recorderName = "sextantrec_"
	pairsEnv     = "SEXTANT_SOUNDNESS_DIR"
)

// decl is a named declaration of the module that calls can be
// attributed to: a function, a method, or a package-level variable
// whose initialiser makes calls.
type decl struct {
	Path string `json:"path"` // repo-relative file
	Name string `json:"name"` // F, T.M, or the variable's name
	Kind string `json:"kind"` // func, method, init or var
	Line int    `json:"line"` // of the declaring identifier
	Col  int    `json:"col"`  // byte column of the declaring identifier
	// Start and End are the lines the declaration spans (a variable's
	// spec, a function from func to its closing brace).
	Start int `json:"start"`
	End   int `json:"end"`
}

func (d decl) String() string { return fmt.Sprintf("%s:%d %s", d.Path, d.Line, d.Name) }

// hook is one inserted call: the declaration whose body (or a literal
// in whose body) it is in.
type hook struct {
	Decl    int  `json:"decl"` // index into decls
	Literal bool `json:"literal,omitempty"`
}

// program is what instrumenting the module learnt of it: its
// declarations by file, and the hooks by id.
type program struct {
	Module string           `json:"module"`
	Decls  []decl           `json:"decls"`
	Hooks  []hook           `json:"hooks"`
	byFile map[string][]int // decl indexes by path, sorted by Start
}

// index fills byFile.
func (p *program) index() {
	p.byFile = map[string][]int{}
	for i, d := range p.Decls {
		p.byFile[d.Path] = append(p.byFile[d.Path], i)
	}
	for _, list := range p.byFile {
		sort.Slice(list, func(a, b int) bool { return p.Decls[list[a]].Start < p.Decls[list[b]].Start })
	}
}

// at returns the declaration containing line of path, -1 for none.
func (p *program) at(path string, line int) int {
	for _, i := range p.byFile[path] {
		d := p.Decls[i]
		if d.Start <= line && line <= d.End {
			return i
		}
	}
	return -1
}

// goFiles lists the .go files of the module under root, repo-relative,
// leaving out testdata, vendor, hidden directories and nested modules.
func goFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// declsOf returns the declarations of one parsed file.
func declsOf(fset *token.FileSet, path string, f *ast.File) []decl {
	var out []decl
	line := func(p token.Pos) int { return fset.Position(p).Line }
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			kind, name := "func", d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				kind, name = "method", syntax.ReceiverBase(d.Recv.List[0].Type)+"."+d.Name.Name
			} else if name == "init" {
				kind = "init"
			}
			p := fset.Position(d.Name.Pos())
			out = append(out, decl{Path: path, Name: name, Kind: kind, Line: p.Line, Col: p.Column,
				Start: line(d.Pos()), End: line(d.End())})
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name == "_" {
						continue
					}
					start, end := line(vs.Pos()), line(vs.End())
					if len(vs.Values) == len(vs.Names) {
						start, end = line(vs.Values[i].Pos()), line(vs.Values[i].End())
						if i == 0 {
							start = line(vs.Pos())
						}
					}
					p := fset.Position(n.Pos())
					out = append(out, decl{Path: path, Name: n.Name, Kind: "var", Line: p.Line, Col: p.Column, Start: start, End: end})
				}
			}
		}
	}
	return out
}

// scan parses the module's files under root and returns its
// declarations (no hooks).
func scan(root, module string) (*program, error) {
	files, err := goFiles(root)
	if err != nil {
		return nil, err
	}
	p := &program{Module: module}
	fset := token.NewFileSet()
	for _, rel := range files {
		f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(rel)), nil, parser.SkipObjectResolution)
		if err != nil {
			continue // a file that does not parse is not built either
		}
		p.Decls = append(p.Decls, declsOf(fset, rel, f)...)
	}
	p.index()
	return p, nil
}

// instrument assigns the hooks of the module under src, whose
// declarations p holds (scan), and writes the instrumented files and the
// recorder package under dst, a copy of src. With dst empty it only
// assigns the hooks, which come out the same from the same files: a run
// reusing an earlier run's observations needs nothing more.
func instrument(src, dst string, p *program) error {
	files, err := goFiles(src)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	for _, rel := range files {
		path := filepath.Join(src, filepath.FromSlash(rel))
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		type insert struct {
			off  int
			text string
		}
		var ins []insert
		addHook := func(body *ast.BlockStmt, literal bool) {
			if body == nil {
				return
			}
			line := fset.Position(body.Lbrace).Line
			di := p.at(rel, line)
			if di < 0 {
				return
			}
			id := len(p.Hooks)
			p.Hooks = append(p.Hooks, hook{Decl: di, Literal: literal})
			ins = append(ins, insert{fset.Position(body.Lbrace).Offset + 1, fmt.Sprintf("%s.Enter(%d);", recorderName, id)})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				addHook(n.Body, false)
			case *ast.FuncLit:
				addHook(n.Body, true)
			}
			return true
		})
		if len(ins) == 0 {
			continue
		}
		// The import goes on the package clause's line.
		ins = append(ins, insert{fset.Position(f.Name.End()).Offset,
			fmt.Sprintf("; import %s %q", recorderName, p.Module+"/"+recorderDir)})
		sort.Slice(ins, func(a, b int) bool { return ins[a].off > ins[b].off })
		out := src
		for _, in := range ins {
			out = append(out[:in.off:in.off], append([]byte(in.text), out[in.off:]...)...)
		}
		if dst == "" || bytes.Equal(out, src) {
			continue
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.FromSlash(rel)), out, 0o644); err != nil {
			return err
		}
	}
	if dst == "" {
		return nil
	}
	dir := filepath.Join(dst, filepath.FromSlash(recorderDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "rec.go"), []byte(recorderSource), 0o644)
}

// recorderSource is the recorder package. Enter records, once per hook
// and pair of return addresses, the function that called the one it is
// in: the first logical frame above it (runtime.CallersFrames expands
// inlined calls) that is not a compiler-generated wrapper. A new pair is
// appended at once to a file of its own process under $SEXTANT_SOUNDNESS_DIR,
// since a test binary ends with os.Exit. Repeated pairs cost a lookup
// under a read lock and no allocation.
const recorderSource = `// Package sextantrec records observed calls for the soundness benchmark.
package sextantrec

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

type key struct {
	id       int
	pc0, pc1 uintptr
}

var (
	mu   sync.RWMutex
	seen = map[key]bool{}
	out  *os.File
	dir  = os.Getenv("` + pairsEnv + `")
)

//go:noinline
func Enter(id int) {
	if dir == "" {
		return
	}
	var pcs [2]uintptr
	runtime.Callers(2, pcs[:])
	k := key{id, pcs[0], pcs[1]}
	mu.RLock()
	done := seen[k]
	mu.RUnlock()
	if done {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if seen[k] {
		return
	}
	seen[k] = true
	record(id)
}

//go:noinline
func record(id int) {
	var pcs [16]uintptr
	n := runtime.Callers(3, pcs[:]) // past runtime.Callers, record and Enter
	frames := runtime.CallersFrames(pcs[:n])
	// The first frame is the function Enter is in.
	var callee runtime.Frame
	first := true
	for {
		f, more := frames.Next()
		if first {
			callee, first = f, false
		} else if f.File != "<autogenerated>" {
			if out == nil {
				var err error
				out, err = os.OpenFile(filepath.Join(dir, fmt.Sprintf("pairs-%d.txt", os.Getpid())), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					dir = ""
					return
				}
			}
			fmt.Fprintf(out, "%d\t%s\t%s\t%d\t%s\n", id, callee.Function, f.File, f.Line, f.Function)
			return
		}
		if !more {
			return
		}
	}
}
`
