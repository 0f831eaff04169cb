package query

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"io/fs"
	"strings"

	"github.com/sextant-dev/sextant/internal/srcfile"
)

// GetContextBudgetInput is the input of get_context_budget.
type GetContextBudgetInput struct {
	Path         string `json:"path" jsonschema:"a Go file or package directory, repo-relative or absolute in a root"`
	Repository   string `json:"repository,omitempty" jsonschema:"repository of a relative path, by name"`
	IncludeTests bool   `json:"include_tests,omitempty" jsonschema:"count _test.go files of a directory too"`
	Wait         Wait   `json:"wait,omitempty" jsonschema:"seconds to wait for indexing"`
}

// BudgetRow is what one category of a file's content costs.
type BudgetRow struct {
	Category string `json:"category" jsonschema:"types, interfaces, signatures, consts_vars, doc_comments or full_source"`
	Tokens   int    `json:"tokens" jsonschema:"approximate tokens (4 bytes each)"`
	Count    int    `json:"count" jsonschema:"declarations (or comments, files) counted"`
}

// GetContextBudgetOutput is the answer of get_context_budget.
type GetContextBudgetOutput struct {
	Envelope
	Repository string      `json:"repository" jsonschema:"repository name"`
	Path       string      `json:"path" jsonschema:"repo-relative file or directory"`
	Files      int         `json:"files" jsonschema:"Go files counted"`
	Lines      int         `json:"lines" jsonschema:"their lines"`
	Results    []BudgetRow `json:"results" jsonschema:"cost per category, full_source last"`
	Note       string      `json:"note" jsonschema:"how the estimate is made"`
}

const budgetNote = "tokens ≈ bytes/4, the usual rate for Go source with common tokenizers (real counts vary by about ±20%); types and interfaces count their whole declarations, signatures count functions and methods up to their bodies, doc_comments counts comments attached to declarations and the package clause"

// GetContextBudget says what loading a file or package costs in tokens,
// per category, from the source on disk.
func GetContextBudget(ctx context.Context, s *Service, in GetContextBudgetInput, progress func(Progress)) (*GetContextBudgetOutput, error) {
	if err := checkSelectors("path", in.Path, "repository", in.Repository); err != nil {
		return nil, err
	}
	v, loc, err := openPath(ctx, s, in.Path, in.Repository, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	root, files, isDir, err := srcfile.List(loc, func(e fs.DirEntry) bool {
		n := e.Name()
		return !e.IsDir() && strings.HasSuffix(n, ".go") && (in.IncludeTests || !strings.HasSuffix(n, "_test.go"))
	})
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if isDir && len(files) == 0 {
		return nil, invalid("path", "%s holds no Go files%s; give a package directory or a .go file", loc.Rel,
			map[bool]string{true: "", false: " (test files excluded; set include_tests)"}[in.IncludeTests])
	}
	if !isDir && !strings.HasSuffix(loc.Rel, ".go") {
		return nil, invalid("path", "%s is not a Go file (.go); give a .go file or a package directory", loc.Rel)
	}
	cats := map[string]*BudgetRow{}
	order := []string{"types", "interfaces", "signatures", "consts_vars", "doc_comments", "full_source"}
	for _, c := range order {
		cats[c] = &BudgetRow{Category: c}
	}
	bytesOf := map[string]int{}
	out := &GetContextBudgetOutput{Repository: loc.Repo.Name, Path: loc.Rel, Files: len(files), Note: budgetNote}
	for _, rel := range files {
		f, err := s.files.Load(loc.Repo.Root, rel)
		if err != nil {
			return nil, err
		}
		out.Lines += f.LineCount()
		bytesOf["full_source"] += len(f.Content)
		cats["full_source"].Count++
		if f.Syntax == nil {
			continue
		}
		countDecls(f, bytesOf, cats)
	}
	for _, c := range order {
		row := cats[c]
		row.Tokens = (bytesOf[c] + 3) / 4
		out.Results = append(out.Results, *row)
	}
	out.Envelope = v.Envelope()
	out.Fresh, out.StaleReasons = true, nil // read from disk now
	out.Page(len(out.Results), 0, len(out.Results), "", "")
	return out, nil
}

// countDecls adds the bytes of each category of f's declarations.
func countDecls(f *srcfile.File, bytesOf map[string]int, cats map[string]*BudgetRow) {
	off := func(p token.Pos) int { return f.Fset.PositionFor(p, false).Offset }
	span := func(from, to token.Pos) int { return max(0, off(to)-off(from)) }
	doc := func(cg *ast.CommentGroup) {
		if cg != nil {
			bytesOf["doc_comments"] += span(cg.Pos(), cg.End())
			cats["doc_comments"].Count++
		}
	}
	doc(f.Syntax.Doc)
	for _, decl := range f.Syntax.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			doc(d.Doc)
			end := d.End()
			if d.Body != nil {
				end = d.Body.Lbrace
			}
			bytesOf["signatures"] += span(d.Pos(), end)
			cats["signatures"].Count++
		case *ast.GenDecl:
			doc(d.Doc)
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					doc(spec.Doc)
					c := "types"
					if _, ok := spec.Type.(*ast.InterfaceType); ok {
						c = "interfaces"
					}
					bytesOf[c] += span(spec.Pos(), spec.End())
					cats[c].Count++
				case *ast.ValueSpec:
					doc(spec.Doc)
					bytesOf["consts_vars"] += span(spec.Pos(), spec.End())
					cats["consts_vars"].Count += len(spec.Names)
				}
			}
		}
	}
}

// Text renders one line per category.
func (o *GetContextBudgetOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d files, %d lines\n", o.Path, o.Files, o.Lines)
	for _, r := range o.Results {
		fmt.Fprintf(&b, "%-13s ~%d tokens (%d)\n", r.Category, r.Tokens, r.Count)
	}
	fmt.Fprintf(&b, "note: %s\n", o.Note)
	return b.String()
}
