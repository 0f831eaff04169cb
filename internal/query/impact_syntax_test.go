package query

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/blind"
	"github.com/sextant-dev/sextant/internal/impact"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// gitRepo commits files in a fresh git repository, indexes it into a real
// SQLite store, and returns its directory and a Service over it.
func gitRepo(t *testing.T, files map[string]string) (string, *Service) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "before"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := index.Index(ctx, st, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	svc, err := New(st, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return dir, svc
}

// A changed file that does not parse is named as such: the declarations
// the parser lost (all of them when it gives up, as on 100,001 nested
// parentheses) are not reported removed, nor what uses them as broken.
func TestImpactUnparsableFile(t *testing.T) {
	const a = "package p\n\n// A is used by C.\nfunc A() int { return 1 }\n\n// B is used by C.\nfunc B() int { return 2 }\n"
	files := map[string]string{
		"go.mod":    "module example.com/p\n\ngo 1.22\n",
		"a.go":      a,
		"c.go":      "package p\n\nfunc C() int { return A() + B() }\n",
		"c_test.go": "package p\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) { C() }\n",
	}
	deep := strings.Repeat("(", 100_001) + "1" + strings.Repeat(")", 100_001)
	for _, tc := range []struct {
		name, content string
		changed       []string // qualified names reported changed
	}{
		{"parser gives up", "package p\n\nvar X = " + deep + "\n", nil},
		{"one declaration broken", strings.Replace(a, "func B() int {", "func B() int { return (", 1) + "\nfunc D() {}\n", []string{"B"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, svc := gitRepo(t, files)
			if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			tl, _ := LookupTool("get_impact")
			ans, err := tl.Call(context.Background(), svc, []byte(`{"diff":true}`), nil)
			if err != nil {
				t.Fatal(err)
			}
			o := ans.(*GetImpactOutput)
			var changed []string
			for _, c := range o.Changed {
				if c.Change == impact.ChangeRemoved {
					t.Errorf("%s reported removed from a file that does not parse", c.QualifiedName)
				}
				changed = append(changed, c.QualifiedName)
			}
			if strings.Join(changed, " ") != strings.Join(tc.changed, " ") {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if len(o.Breaking) != 0 {
				t.Errorf("breaking changes invented: %+v", o.Breaking)
			}
			spot := ""
			for _, s := range o.BlindSpots {
				if strings.HasPrefix(s, blind.Syntax+": ") {
					spot = s
				}
			}
			if o.Completeness != blind.LowerBound || !strings.Contains(spot, "a.go") {
				t.Errorf("completeness %s, blind spots %q; want lower_bound naming a.go as not parsing", o.Completeness, o.BlindSpots)
			}
			if text := o.Text(); !strings.Contains(text, "a.go") || strings.Contains(text, "comments, layout or imports only") {
				t.Errorf("the text does not say a.go does not parse:\n%s", text)
			}
		})
	}
}
