package webui_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/lsptest"
	"github.com/sextant-dev/sextant/internal/query"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
	"github.com/sextant-dev/sextant/internal/webui"
)

// TestScriptLinks: on the symbol page of a TypeScript or Python
// function, the identifiers the SCIP index resolves link to the pages of
// the symbols they name, as a Go function's link through infer_type.
func TestScriptLinks(t *testing.T) {
	bin := lsptest.NodeBin(t, "the UI's links in TypeScript and Python source", "scip-typescript", "scip-python")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("SEXTANT_SCIP", "")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := txtartest.Write(t, "../index/testdata/scip/mixed.txtar")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Index(ctx, st, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	svc, err := query.New(st, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	h, err := webui.New(svc, webui.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	// keys are the declarations of a file by name, members as Type.name.
	keys := func(file string) map[string]string {
		tl, _ := query.LookupTool("get_file_outline")
		args, _ := json.Marshal(map[string]string{"path": file, "response_format": "detailed"})
		a, err := tl.Call(ctx, svc, args, nil)
		if err != nil {
			t.Fatalf("outline of %s: %v", file, err)
		}
		out := map[string]string{}
		for _, f := range a.(*query.GetFileOutlineOutput).Results {
			for _, e := range f.Entries {
				out[e.Name] = e.StableKey
				for _, m := range e.Members {
					out[e.Name+"."+m.Name] = m.StableKey
				}
			}
		}
		return out
	}
	link := regexp.MustCompile(`<a class="id" href="/symbol\?key=([A-Z0-9]+)">([^<]*)</a>`)
	for _, c := range []struct {
		file, symbol string
		links        map[string]string // identifier: the declaration it links to
	}{
		{"web/src/shapes.ts", "main", map[string]string{"totalArea": "totalArea", "Square": "Square"}},
		{"web/src/shapes.ts", "totalArea", map[string]string{"Shape": "Shape", "area": "Shape.area"}},
		{"py/shapes/geometry.py", "main", map[string]string{"total_area": "total_area", "Circle": "Circle"}},
		{"py/shapes/geometry.py", "total_area", map[string]string{"Base": "Base", "area": "Base.area"}},
	} {
		t.Run(c.file+" "+c.symbol, func(t *testing.T) {
			decls := keys(c.file)
			_, page := get(t, srv, "/symbol?key="+decls[c.symbol], false)
			i := strings.Index(page, `<section id="source"`)
			j := i + strings.Index(page[max(i, 0):], `</section>`)
			if i < 0 || j < i {
				t.Fatalf("no source on %s's page:\n%s", c.symbol, page)
			}
			got := map[string]string{}
			for _, m := range link.FindAllStringSubmatch(page[i:j], -1) {
				got[m[2]] = m[1]
			}
			for id, decl := range c.links {
				if want := decls[decl]; want == "" || got[id] != want {
					t.Errorf("%s links to %q, want %s's key %q (links: %v)", id, got[id], decl, want, got)
				}
			}
		})
	}
}
