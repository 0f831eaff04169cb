package main

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sextant-dev/sextant/bench/internal/harness"
	"github.com/sextant-dev/sextant/internal/query"
)

// A navigation task on x/tools. pkg is the import path below
// golang.org/x/tools and qn the qualified name of the symbol the task is
// about; question and keyword are for find tasks (keyword is the word an
// agent would grep or go_search for).
type task struct {
	kind     string // read, summary, signature, find
	pkg, qn  string
	question string
	keyword  string
}

// What each kind asks, and what an answer must contain (checked by
// checkAnswer):
//   - read: "find where X is defined and read it": every line of X's
//     declaration;
//   - summary: "summarise X for a prompt": its name and the first sentence
//     of its doc comment;
//   - signature: "what does X take and return": every parameter and
//     result type as written;
//   - find: "find the code that does W": X's declaration line.
var tasks = []task{
	{kind: "read", pkg: "go/packages", qn: "Load"},
	{kind: "read", pkg: "go/ast/astutil", qn: "AddImport"},
	{kind: "read", pkg: "txtar", qn: "Parse"},
	{kind: "read", pkg: "go/callgraph/cha", qn: "CallGraph"},
	{kind: "read", pkg: "go/ast/inspector", qn: "Inspector.Preorder"},
	{kind: "read", pkg: "go/types/typeutil", qn: "Map.Set"},
	{kind: "summary", pkg: "go/analysis", qn: "Analyzer"},
	{kind: "summary", pkg: "go/ssa", qn: "Function"},
	{kind: "summary", pkg: "go/packages", qn: "Config"},
	{kind: "summary", pkg: "go/analysis/analysistest", qn: "Run"},
	{kind: "summary", pkg: "go/gcexportdata", qn: "Read"},
	{kind: "summary", pkg: "go/ssa", qn: "Program.Build"},
	{kind: "signature", pkg: "go/packages", qn: "Load"},
	{kind: "signature", pkg: "go/ast/astutil", qn: "PathEnclosingInterval"},
	{kind: "signature", pkg: "go/ssa/ssautil", qn: "AllFunctions"},
	{kind: "signature", pkg: "imports", qn: "Process"},
	{kind: "signature", pkg: "cover", qn: "ParseProfiles"},
	{kind: "signature", pkg: "go/types/typeutil", qn: "Callee"},
	{kind: "find", pkg: "txtar", qn: "Parse", question: "parse a txtar archive", keyword: "txtar"},
	{kind: "find", pkg: "go/ast/astutil", qn: "DeleteImport", question: "delete an import from a file", keyword: "DeleteImport"},
	{kind: "find", pkg: "go/callgraph/static", qn: "CallGraph", question: "static call graph", keyword: "static"},
	{kind: "find", pkg: "go/callgraph/rta", qn: "Analyze", question: "rapid type analysis", keyword: "rta"},
	{kind: "find", pkg: "go/ast/inspector", qn: "Inspector.Preorder", question: "visit ast nodes of given types in preorder", keyword: "Preorder"},
}

// tokenResult is the token cost of the tasks for the three ways.
type tokenResult struct {
	Tasks         []taskCost `json:"tasks"`
	Sextant       int        `json:"sextant_tokens"`
	Gopls         int        `json:"gopls_tokens"`
	Files         int        `json:"files_tokens"`
	GoplsRatio    float64    `json:"sextant_over_gopls"`
	FilesRatio    float64    `json:"sextant_over_files"`
	SextantPassed int        `json:"sextant_passed"`
	GoplsPassed   int        `json:"gopls_passed"`
	FilesPassed   int        `json:"files_passed"`
	GoplsVersion  string     `json:"gopls_version"`
}

// taskCost is one task's tokens (bytes/4 of what the agent reads) and
// whether each answer held what the task needs.
type taskCost struct {
	Task      string   `json:"task"`
	Sextant   int      `json:"sextant"`
	Gopls     int      `json:"gopls"`
	Files     int      `json:"files"`
	SextantOK bool     `json:"sextant_ok"`
	GoplsOK   bool     `json:"gopls_ok"`
	FilesOK   bool     `json:"files_ok"`
	Calls     []string `json:"calls"`
	Problems  []string `json:"problems,omitempty"`
}

func (t task) label() string {
	if t.kind == "find" {
		return fmt.Sprintf("find %q (%s)", t.question, t.qn)
	}
	return fmt.Sprintf("%s %s.%s", t.kind, filepath.Base(t.pkg), t.qn)
}

// truth is what the disk says about a task's symbol.
type truth struct {
	file      string // absolute
	decl      string // the declaration's source, doc excluded
	declLine  string // its first line, trimmed, without a trailing {
	docFirst  string // first sentence of its doc comment, whitespace folded
	typeParts []string
	name      string
}

func tokens(s string) int { return (len(s) + 3) / 4 }

// numbered is a file as an agent's file reader shows it, with a line
// number column.
func numbered(content []byte) string {
	var b strings.Builder
	for i, l := range strings.Split(string(content), "\n") {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	return b.String()
}

var (
	space      = regexp.MustCompile(`\s+`)
	lineNumber = regexp.MustCompile(`(?m)^\s*\d+\t`)
)

func fold(s string) string { return strings.TrimSpace(space.ReplaceAllString(s, " ")) }

func tokenCost(ctx context.Context, c *corpus, gopls string) (*tokenResult, error) {
	res := &tokenResult{}
	if out, err := exec.CommandContext(ctx, gopls, "version").Output(); err == nil {
		res.GoplsVersion = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "context-bench", Version: "0.1.0"}, nil)
	gcmd := exec.Command(gopls, "mcp")
	gcmd.Dir = c.dir
	gcmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	gcmd.Stderr = io.Discard
	gp, err := client.Connect(ctx, &mcp.CommandTransport{Command: gcmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting gopls mcp: %v", err)
	}
	defer gp.Close()
	goplsCall := func(tool string, args map[string]any) (string, error) {
		r, err := gp.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, ct := range r.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		if r.IsError {
			return b.String(), fmt.Errorf("%s: %s", tool, b.String())
		}
		return b.String(), nil
	}
	start := time.Now()
	if _, err := goplsCall("go_search", map[string]any{"query": "packages.Load"}); err != nil {
		return nil, err
	}
	harness.Logf("gopls mcp loaded the workspace in %s", time.Since(start).Round(time.Millisecond))

	for _, t := range tasks {
		tr, err := findTruth(ctx, c, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.label(), err)
		}
		tc := taskCost{Task: t.label()}
		full := "golang.org/x/tools/" + t.pkg + "." + t.qn

		// Sextant.
		var sx strings.Builder
		call := func(tool string, args map[string]any) {
			tc.Calls = append(tc.Calls, "sextant "+tool)
			a, err := c.call(ctx, tool, args)
			if err != nil {
				tc.Problems = append(tc.Problems, fmt.Sprintf("sextant %s: %v", tool, err))
				return
			}
			sx.WriteString(a.Text())
		}
		switch t.kind {
		case "read":
			call("read_source", map[string]any{"qualified_name": full})
		case "summary":
			call("get_context_for_symbol", map[string]any{"qualified_name": full})
		case "signature":
			call("get_context_for_symbol", map[string]any{"qualified_name": full, "budget": 60})
		case "find":
			call("search_code", map[string]any{"question": t.question, "limit": 3, "budget": 1500})
		}
		tc.Sextant = tokens(sx.String())
		tc.SextantOK = checkAnswer(t, tr, sx.String())

		// gopls mcp: go_search for the symbol (the keyword for find
		// tasks), then go_package_api for summaries and signatures, or
		// the declaring file, read whole, for reads and finds.
		var gp strings.Builder
		q := filepath.Base(t.pkg) + "." + t.qn
		if t.kind == "find" {
			q = t.keyword
		}
		tc.Calls = append(tc.Calls, "gopls go_search "+q)
		out, err := goplsCall("go_search", map[string]any{"query": q})
		if err != nil {
			tc.Problems = append(tc.Problems, err.Error())
		}
		gp.WriteString(out)
		found := strings.Contains(out, tr.file)
		if !found {
			tc.Problems = append(tc.Problems, "gopls go_search does not list "+tr.file)
		}
		switch t.kind {
		case "summary", "signature":
			tc.Calls = append(tc.Calls, "gopls go_package_api")
			out, err := goplsCall("go_package_api", map[string]any{"packagePaths": []string{"golang.org/x/tools/" + t.pkg}})
			if err != nil {
				tc.Problems = append(tc.Problems, err.Error())
			}
			gp.WriteString(out)
		default:
			tc.Calls = append(tc.Calls, "read "+filepath.Base(tr.file))
			b, _ := os.ReadFile(tr.file)
			gp.WriteString(numbered(b))
		}
		tc.Gopls = tokens(gp.String())
		tc.GoplsOK = found && checkAnswer(t, tr, gp.String())

		// grep + whole files.
		var fs strings.Builder
		pattern := grepPattern(t)
		args := []string{"-rn", "--include=*.go", "-E", pattern, "."}
		if t.kind == "find" {
			args = []string{"-rli", "--include=*.go", t.keyword, "."}
		}
		tc.Calls = append(tc.Calls, "grep "+strings.Join(args, " "))
		g := exec.CommandContext(ctx, "grep", args...)
		g.Dir = c.dir
		gout, _ := g.Output()
		fs.Write(gout)
		rel, _ := filepath.Rel(c.dir, tr.file)
		if !bytes.Contains(gout, []byte(rel)) {
			tc.Problems = append(tc.Problems, "grep does not find "+rel)
		}
		tc.Calls = append(tc.Calls, "read "+rel)
		b, _ := os.ReadFile(tr.file)
		fs.WriteString(numbered(b))
		tc.Files = tokens(fs.String())
		tc.FilesOK = checkAnswer(t, tr, fs.String())

		res.Tasks = append(res.Tasks, tc)
		res.Sextant += tc.Sextant
		res.Gopls += tc.Gopls
		res.Files += tc.Files
		for _, p := range []struct {
			ok bool
			n  *int
		}{{tc.SextantOK, &res.SextantPassed}, {tc.GoplsOK, &res.GoplsPassed}, {tc.FilesOK, &res.FilesPassed}} {
			if p.ok {
				*p.n++
			}
		}
	}
	res.GoplsRatio = float64(res.Sextant) / float64(res.Gopls)
	res.FilesRatio = float64(res.Sextant) / float64(res.Files)
	return res, nil
}

// grepPattern is what an agent greps for to find a declaration.
func grepPattern(t task) string {
	name := t.qn
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		recv := name[:i]
		name = name[i+1:]
		return fmt.Sprintf(`^func \([a-z]+ \*?%s\) %s\(`, recv, name)
	}
	return fmt.Sprintf(`^(func|type) %s[ (\[]`, name)
}

// findTruth locates the task's symbol with get_symbol and reads its
// declaration from disk.
func findTruth(ctx context.Context, c *corpus, t task) (truth, error) {
	a, err := c.call(ctx, "get_symbol", map[string]any{"qualified_name": "golang.org/x/tools/" + t.pkg + "." + t.qn})
	if err != nil {
		return truth{}, err
	}
	d := a.(*query.GetSymbolOutput).Results
	tr := truth{file: filepath.Join(c.dir, filepath.FromSlash(d.Path)), name: d.Name}
	src, err := os.ReadFile(tr.file)
	if err != nil {
		return tr, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, tr.file, src, parser.ParseComments)
	if err != nil {
		return tr, err
	}
	var node ast.Node
	var doc *ast.CommentGroup
	var ftype *ast.FuncType
	ast.Inspect(f, func(n ast.Node) bool {
		if node != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			if fset.Position(n.Pos()).Line == d.StartLine {
				node, doc, ftype = n, n.Doc, n.Type
			}
		case *ast.GenDecl:
			if fset.Position(n.Pos()).Line == d.StartLine && len(n.Specs) == 1 {
				node, doc = n, n.Doc
			}
		case *ast.TypeSpec:
			if n.Name.Name == d.Name && fset.Position(n.Pos()).Line == d.StartLine {
				node, doc = n, n.Doc
			}
		}
		return true
	})
	if node == nil {
		return tr, fmt.Errorf("no declaration of %s at %s:%d", t.qn, d.Path, d.StartLine)
	}
	from, to := fset.Position(node.Pos()).Offset, fset.Position(node.End()).Offset
	tr.decl = string(src[from:to])
	tr.declLine = strings.TrimSuffix(strings.TrimSpace(strings.SplitN(tr.decl, "\n", 2)[0]), "{")
	tr.declLine = strings.TrimSpace(tr.declLine)
	if doc != nil {
		text := fold(doc.Text())
		if i := strings.Index(text, ". "); i > 0 {
			text = text[:i+1]
		}
		tr.docFirst = text
	}
	if ftype != nil {
		for _, fl := range []*ast.FieldList{ftype.Params, ftype.Results} {
			if fl == nil {
				continue
			}
			for _, field := range fl.List {
				var b bytes.Buffer
				printer.Fprint(&b, fset, field.Type)
				tr.typeParts = append(tr.typeParts, b.String())
			}
		}
	}
	return tr, nil
}

// checkAnswer reports whether an answer holds what the task needs.
func checkAnswer(t task, tr truth, answer string) bool {
	switch t.kind {
	case "read":
		for _, l := range strings.Split(tr.decl, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.Contains(answer, l) {
				return false
			}
		}
		return true
	case "summary":
		// Line numbers and comment markers are not part of the doc.
		text := fold(strings.ReplaceAll(lineNumber.ReplaceAllString(answer, ""), "//", ""))
		return strings.Contains(answer, tr.name) && strings.Contains(text, tr.docFirst)
	case "signature":
		if !strings.Contains(answer, tr.name) {
			return false
		}
		for _, p := range tr.typeParts {
			if !strings.Contains(answer, p) {
				return false
			}
		}
		return true
	case "find":
		return strings.Contains(answer, tr.declLine)
	}
	return false
}

func reportTokens(w io.Writer, r *tokenResult) {
	fmt.Fprintf(w, "\ntoken cost of %d navigation tasks on x/tools (tokens = bytes/4 of what the agent reads; ok = the answer holds what the task needs):\n", len(r.Tasks))
	fmt.Fprintf(w, "  %-62s %8s %8s %8s\n", "task", "sextant", "gopls", "files")
	mark := func(n int, ok bool) string {
		if ok {
			return fmt.Sprint(n)
		}
		return fmt.Sprintf("%d!", n)
	}
	for _, t := range r.Tasks {
		fmt.Fprintf(w, "  %-62s %8s %8s %8s\n", t.Task, mark(t.Sextant, t.SextantOK), mark(t.Gopls, t.GoplsOK), mark(t.Files, t.FilesOK))
		for _, p := range t.Problems {
			fmt.Fprintf(w, "      note: %s\n", p)
		}
	}
	fmt.Fprintf(w, "  %-62s %8d %8d %8d\n", "total", r.Sextant, r.Gopls, r.Files)
	fmt.Fprintf(w, "  answers holding what the task needs: sextant %d/%d, gopls %d/%d, files %d/%d (! marks a failed check)\n",
		r.SextantPassed, len(r.Tasks), r.GoplsPassed, len(r.Tasks), r.FilesPassed, len(r.Tasks))
	fmt.Fprintf(w, "  sextant / gopls mcp: %.3f (target ≤ 0.333)  %s\n", r.GoplsRatio, verdict(r.GoplsRatio <= 1.0/3))
	fmt.Fprintf(w, "  sextant / files:     %.3f (target ≤ 0.050)  %s\n", r.FilesRatio, verdict(r.FilesRatio <= 0.05))
}
