//go:build unix

package index_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// TestCgoIncludeOutsideRoot indexes, with a real C compiler at hand, a
// root package whose cgo preamble includes files outside the root (a
// file of secrets, /etc/passwd, /dev/zero): no C toolchain reads them,
// so no byte of them reaches the database, indexing ends promptly
// instead of the compiler allocating without bound, and the package's
// Go files are indexed, references resolved, with a diagnostic saying
// cgo was not run.
func TestCgoIncludeOutsideRoot(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc)")
	}
	t.Setenv("GOPROXY", "off")
	t.Setenv("CGO_ENABLED", "1")
	t.Setenv("CC", "gcc")
	passwd := firstLine(t, "/etc/passwd")
	for _, tc := range []struct {
		name     string
		includes []string // "OUTSIDE" stands for the directory beside the root
	}{
		{"secrets", []string{"OUTSIDE/secret.h", "/etc/passwd"}},
		{"devzero", []string{"/dev/zero"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			root, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
			for _, dir := range []string{root, outside} {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write := func(p, text string) {
				t.Helper()
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(outside, "secret.h"), "SECRETLINE_cgo_quoted: not C at all\n")
			var preamble strings.Builder
			for _, inc := range tc.includes {
				preamble.WriteString("#include \"" + strings.ReplaceAll(inc, "OUTSIDE", outside) + "\"\n")
			}
			write(filepath.Join(root, "go.mod"), "module example.com/cgo\n\ngo 1.22\n")
			write(filepath.Join(root, "c.go"), "package c\n\n/*\n"+preamble.String()+"int add(int a, int b) { return a + b; }\n*/\nimport \"C\"\n\n"+
				"// Add is declared in a cgo file, InsideDoc.\nfunc Add(a, b int) int { return int(C.add(C.int(a), C.int(b))) + helper() }\n\nfunc helper() int { return 0 }\n")
			write(filepath.Join(root, "p.go"), "package c\n\n// Plain calls Add.\nfunc Plain() int { return Add(1, 2) }\n")

			dbPath := filepath.Join(base, "sextant.db")
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			st, err := sqlite.Open(ctx, dbPath)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := index.Index(ctx, st, root, index.Options{})
			took := time.Since(start)
			if err != nil {
				st.Close()
				t.Fatalf("index after %s: %v", took, err)
			}
			if took > 45*time.Second {
				t.Errorf("indexing took %s", took)
			}
			r, err := st.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			add, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Add"})
			if err != nil || len(add) != 1 || !strings.Contains(add[0].Doc, "InsideDoc") {
				t.Fatalf("the cgo file's declaration: symbols %+v, %v; want Add with its doc", add, err)
			}
			helper, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "helper"})
			if err != nil || len(helper) != 1 {
				t.Fatalf("helper: %+v, %v", helper, err)
			}
			for _, w := range []struct {
				target graph.Symbol
				path   string
			}{{add[0], "p.go"}, {helper[0], "c.go"}} {
				refs, _, err := r.Refs(ctx, graph.RefQuery{Targets: []string{w.target.Key}})
				found := false
				for _, ref := range refs {
					found = found || ref.Path == w.path
				}
				if err != nil || !found {
					t.Errorf("references to %s: %+v, %v; want one in %s", w.target.Name, refs, err, w.path)
				}
			}
			diags, err := r.Diagnostics(ctx, res.Repository.Name, 0)
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			said := false
			for _, d := range diags {
				said = said || strings.Contains(d.Message, "cgo was not run")
			}
			if !said {
				t.Errorf("no diagnostic says cgo was not run: %+v", diags)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			var stored []byte
			for _, p := range []string{dbPath, dbPath + "-wal"} {
				if b, err := os.ReadFile(p); err == nil {
					stored = append(stored, b...)
				}
			}
			if !bytes.Contains(stored, []byte("InsideDoc")) {
				t.Fatal("the database does not hold the cgo file's doc: the byte check below would prove nothing")
			}
			for _, secret := range []string{"SECRETLINE_cgo_quoted", passwd} {
				if secret != "" && bytes.Contains(stored, []byte(secret)) {
					t.Errorf("the database holds %q, read by the C compiler from outside the root", secret)
				}
			}
		})
	}
}

// firstLine returns the first line of the file at path, "" if it cannot
// be read.
func firstLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	if s.Scan() {
		return s.Text()
	}
	return ""
}
