package query

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The overview, an agent's first call, says which required modules could
// not be loaded, so that answers without their types are not mistaken
// for the whole truth.
func TestOverviewUnavailableModule(t *testing.T) {
	f := indexFixture(t, func() string {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			"go.mod": "module example.com/app\n\ngo 1.24\n\nrequire github.com/nobody/absent v1.2.3\n",
			"a.go":   "package app\n\nimport \"github.com/nobody/absent\"\n\nfunc A() int { return absent.X }\n",
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	})
	ov := ok[*GetRepositoryOverviewOutput](t, f, "get_repository_overview", `{}`)
	if len(ov.Unavailable) != 1 || !strings.HasPrefix(ov.Unavailable[0], "go.mod:5: INDEXING_FAILED: module github.com/nobody/absent v1.2.3 ") {
		t.Fatalf("unavailable = %q, want the absent module at go.mod:5", ov.Unavailable)
	}
	if !strings.Contains(ov.Text(), ov.Unavailable[0]) {
		t.Errorf("the overview's text does not say it:\n%s", ov.Text())
	}

	clean := newFixture(t, filepath.Join("testdata", "protocol.txtar"))
	if ov := ok[*GetRepositoryOverviewOutput](t, clean, "get_repository_overview", `{}`); len(ov.Unavailable) != 0 {
		t.Errorf("a repository with every module has unavailable = %q", ov.Unavailable)
	}
}
