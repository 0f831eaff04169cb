package query

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/index"
)

// The overview says what the index skipped: here a module a go.work uses
// whose directory is missing, while the other module is indexed.
func TestOverviewSkipped(t *testing.T) {
	f := indexFixture(t, func() string {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			"go.work":  "go 1.22\n\nuse (\n\t./a\n\t./gone\n)\n",
			"a/go.mod": "module example.com/a\n\ngo 1.22\n",
			"a/a.go":   "package a\n\nfunc A() {}\n",
		}
		for name, body := range files {
			path := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	})
	ov := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview", `{}`)
	if ov.Packages != 1 || len(ov.Skipped) != 1 || !strings.HasPrefix(ov.Skipped[0], "go.work:5: go.work uses ./gone") {
		t.Fatalf("packages %d, skipped %q, want a's package and ./gone at go.work:5", ov.Packages, ov.Skipped)
	}
	if !strings.Contains(ov.Text(), "skipped: "+ov.Skipped[0]) {
		t.Errorf("the overview's text does not say it:\n%s", ov.Text())
	}
}

// The overview says which build configuration the snapshot was indexed
// with: GOOS, GOARCH and the build tags of GOFLAGS, which pick another. It
// is what the index recorded, not what the reading process would load.
func TestOverviewBuild(t *testing.T) {
	f := newFixture(t, filepath.Join("testdata", "protocol.txtar")) // indexed for linux/amd64 with no tags
	t.Setenv("GOOS", "windows")
	t.Setenv("GOARCH", "arm64")
	t.Setenv("GOFLAGS", "-mod=mod -tags=integration,e2e")
	if _, err := index.Index(context.Background(), f.store, f.dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOS", "linux") // the reading process's own configuration must not leak into the answer
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOFLAGS", "-mod=mod")
	ov := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview", `{}`)
	if want := "GOOS=windows GOARCH=arm64 tags=integration,e2e"; ov.Build != want {
		t.Errorf("build %q, want %q", ov.Build, want)
	}
	if !strings.Contains(ov.Text(), "build: GOOS=windows GOARCH=arm64 tags=integration,e2e") {
		t.Errorf("the overview's text does not say it:\n%s", ov.Text())
	}
}
