package sextant_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// layers is the layer table of DESIGN.md, bottom to top. A package may
// import only packages of lower layers (and, for the store backends,
// nothing of each other).
var layers = [][]string{
	{"internal/graph"},
	{"internal/rootfs"},    // reads under a directory through os.Root, regular files only; standard library only
	{"internal/lsptest"},   // test support: a minimal LSP client for e2e and bench, standard library only
	{"internal/txtartest"}, // test support: writes txtar fixtures into directories
	{"internal/diff"},      // unified diffs: parse, and apply either way; standard library only
	{"internal/git"},       // read-only git plumbing with hooks, filters and monitors off; standard library only
	{"internal/load"},
	{"internal/index/callgraph"}, // DESIGN.md: index's sub-packages (call edges, effects) sit below it
	{"internal/index/effects"},   // reads the bodies callgraph builds, names functions as its edges do
	{"internal/index"},
	{"internal/store/names"}, // the stores' shared in-memory name search
	{"internal/store/sqlite", "internal/store/postgres"},
	{"internal/store/overlay"}, // a local store layered over a shared one; imports neither backend
	{"internal/store/storetest"},
	{"internal/live"},
	{"internal/lsp"},
	{"internal/lsp/lspfake"}, // test support: a fake language server for the bridge's tests and benchmarks
	{"internal/answer"},      // what every tool's answer shares: envelope, paging cursors, argument errors, safe text
	{"internal/session"},     // roots, freshness, watches, indexing runs and caches; a pinned, fresh view per request
	{"internal/lsptools"},    // the lsp_* tools over internal/lsp; no graph logic
	{"internal/query"},
	{"internal/mcpserver"},
	{"internal/cli"},
	{"cmd/sextant"},
}

const module = "github.com/sextant-dev/sextant/"

// layerOf returns the layer of the longest table entry that pkg is or is
// under.
func layerOf(pkg string) (int, bool) {
	rel := strings.TrimPrefix(pkg, module)
	layer, best := 0, -1
	for i, l := range layers {
		for _, p := range l {
			if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > best {
				layer, best = i, len(p)
			}
		}
	}
	return layer, best >= 0
}

// TestLayers enforces the import direction of DESIGN.md with go list.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p.ImportPath, module) {
			continue
		}
		from, ok := layerOf(p.ImportPath)
		if !ok {
			if strings.HasPrefix(p.ImportPath, module+"internal/") {
				t.Errorf("%s is in no layer of DESIGN.md; add it to the table and to this test", p.ImportPath)
			}
			continue
		}
		seen++
		for _, imp := range p.Imports {
			if imp == "github.com/modelcontextprotocol/go-sdk/mcp" || strings.HasPrefix(imp, "github.com/modelcontextprotocol/") {
				if !strings.HasSuffix(p.ImportPath, "internal/mcpserver") {
					t.Errorf("%s imports the MCP SDK; only internal/mcpserver may", p.ImportPath)
				}
			}
			to, ok := layerOf(imp)
			if !ok {
				continue
			}
			if to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down the layer table", p.ImportPath, from, imp, to)
			}
		}
	}
	if seen < 5 {
		t.Fatalf("only %d packages matched the layer table; is go list seeing the module?", seen)
	}
}
