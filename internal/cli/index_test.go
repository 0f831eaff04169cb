package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// `sextant index` publishes the complete snapshot alone; with --staged,
// a first index publishes its syntax and types stages before it, as
// serve does, and shows them in its progress.
func TestIndexStaged(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := writeTree(t, map[string]string{
		"go.mod": "module example.com/st\n\ngo 1.24\n",
		"a.go":   "package st\n\nfunc A() {}\n",
	})
	for _, c := range []struct {
		flags    []string
		snapshot string
		syntax   bool
	}{
		{nil, "snapshot 1:", false},
		{[]string{"--staged"}, "snapshot 3:", true},
	} {
		args := append(append([]string{"index"}, c.flags...), "--db", filepath.Join(t.TempDir(), "db"), dir)
		out, errOut, code := cliRun(args...)
		if code != 0 {
			t.Fatalf("%v exited %d: %s%s", args, code, out, errOut)
		}
		if !strings.Contains(out, c.snapshot) || strings.Contains(errOut, ": syntax 1/1") != c.syntax || strings.Contains(errOut, ": types 1/1") != c.syntax {
			t.Errorf("%v: want %q and syntax and types stages %v; got\n%s%s", c.flags, c.snapshot, c.syntax, out, errOut)
		}
	}
}

// `sextant index` succeeds on a repository with a required module that
// cannot be loaded, and says on stderr which one, coded INDEXING_FAILED.
func TestIndexNamesUnavailableModule(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := writeTree(t, map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.24\n\nrequire github.com/nobody/absent v1.2.3\n",
		"a.go":   "package app\n\nimport \"github.com/nobody/absent\"\n\nfunc A() int { return absent.X }\n\nfunc B() {}\n",
	})
	out, errOut, code := cliRun("index", "--db", filepath.Join(t.TempDir(), "db"), dir)
	if code != 0 || !strings.Contains(out, "snapshot") {
		t.Fatalf("index exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "go.mod:5: INDEXING_FAILED: module github.com/nobody/absent v1.2.3 could not be loaded") {
		t.Errorf("stderr does not name the unavailable module:\n%s", errOut)
	}
}

// writeTree writes files (relative path → content) into a new temporary
// directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A server's first index of a root whose call graph was resolved with
// CHA to answer sooner (index.Result.Coarse) is followed at once by a
// whole index, which resolves it with VTA: the interface call in a, on
// a value that is always an A, no longer lists B.M.
func TestServeRefinesCoarseCallGraph(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	old := firstMaxVTACalls
	firstMaxVTACalls = -1 // CHA for every first index
	t.Cleanup(func() { firstMaxVTACalls = old })
	dir := writeTree(t, map[string]string{
		"go.mod": "module example.com/coarse\n\ngo 1.24\n",
		"coarse.go": `package coarse

type I interface{ M() int }

type A struct{}

func (A) M() int { return 1 }

type B struct{}

func (B) M() int { return 2 }

func a() int {
	var i I = A{}
	return i.M()
}

func b() I { return B{} }

func Use() int { return a() + b().M() }
`,
	})
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The caller rows: "  16 a [candidate interface] at 17:9".
	callers := func() []string {
		out, errOut, code := cliRun("get_callers", "--db", st.Path(), "--root", dir, "B.M")
		if code != 0 {
			t.Errorf("get_callers exited %d: %s%s", code, out, errOut)
		}
		var names []string
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 2 && strings.HasPrefix(f[2], "[") {
				names = append(names, f[1])
			}
		}
		return names
	}
	// The whole index starts only once the first publication has been
	// announced: the first snapshot is read there, before it can start.
	var first []string
	published := make(chan string, 4)
	idx := indexFunc(st, func(root string) {
		if first == nil {
			first = callers()
		}
		published <- root
	})
	if err := idx(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	<-published
	if !slices.Equal(first, []string{"a", "Use"}) && !slices.Equal(first, []string{"Use", "a"}) {
		t.Fatalf("the first snapshot's callers of B.M are %v, want a and Use (CHA)", first)
	}
	select {
	case <-published:
	case <-time.After(2 * time.Minute):
		t.Fatal("no whole index followed the coarse first index")
	}
	if got := callers(); !slices.Equal(got, []string{"Use"}) {
		t.Errorf("after the whole index, callers of B.M are %v, want just Use (VTA)", got)
	}
}
