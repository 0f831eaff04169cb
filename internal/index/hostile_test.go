//go:build unix

package index_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// TestHostileFiles indexes a root holding .go symlinks out of it and
// special files into the real SQLite store: no byte of a file outside the
// root reaches the database, a symlink inside the root stays indexed,
// indexing does not block on the FIFOs, each skipped file has a
// diagnostic, and no go command is left running in the root.
func TestHostileFiles(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	fifo := func(name string) {
		t.Helper()
		if err := syscall.Mkfifo(filepath.Join(root, name), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	write(filepath.Join(root, "go.mod"), "module example.com/h\n\ngo 1.22\n")
	write(filepath.Join(root, "a.go"), "package h\n\n// A is ordinary.\nfunc A() int { return 1 }\n")
	write(filepath.Join(root, "lib", "lib.go"), "package lib\n\n// L is ordinary.\nfunc L() {}\n")
	write(filepath.Join(root, "shared", "y.txt"), "package h\n\n// Inside is InsideDoc, linked from inside the root.\nfunc Inside() string { return \"InsideString\" }\n")
	write(filepath.Join(outside, "p.go"), "package h\n\n// Outside is SECRETDOC.\nfunc Outside(secretParam int) string { return \"SECRETSTRING\" }\n")
	write(filepath.Join(outside, "passwd"), "secretword:x:0:0:root:/root:/bin/bash\n")
	link(filepath.Join(outside, "p.go"), "z.go")
	link(filepath.Join(outside, "passwd"), "passwd.go")
	link("../../outside/p.go", "lib/rel.go")
	link("shared/y.txt", "y.go")
	fifo("pipe.go")
	fifo("lib/pipe.s")
	fifo("notes.txt")
	fifo("go.work")
	fifo("lib/go.sum")

	dbPath := filepath.Join(base, "sextant.db")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
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
	if took > 40*time.Second {
		t.Errorf("indexing took %s: it waited on a FIFO", took)
	}
	if left := processesIn(root); len(left) > 0 {
		t.Errorf("processes left running in the root: %v", left)
	}

	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Inside"})
	if err != nil || len(syms) != 1 || !strings.Contains(syms[0].Doc, "InsideDoc") {
		t.Errorf("the symlink inside the root: symbols %+v, %v; want Inside with its doc", syms, err)
	}
	if syms, _, _ := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Outside"}); len(syms) != 0 {
		t.Errorf("a file outside the root was indexed: %+v", syms)
	}
	diags, err := r.Diagnostics(ctx, res.Repository.Name, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	want := map[string]string{"z.go": "symbolic link", "passwd.go": "symbolic link", "lib/rel.go": "symbolic link",
		"pipe.go": "FIFO", "lib/pipe.s": "FIFO", "notes.txt": "FIFO", "go.work": "FIFO", "lib/go.sum": "FIFO"}
	for _, d := range diags {
		if w, ok := want[d.Path]; ok && strings.Contains(d.Message, w) && strings.Contains(d.Message, "not read") {
			delete(want, d.Path)
		}
	}
	if len(want) > 0 {
		t.Errorf("no diagnostic for the skipped files %v; diagnostics: %+v", want, diags)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	var stored []byte
	for _, p := range []string{dbPath, dbPath + "-wal"} {
		b, err := os.ReadFile(p)
		if err == nil {
			stored = append(stored, b...)
		}
	}
	if !bytes.Contains(stored, []byte("InsideDoc")) {
		t.Fatal("the database does not hold the inside file's doc: the byte check below would prove nothing")
	}
	for _, secret := range []string{"SECRETDOC", "SECRETSTRING", "secretParam", "secretword"} {
		if bytes.Contains(stored, []byte(secret)) {
			t.Errorf("the database holds %q, from a file outside the root", secret)
		}
	}
}

// processesIn lists the processes whose working directory is dir or
// below it.
func processesIn(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil || (cwd != dir && !strings.HasPrefix(cwd, dir+"/")) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}
