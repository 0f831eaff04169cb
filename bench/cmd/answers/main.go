// Command answers records what every tool of a sextant binary answers on
// a corpus, so that two binaries can be compared byte for byte: a change
// that should not alter behaviour (a refactoring) must leave the file
// unchanged.
//
//	go run ./bench/cmd/answers -bin ./sextant -corpus DIR -db FILE -out answers.txt
//
// It indexes the corpus with `BIN index`, then drives `BIN serve --tools
// all` over stdio as an MCP client and calls every tool except the lsp_*
// ones (they need external servers) on queries derived from the corpus
// alone: exported declarations picked at even strides over the files in
// lexical order, so that both binaries are asked the same questions. Each
// answer's text and its structuredContent, as the server wrote them, go to
// the output with what varies from run to run normalised: snapshot ages,
// the corpus and database paths.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	bin := flag.String("bin", "", "the sextant binary")
	corpus := flag.String("corpus", "", "a Go module directory (writable: the index may refresh it)")
	db := flag.String("db", "", "the database file (removed first)")
	out := flag.String("out", "", "the answers file (default: stdout)")
	n := flag.Int("n", 12, "declarations to ask about")
	staged := flag.Bool("staged", false, "index with --staged: the syntax stage first, its parse taken by the load")
	flag.Parse()
	if *bin == "" || *corpus == "" || *db == "" {
		fmt.Fprintln(os.Stderr, "usage: answers -bin BIN -corpus DIR -db FILE [-out FILE] [-n N] [-staged]")
		os.Exit(2)
	}
	if err := run(*bin, *corpus, *db, *out, *n, *staged); err != nil {
		fmt.Fprintln(os.Stderr, "answers:", err)
		os.Exit(1)
	}
}

func run(bin, corpus, db, out string, n int, staged bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	corpus, err := filepath.Abs(corpus)
	if err != nil {
		return err
	}
	if db, err = filepath.Abs(db); err != nil {
		return err
	}
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	decls, err := declarations(corpus)
	if err != nil {
		return err
	}
	args := []string{"index", "--db", db}
	if staged {
		args = append(args, "--staged")
	}
	idx := exec.CommandContext(ctx, bin, append(args, corpus)...)
	if b, err := idx.CombinedOutput(); err != nil {
		return fmt.Errorf("indexing: %v: %s", err, b)
	}

	cmd := exec.Command(bin, "serve", "--db", db, "--tools", "all", corpus)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	tr := &rawTransport{Transport: &mcp.CommandTransport{Command: cmd}}
	client := mcp.NewClient(&mcp.Implementation{Name: "answers", Version: "0.1.0"}, nil)
	sess, err := client.Connect(ctx, tr, nil)
	if err != nil {
		return fmt.Errorf("starting serve: %v: %s", err, stderr.String())
	}
	defer sess.Close()

	var w bytes.Buffer
	norm := strings.NewReplacer(corpus, "$CORPUS", db, "$DB")
	call := func(tool string, args map[string]any) json.RawMessage {
		argb, _ := json.Marshal(args)
		fmt.Fprintf(&w, "=== %s %s\n", tool, norm.Replace(string(argb)))
		tr.last = nil
		_, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil && tr.last == nil {
			fmt.Fprintf(&w, "protocol error: %s\n", norm.Replace(err.Error()))
			return nil
		}
		var res struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		}
		if err := json.Unmarshal(tr.last, &res); err != nil {
			fmt.Fprintf(&w, "undecodable result: %v\n", err)
			return nil
		}
		fmt.Fprintf(&w, "isError: %v\n", res.IsError)
		for _, c := range res.Content {
			fmt.Fprintf(&w, "--- %s\n%s\n", c.Type, normalise(norm.Replace(c.Text)))
		}
		fmt.Fprintf(&w, "--- structured\n%s\n", normalise(norm.Replace(string(res.StructuredContent))))
		return res.StructuredContent
	}

	call("list_repositories", map[string]any{})
	call("list_repositories", map[string]any{"response_format": "detailed"})
	call("get_repository_overview", map[string]any{})
	call("get_repository_overview", map[string]any{"section": "api", "budget": 400})
	picked := pick(decls, n)
	for i, d := range picked {
		qn := map[string]any{"qualified_name": d.qualified, "path": d.path}
		fs := call("find_symbol", map[string]any{"name": d.name, "mode": "exact", "path": d.path, "response_format": "detailed"})
		call("find_symbol", map[string]any{"name": prefix(d.name, 3), "mode": "prefix", "limit": 3})
		if next := field(fs, "next_cursor"); next != "" {
			call("find_symbol", map[string]any{"name": d.name, "mode": "exact", "path": d.path, "cursor": next})
		}
		call("find_symbol", map[string]any{"name": d.name, "limit": 5})
		call("get_symbol", qn)
		call("get_symbol", map[string]any{"file": d.path, "name": d.qualified, "response_format": "detailed"})
		if key := firstKey(fs); key != "" {
			call("get_symbol", map[string]any{"stable_key": key})
			call("read_source", map[string]any{"stable_key": key, "context_lines": 2})
		}
		call("get_file_outline", map[string]any{"path": d.path})
		call("read_source", qn)
		call("read_source", map[string]any{"ref": fmt.Sprintf("%s:%d-%d", d.path, d.line, d.line+8)})
		call("read_source", map[string]any{"ref": d.path + "::" + d.qualified, "depth": 2, "budget": 600})
		refs := call("find_references", merge(qn, map[string]any{"limit": 5}))
		if next := field(refs, "next_cursor"); next != "" {
			call("find_references", merge(qn, map[string]any{"limit": 5, "cursor": next}))
		}
		call("find_references", merge(qn, map[string]any{"include_tests": true, "response_format": "detailed", "budget": 300}))
		call("get_context_for_symbol", qn)
		call("get_context_for_symbol", merge(qn, map[string]any{"budget": 60}))
		call("search_code", map[string]any{"question": strings.TrimSpace(words(d.name) + " " + d.docWords), "limit": 5})
		if d.isFunc {
			call("get_callers", qn)
			call("get_callers", merge(qn, map[string]any{"depth": 3, "include_tests": true}))
			call("get_callees", qn)
			call("get_callees", merge(qn, map[string]any{"depth": 2, "coverage": "exact"}))
			call("explain_effects", qn)
			call("emit_effect_graph", merge(qn, map[string]any{"depth": 2, "max_nodes": 20}))
			call("emit_effect_graph", merge(qn, map[string]any{"format": "mermaid"}))
		} else {
			call("find_implementations", qn)
			call("find_implementations", merge(qn, map[string]any{"include_tests": true, "limit": 3}))
			call("explain_type", qn)
			call("explain_type", merge(qn, map[string]any{"section": "methods", "budget": 300}))
		}
		call("get_impact", merge(qn, map[string]any{"limit": 5}))
		call("get_context_budget", map[string]any{"path": d.path})
		call("get_context_budget", map[string]any{"path": filepath.ToSlash(filepath.Dir(d.path))})
		// The position tools compile packages from disk: a few of them.
		if i%3 == 0 {
			call("check_file", map[string]any{"file": d.path})
			call("infer_type", map[string]any{"file": d.path, "line": d.line, "column": d.col})
			for _, p := range d.inner {
				call("infer_type", map[string]any{"file": d.path, "line": p[0], "column": p[1]})
			}
			if d.isFunc {
				call("render_ssa", qn)
				call("render_ssa", merge(qn, map[string]any{"format": "json"}))
			}
		}
	}
	// Failures are answers too.
	call("get_symbol", map[string]any{"qualified_name": "NoSuchSymbolAnywhere"})
	call("read_source", map[string]any{"ref": "../outside.go:1-2"})
	call("get_callers", map[string]any{"qualified_name": picked[0].qualified, "path": picked[0].path, "depth": 9})
	call("find_symbol", map[string]any{"name": " x"})
	call("get_file_outline", map[string]any{"path": "does/not/exist.go"})
	if err := sess.Close(); err != nil {
		return fmt.Errorf("stopping serve: %v: %s", err, stderr.String())
	}
	if out == "" {
		_, err = os.Stdout.Write(w.Bytes())
		return err
	}
	return os.WriteFile(out, w.Bytes(), 0o644)
}

// ageRe matches what varies with the clock: snapshot ages.
var ageRe = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"snapshot_age_ms":\d+`), `"snapshot_age_ms":0`},
	{regexp.MustCompile(`, \d+[smhd] old, `), `, N old, `},
}

func normalise(s string) string {
	for _, r := range ageRe {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// decl is one exported declaration of the corpus.
type decl struct {
	path, name, qualified string
	line, col             int      // of the name, column in characters
	inner                 [][2]int // identifiers inside the body, for infer_type
	isFunc                bool
	docWords              string
}

// declarations lists the exported top-level functions, methods (of
// exported types) and types of the corpus's non-test files, in lexical
// file order and source order.
func declarations(root string) ([]decl, error) {
	var out []decl
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil || f.Name.Name == "main" || hasBuildTag(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		at := func(pos token.Pos) (int, int) {
			ps := fset.Position(pos)
			start := fset.File(pos).LineStart(ps.Line)
			off := fset.Position(start).Offset
			return ps.Line, utf8.RuneCount(src[off:ps.Offset]) + 1
		}
		for _, dd := range f.Decls {
			switch dd := dd.(type) {
			case *ast.FuncDecl:
				if !dd.Name.IsExported() || dd.Body == nil {
					continue
				}
				q := dd.Name.Name
				if dd.Recv != nil {
					base := recvBase(dd.Recv.List[0].Type)
					if base == "" || !ast.IsExported(base) {
						continue
					}
					q = base + "." + q
				}
				x := decl{path: rel, name: dd.Name.Name, qualified: q, isFunc: true, docWords: docWords(dd.Doc)}
				x.line, x.col = at(dd.Name.Pos())
				ast.Inspect(dd.Body, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && len(x.inner) < 2 && id.Name != "_" {
						l, c := at(id.Pos())
						x.inner = append(x.inner, [2]int{l, c})
					}
					return len(x.inner) < 2
				})
				out = append(out, x)
			case *ast.GenDecl:
				if dd.Tok != token.TYPE {
					continue
				}
				for _, s := range dd.Specs {
					ts := s.(*ast.TypeSpec)
					if !ts.Name.IsExported() {
						continue
					}
					doc := dd.Doc
					if ts.Doc != nil {
						doc = ts.Doc
					}
					x := decl{path: rel, name: ts.Name.Name, qualified: ts.Name.Name, docWords: docWords(doc)}
					x.line, x.col = at(ts.Name.Pos())
					out = append(out, x)
				}
			}
		}
		return nil
	})
	return out, err
}

// hasBuildTag reports whether f is constrained to some build: the index
// may not load it, and no question should hinge on the machine.
func hasBuildTag(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") {
				return true
			}
		}
	}
	return false
}

// recvBase is the type name of a receiver: T of T, *T, T[P].
func recvBase(e ast.Expr) string {
	base := strings.TrimPrefix(types.ExprString(e), "*")
	if i := strings.IndexByte(base, '['); i >= 0 {
		base = base[:i]
	}
	return base
}

// pick takes n declarations at even strides, half functions and half
// types, so that the questions cover the whole corpus.
func pick(all []decl, n int) []decl {
	var funcs, types []decl
	for _, d := range all {
		if d.isFunc {
			funcs = append(funcs, d)
		} else {
			types = append(types, d)
		}
	}
	stride := func(ds []decl, k int) []decl {
		var out []decl
		for i := 0; i < k && len(ds) > 0; i++ {
			out = append(out, ds[i*len(ds)/k])
		}
		return out
	}
	out := append(stride(funcs, n-n/3), stride(types, n/3)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func docWords(cg *ast.CommentGroup) string {
	f := strings.Fields(cg.Text())
	if len(f) > 6 {
		f = f[:6]
	}
	return strings.Join(f, " ")
}

// words splits a camel-case name into lower-case words.
func words(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}

func prefix(s string, n int) string {
	if len(s) < n {
		return s
	}
	return s[:n]
}

func merge(a, b map[string]any) map[string]any {
	m := map[string]any{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// field returns a top-level string field of a structured answer.
func field(sc json.RawMessage, name string) string {
	var m map[string]any
	_ = json.Unmarshal(sc, &m)
	s, _ := m[name].(string)
	return s
}

// firstKey returns the stable key of the first row of a find_symbol answer.
func firstKey(sc json.RawMessage) string {
	var m struct {
		Results []struct {
			StableKey string `json:"stable_key"`
		} `json:"results"`
	}
	if json.Unmarshal(sc, &m) != nil || len(m.Results) == 0 {
		return ""
	}
	return m.Results[0].StableKey
}

// rawTransport keeps the raw result of the last response read: the calls
// are one at a time, so it is the answer to the call in flight, as the
// server wrote it (the client would re-encode a decoded copy).
type rawTransport struct {
	mcp.Transport
	last json.RawMessage
}

func (t *rawTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rawConn{Connection: c, t: t}, nil
}

type rawConn struct {
	mcp.Connection
	t *rawTransport
}

func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); ok && err == nil {
		c.t.last = append(json.RawMessage(nil), r.Result...)
	}
	return m, err
}
