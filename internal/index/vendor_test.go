package index

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/load"
)

// A module whose go.mod says the go command uses its vendor directory is
// loaded from there: the dependency is in no module cache and nothing is
// downloaded, yet its types resolve.
func TestIndexVendored(t *testing.T) {
	hermetic(t)
	t.Setenv("GOMODCACHE", t.TempDir()) // empty: the dependency is nowhere else
	t.Setenv("GOFLAGS", "-mod=mod")     // replaced as ever
	dir := realDir(t)
	writeFile(t, dir, "go.mod", "module example.com/app\n\ngo 1.22\n\nrequire example.org/dep v1.0.0\n")
	writeFile(t, dir, "app.go", "package app\n\nimport \"example.org/dep\"\n\n// Use returns the vendored type.\nfunc Use() dep.Thing { return dep.Make() }\n")
	writeFile(t, dir, "vendor/modules.txt", "# example.org/dep v1.0.0\n## explicit; go 1.22\nexample.org/dep\n")
	writeFile(t, dir, "vendor/example.org/dep/dep.go", "package dep\n\ntype Thing struct{ N int }\n\nfunc Make() Thing { return Thing{} }\n")

	plan, err := load.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Units) != 1 || !plan.Units[0].Vendor {
		t.Fatalf("units %+v, want one vendored", plan.Units)
	}
	// The go command uses a vendor directory by default only for a
	// go.mod of go 1.14 or later; so does the index.
	old := realDir(t)
	writeFile(t, old, "go.mod", "module example.com/old\n\ngo 1.13\n")
	writeFile(t, old, "vendor/modules.txt", "")
	if plan, err := load.Discover(old); err != nil || len(plan.Units) != 1 || plan.Units[0].Vendor {
		t.Errorf("a go 1.13 module with a vendor directory: units %+v (%v), want one from the module cache", plan.Units, err)
	}
	st := &fakeStore{}
	res, err := Index(context.Background(), st, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := st.writers[len(st.writers)-1]
	pkgs, syms := written(w)
	if !slices.Equal(pkgs, []string{"example.com/app"}) {
		t.Errorf("indexed %q, want the module's package alone (not the vendored one)", pkgs)
	}
	var diags []graph.Diagnostic
	for _, p := range w.packages {
		diags = append(diags, p.Diagnostics...)
	}
	diags = append(diags, w.diags...)
	if len(diags) != 0 || len(res.Unavailable) != 0 {
		t.Errorf("diagnostics %+v, unavailable %+v, want none", diags, res.Unavailable)
	}
	if sig := syms["example.com/app.Use"].Signature; !strings.Contains(sig, "dep.Thing") {
		t.Errorf("Use's signature %q, want the vendored type", sig)
	}
	if !slices.ContainsFunc(w.edges, func(e graph.CallEdge) bool {
		return e.CalleeName == "example.org/dep.Make" || strings.Contains(e.Callee, "example.org/dep")
	}) {
		t.Errorf("no call edge into the vendored dep.Make among %+v", w.edges)
	}
}
