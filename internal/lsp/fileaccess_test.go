package lsp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoDirectFileAccess keeps every file access of the LSP bridge (this
// package and internal/query's lsp_*.go) on os.Root: a call of an os
// function that opens, reads or stats a path by name would bypass the
// roots check. The one exception is the SEXTANT_LSP_TRACE file, a path
// the user sets in the environment, written, never read.
func TestNoDirectFileAccess(t *testing.T) {
	byName := map[string]bool{
		"Open": true, "OpenFile": true, "ReadFile": true, "ReadDir": true, "Stat": true, "Lstat": true,
		"Readlink": true, "DirFS": true, "Create": true, "WriteFile": true, "Chdir": true, "CopyFS": true,
	}
	allowed := map[string]bool{"server.go: os.OpenFile": true} // SEXTANT_LSP_TRACE
	files, _ := filepath.Glob("*.go")
	bridge, _ := filepath.Glob(filepath.Join("..", "query", "lsp_*.go"))
	files = append(files, bridge...)
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && byName[sel.Sel.Name] {
				key := filepath.Base(f) + ": os." + sel.Sel.Name
				if !allowed[key] {
					t.Errorf("%s: os.%s reads the file system by name; go through os.Root (internal/rootfs)", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked only %d files: run from internal/lsp", checked)
	}
}
