package effects_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// xtoolsPackages are packages of golang.org/x/tools that import only the
// standard library and each other: the test indexes them as a module of
// their own, copied out of the module cache (golang.org/x/tools is a
// dependency of this module, so the pinned version is there after a
// build), without their tests.
var xtoolsPackages = []string{
	"txtar", "cover", "go/ast/astutil", "go/buildutil", "go/ast/edge", "go/ast/inspector", "go/cfg",
	"refactor/importgraph", "internal/diff", "internal/diff/lcs",
}

// xtoolsCopy copies xtoolsPackages into a fresh module directory, or
// skips the test loudly when the module is not in the module cache.
func xtoolsCopy(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/tools").Output()
	src := strings.TrimSpace(string(out))
	if err != nil || src == "" {
		t.Skipf("SKIPPED LOUDLY: golang.org/x/tools is not in the module cache (%v); the x/tools rows were NOT checked", err)
	}
	if _, err := os.Stat(filepath.Join(src, "txtar", "archive.go")); err != nil {
		t.Skipf("SKIPPED LOUDLY: golang.org/x/tools source missing at %s (%v); the x/tools rows were NOT checked", src, err)
	}
	dst, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range xtoolsPackages {
		entries, err := os.ReadDir(filepath.Join(src, p))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, p, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dst, p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, p, e.Name()), b, fs.FileMode(0o644)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "go.mod"), []byte("module golang.org/x/tools\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// xtoolsCases are functions of those packages with rows checked by hand
// against their source (the comment says what causes each effect).
var xtoolsCases = []struct{ name, want string }{
	{"golang.org/x/tools/txtar.Parse", ""},
	{"golang.org/x/tools/txtar.Format", ""},
	{"golang.org/x/tools/txtar.ParseFile", "fs"},                              // os.ReadFile
	{"golang.org/x/tools/cover.ParseProfiles", "fs open"},                     // os.Open; a reader of unknown type to bufio
	{"golang.org/x/tools/cover.ParseProfilesFromReader", "open"},              // bufio.NewScanner(rs io.Reader)
	{"golang.org/x/tools/go/ast/astutil.Unparen", ""},                         // ast.Unparen
	{"golang.org/x/tools/go/ast/astutil.DeleteImport", "panic"},               // DeleteNamedImport's consistency panic
	{"golang.org/x/tools/go/ast/astutil.UsesImport", "panic"},                 // panics without object resolution
	{"golang.org/x/tools/go/ast/inspector.New", "panic"},                      // walk: unexpected node type; index overflow
	{"golang.org/x/tools/go/ast/edge.Kind.Get", "panic reflect"},              // reflect.ValueOf(n).Elem().Field; type mismatch panic
	{"golang.org/x/tools/go/ast/edge.Kind.String", "reflect"},                 // reflect.Type.String of the node type
	{"golang.org/x/tools/go/buildutil.ReadDir", "fs"},                         // ioutil.ReadDir unless ctxt.ReadDir
	{"golang.org/x/tools/go/buildutil.OpenFile", "fs"},                        // os.Open unless ctxt.OpenFile
	{"golang.org/x/tools/go/buildutil.IsDir", "fs"},                           // os.Stat unless ctxt.IsDir
	{"golang.org/x/tools/refactor/importgraph.Build", "fs spawn chan sync"},   // go func, semaphore channel, WaitGroup, Mutex, parsing files
	{"golang.org/x/tools/go/cfg.New", "panic open"},                           // builder panics; mayReturn is a func value from the caller
	{"golang.org/x/tools/internal/diff/lcs.DiffBytes", "exit? panic? stdio?"}, // lcs.fix's log.Fatalf, old.go's panics, through the sequences interface
	{"golang.org/x/tools/internal/diff.Strings", "exit? panic? stdio?"},       // through lcs
}

// TestXTools checks the rows of xtoolsCases, indexing the packages with
// the real indexer.
func TestXTools(t *testing.T) {
	ix := indexDir(t, xtoolsCopy(t))
	var keys []string
	for _, c := range xtoolsCases {
		s, ok := ix.full[c.name]
		if !ok {
			t.Errorf("%s: not in the index", c.name)
			continue
		}
		keys = append(keys, s.Key)
	}
	recs, err := ix.r.EffectRecords(t.Context(), keys)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]graph.EffectRecord{}
	for _, r := range recs {
		rows[r.Function] = append(rows[r.Function], r)
	}
	for _, c := range xtoolsCases {
		if s, ok := ix.full[c.name]; ok {
			checkRow(t, c.name, rows[s.Key], c.want)
		}
	}
}
