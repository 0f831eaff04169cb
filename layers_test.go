package sextant_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// designDoc holds the layer table this test enforces: the table under its
// "Layers" heading, one row per layer, bottom to top. A package may import
// only packages of lower layers; packages sharing a row import nothing of
// each other.
const designDoc = "docs/design.md"

const module = "github.com/sextant-dev/sextant/"

// sdkPrefix is the MCP SDK's module, which only internal/mcpserver imports.
const sdkPrefix = "github.com/modelcontextprotocol/"

// layersHeading starts the section whose first table is the layer table.
var layersHeading = regexp.MustCompile(`^#{1,6}\s+Layers\b`)

// codeSpan is one `...` span of a table cell.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// parseLayers reads the layer table of a design document: the first
// Markdown table with the header | package | responsibility | under the
// Layers heading. Each row is a layer, bottom to top; the packages are
// the code spans of its first cell (several, comma-separated, for
// packages on one layer).
func parseLayers(doc string) ([][]string, error) {
	sc := bufio.NewScanner(strings.NewReader(doc))
	inSection, inTable := false, false
	var layers [][]string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			if inTable {
				break
			}
			inSection = layersHeading.MatchString(line)
			continue
		}
		if !inSection {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break // the table ended
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !inTable {
			if len(cells) < 2 || strings.TrimSpace(cells[0]) != "package" || strings.TrimSpace(cells[1]) != "responsibility" {
				return nil, fmt.Errorf("the table under the Layers heading starts %q, want | package | responsibility |", line)
			}
			inTable = true
			continue
		}
		first := strings.TrimSpace(cells[0])
		if strings.Trim(first, "-: ") == "" {
			continue // the delimiter row
		}
		var layer []string
		for _, m := range codeSpan.FindAllStringSubmatch(first, -1) {
			layer = append(layer, strings.TrimSuffix(m[1], "/"))
		}
		if len(layer) == 0 {
			return nil, fmt.Errorf("layer table row %q names no package in backquotes", line)
		}
		layers = append(layers, layer)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(layers) == 0 {
		return nil, errors.New("no layer table (| package | responsibility |) under a Layers heading")
	}
	return layers, nil
}

// pkgImports is one package of go list: its path and its imports.
type pkgImports struct {
	ImportPath string
	Imports    []string
}

// layerOf returns the layer of the longest table entry that pkg (a
// module-relative path) is or is under: a package the table does not
// name sits on its nearest named parent's layer.
func layerOf(layers [][]string, rel string) (int, bool) {
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

// checkLayers returns every breach of the layer table by pkgs: a
// package of the module's internal/ or cmd/ trees the table does not
// place, an import that does not point down the table, and the MCP SDK
// imported by a package of the table other than internal/mcpserver. A
// table row naming a package that does not exist is no breach. Packages
// outside the table and outside internal/ and cmd/ (bench/, e2e/, the
// root's tests) may import any layer, and the SDK as clients.
func checkLayers(layers [][]string, pkgs []pkgImports) []string {
	var bad []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		from, ok := layerOf(layers, rel)
		if !ok {
			if strings.HasPrefix(rel, "internal/") || strings.HasPrefix(rel, "cmd/") {
				bad = append(bad, fmt.Sprintf("%s is in no layer of %s; add it to the layer table", rel, designDoc))
			}
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, sdkPrefix) && rel != "internal/mcpserver" {
				bad = append(bad, fmt.Sprintf("%s imports the MCP SDK (%s); only internal/mcpserver may", rel, imp))
			}
		}
		for _, imp := range p.Imports {
			irel, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			to, ok := layerOf(layers, irel)
			if !ok {
				continue // reported as the imported package's own breach
			}
			if to >= from {
				bad = append(bad, fmt.Sprintf("%s (layer %d, %s) imports %s (layer %d, %s): imports must point down the layer table of %s",
					rel, from+1, strings.Join(layers[from], ", "), irel, to+1, strings.Join(layers[to], ", "), designDoc))
			}
		}
	}
	return bad
}

// TestLayers enforces the layer table of docs/design.md on the module's
// packages, as go list sees them.
func TestLayers(t *testing.T) {
	doc, err := os.ReadFile(designDoc)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := parseLayers(string(doc))
	if err != nil {
		t.Fatalf("%s: %v", designDoc, err)
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgImports
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkgImports
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	placed := 0
	for _, p := range pkgs {
		if rel, ok := strings.CutPrefix(p.ImportPath, module); ok {
			if _, ok := layerOf(layers, rel); ok {
				placed++
			}
		}
	}
	if placed < 10 {
		t.Fatalf("only %d packages matched the layer table; is go list seeing the module?", placed)
	}
	for _, b := range checkLayers(layers, pkgs) {
		t.Error(b)
	}
}

// layersFixture is a design document in miniature: prose, a table that is
// not the layer table, and the layer table with a shared row.
const layersFixture = "# Design\n\n| tool | what |\n| --- | --- |\n| `x` | not a layer |\n\n" +
	"## Layers (bottom to top)\n\nSome prose.\n\n" +
	"| package | responsibility |\n| --- | --- |\n" +
	"| `internal/graph` | the domain, with `Store` |\n" +
	"| `internal/store/sqlite`, `internal/store/postgres` | the two stores |\n" +
	"| `internal/query` | the tools |\n" +
	"| `internal/future` | not written yet |\n" +
	"| `internal/mcpserver` | MCP |\n" +
	"| `cmd/sextant/` | main |\n\n" +
	"A paragraph after.\n\n| package | responsibility |\n| --- | --- |\n| `internal/ignored` | a later table |\n"

func TestParseLayers(t *testing.T) {
	got, err := parseLayers(layersFixture)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"internal/graph"},
		{"internal/store/sqlite", "internal/store/postgres"},
		{"internal/query"},
		{"internal/future"},
		{"internal/mcpserver"},
		{"cmd/sextant"},
	}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Errorf("parseLayers = %q, want %q", got, want)
	}
	for name, doc := range map[string]string{
		"no heading":   "| package | responsibility |\n| --- | --- |\n| `internal/graph` | x |\n",
		"wrong header": "## Layers\n\n| pkg | what |\n| --- | --- |\n| `internal/graph` | x |\n",
		"bare cell":    "## Layers\n\n| package | responsibility |\n| --- | --- |\n| internal/graph | x |\n",
	} {
		if l, err := parseLayers(doc); err == nil {
			t.Errorf("%s: parseLayers = %q, want an error", name, l)
		}
	}
}

func TestCheckLayers(t *testing.T) {
	layers, err := parseLayers(layersFixture)
	if err != nil {
		t.Fatal(err)
	}
	m := func(rel string) string { return module + rel }
	ok := []pkgImports{
		{m("internal/graph"), []string{"fmt"}},
		{m("internal/store/sqlite"), []string{m("internal/graph"), "database/sql"}},
		{m("internal/store/postgres/pgtest"), []string{"os"}}, // under a named package: its layer
		{m("internal/query"), []string{m("internal/graph"), m("internal/store/sqlite")}},
		{m("internal/mcpserver"), []string{m("internal/query"), sdkPrefix + "go-sdk/mcp"}},
		{m("cmd/sextant"), []string{m("internal/mcpserver")}},
		{m("e2e"), []string{m("cmd/sextant"), sdkPrefix + "go-sdk/mcp"}}, // outside the table: anything below
		{"example.com/other", []string{m("cmd/sextant")}},
	}
	// internal/future is in the table but in no package: allowed.
	if bad := checkLayers(layers, ok); len(bad) != 0 {
		t.Errorf("a module that keeps the table: %q", bad)
	}
	for _, c := range []struct {
		name string
		pkg  pkgImports
		want string
	}{
		{"upward import", pkgImports{m("internal/graph"), []string{m("internal/query")}}, "internal/graph (layer 1, internal/graph) imports internal/query (layer 3"},
		{"same row", pkgImports{m("internal/store/sqlite"), []string{m("internal/store/postgres")}}, "imports internal/store/postgres (layer 2"},
		{"own layer by prefix", pkgImports{m("internal/store/postgres/pgtest"), []string{m("internal/store/sqlite")}}, "internal/store/postgres/pgtest (layer 2"},
		{"missing internal package", pkgImports{m("internal/session"), []string{m("internal/graph")}}, "internal/session is in no layer"},
		{"missing command", pkgImports{m("cmd/other"), nil}, "cmd/other is in no layer"},
		{"SDK outside mcpserver", pkgImports{m("internal/query"), []string{sdkPrefix + "go-sdk/jsonrpc"}}, "internal/query imports the MCP SDK"},
	} {
		bad := checkLayers(layers, append(slices.Clone(ok), c.pkg))
		if len(bad) != 1 || !strings.Contains(bad[0], c.want) {
			t.Errorf("%s: checkLayers = %q, want one breach containing %q", c.name, bad, c.want)
		}
	}
}
