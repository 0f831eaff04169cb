package index

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sextant-dev/sextant/internal/load"
)

// TestIndexDownloadsNothing indexes a module whose go.mod requires a
// module that is in no module cache, with a go.sum line for it, and
// GOPROXY pointing at a module proxy on loopback that records what it is
// asked. By default the go command asks nothing, whatever GOPROXY and
// GOFLAGS say, and the diagnostic says Sextant does not download; with
// load.NetworkEnv on, the proxy is asked, and the diagnostic says the
// download failed.
func TestIndexDownloadsNothing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		network string
		asked   bool
		says    []string
	}{
		{"default", "", false, []string{"not in the module cache", "Sextant does not download modules", "go mod download example.com/missing", load.NetworkEnv + "=on"}},
		{"opt-in", "on", true, []string{"could not be downloaded", "go mod download example.com/missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				asked = append(asked, r.Method+" "+r.URL.Path)
				mu.Unlock()
				http.NotFound(w, r)
			}))
			defer proxy.Close()
			t.Setenv("GOPROXY", proxy.URL)
			t.Setenv("GOSUMDB", "off")
			t.Setenv("GOFLAGS", "-mod=mod")
			t.Setenv("GOMODCACHE", t.TempDir())
			t.Setenv(load.NetworkEnv, tc.network)

			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, "go.mod", "module example.com/app\n\ngo 1.22\n\nrequire example.com/missing v1.0.0\n")
			writeFile(t, dir, "go.sum", "example.com/missing v1.0.0 h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"+
				"example.com/missing v1.0.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n")
			writeFile(t, dir, "a.go", "package app\n\nimport \"example.com/missing/m\"\n\nfunc A() int { return m.X }\n")

			st := &fakeStore{}
			res, err := Index(context.Background(), st, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			got := asked
			mu.Unlock()
			if (len(got) > 0) != tc.asked {
				t.Errorf("the module proxy was asked %q; want asked: %v", got, tc.asked)
			}
			if len(res.Unavailable) != 1 {
				t.Fatalf("Unavailable = %+v, want one diagnostic", res.Unavailable)
			}
			d := res.Unavailable[0]
			for _, s := range tc.says {
				if !strings.Contains(d.Message, s) {
					t.Errorf("the diagnostic does not say %q: %s", s, d.Message)
				}
			}
		})
	}
}

// TestIndexReplaceOutsideRoot: a go.mod whose replace directive points at
// a directory outside the root is not followed (the go command would
// read the Go files there), and the diagnostic says why, not that the
// module should be downloaded.
func TestIndexReplaceOutsideRoot(t *testing.T) {
	hermetic(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, other := filepath.Join(base, "repo"), filepath.Join(base, "other")
	writeFile(t, other, "go.mod", "module example.com/other\n\ngo 1.22\n")
	writeFile(t, other, "o.go", "package other\n\nconst X = 424242\n")
	writeFile(t, dir, "go.mod", "module example.com/app\n\ngo 1.22\n\nrequire (\n\texample.com/other v0.0.0\n\texample.com/inside v0.0.0\n)\n\n"+
		"replace example.com/other => ../other\n\nreplace example.com/inside => ./inside\n")
	writeFile(t, dir, "inside/go.mod", "module example.com/inside\n\ngo 1.22\n")
	writeFile(t, dir, "inside/i.go", "package inside\n\nconst I = 7\n")
	writeFile(t, dir, "a.go", "package app\n\nimport (\n\t\"example.com/inside\"\n\t\"example.com/other\"\n)\n\nconst Y = other.X + inside.I\n")
	st := &fakeStore{}
	res, err := Index(context.Background(), st, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := st.writers[len(st.writers)-1]
	for _, p := range w.packages {
		for _, s := range p.Symbols {
			if strings.Contains(s.Signature, "424242") || strings.Contains(s.Signature, "424249") {
				t.Errorf("a value from outside the root was indexed: %s", s.Signature)
			}
		}
	}
	if len(res.Unavailable) != 1 {
		t.Fatalf("Unavailable = %+v, want one diagnostic", res.Unavailable)
	}
	d := res.Unavailable[0]
	for _, s := range []string{"module example.com/other", "replaced by ../other", "outside the root", "package example.com/app is indexed without its types"} {
		if !strings.Contains(d.Message, s) {
			t.Errorf("the diagnostic does not say %q: %s", s, d.Message)
		}
	}
	for _, d := range w.diags {
		if strings.Contains(d.Message, "go mod download") || strings.Contains(d.Message, "example.com/inside") {
			t.Errorf("wrong diagnostic: %s", d.Message)
		}
	}
}
