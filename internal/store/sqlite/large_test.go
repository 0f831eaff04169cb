package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
)

// largeSnapshot writes a snapshot shaped like golang.org/x/tools: n
// symbols in packages of 150, files of 30, with realistic names, docs and
// signatures.
type pkgRecords struct {
	pkg   graph.Package
	files []graph.File
	syms  []graph.Symbol
}

func largeSnapshot(repo string, n int) []pkgRecords {
	var out []pkgRecords
	words := []string{"Server", "Handle", "Mux", "Request", "Parse", "Config", "Load", "Package", "Type", "Info",
		"Object", "Scope", "File", "Set", "Pos", "Node", "Visit", "Walk", "Expr", "Stmt", "Decl", "Spec"}
	const perPkg, perFile = 150, 30
	for p := 0; p*perPkg < n; p++ {
		pkgPath := fmt.Sprintf("golang.org/x/tools/internal/pkg%d", p)
		pkg := graph.Package{Path: pkgPath, Name: fmt.Sprint("pkg", p), ModulePath: "golang.org/x/tools",
			Dir: fmt.Sprint("internal/pkg", p), Hash: strings.Repeat("f", 64)}
		var files []graph.File
		var syms []graph.Symbol
		for i := p * perPkg; i < min((p+1)*perPkg, n); i++ {
			path := fmt.Sprintf("internal/pkg%d/file%d.go", p, (i-p*perPkg)/perFile)
			if (i-p*perPkg)%perFile == 0 {
				files = append(files, graph.File{Path: path, Package: pkgPath, Hash: strings.Repeat("e", 64), Size: 4000})
			}
			name := words[i%len(words)] + words[(i/7)%len(words)] + fmt.Sprint(i%13)
			if i%3 == 0 {
				name = strings.ToLower(name[:1]) + name[1:]
			}
			qn := name
			kind := graph.KindFunc
			if i%4 == 0 {
				qn = words[(i/3)%len(words)] + "." + name
				kind = graph.KindMethod
			}
			syms = append(syms, graph.Symbol{
				Key: graph.StableKey(graph.Identity{Language: "go", Repository: repo, PackagePath: pkgPath,
					QualifiedName: qn + fmt.Sprint(i), Kind: kind}),
				PackagePath: pkgPath, PackageName: pkg.Name, ModulePath: pkg.ModulePath, Path: path,
				Name: name, QualifiedName: qn, Kind: kind, Signature: "func " + name + "(ctx context.Context, x int) error",
				Doc:      name + " does the thing it is named for, and returns an error when it cannot.",
				Exported: i%3 != 0, StartLine: i%500 + 1, StartCol: 1, EndLine: i%500 + 9, EndCol: 2,
			})
		}
		out = append(out, pkgRecords{pkg, files, syms})
	}
	return out
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLargeSnapshot measures writing, querying and collecting a snapshot
// the size of golang.org/x/tools and logs the timings. It takes seconds
// (minutes with -race), so it runs only when SEXTANT_STORE_LARGE is set.
func TestLargeSnapshot(t *testing.T) {
	if os.Getenv("SEXTANT_STORE_LARGE") == "" {
		t.Skip("set SEXTANT_STORE_LARGE=1 to run")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "large.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	repo, _ := s.EnsureRepository(ctx, "/src/tools", "tools")
	const n = 150000
	for round := range 2 {
		recs := largeSnapshot("tools", n)
		start, cpu0 := time.Now(), cpuTime()
		w, err := s.BeginSnapshot(ctx, repo, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := w.AddPackage(ctx, r.pkg, r.files, r.syms, nil); err != nil {
				t.Fatal(err)
			}
		}
		written, cpu1 := time.Since(start), cpuTime()
		if _, err := w.Publish(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: wrote %d symbols in %v (cpu %v), published with collection in %v (cpu %v)",
			round, n, written, cpu1-cpu0, time.Since(start), cpuTime()-cpu0)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	some := largeSnapshot("tools", 2000)[5].syms
	exact, method := some[1], some[4] // a function and a method
	for _, q := range []graph.SymbolQuery{
		{Name: exact.Name, Mode: graph.MatchExact, Limit: 50},
		{Name: exact.Name, Mode: graph.MatchExact, Limit: 50},
		{Name: exact.Name, Mode: graph.MatchExact, Limit: 5},
		{Name: method.QualifiedName, Mode: graph.MatchExact, Limit: 50},
		{Name: strings.ToLower(exact.Name[:6]), Mode: graph.MatchPrefix, Limit: 50},
		{Name: "s", Mode: graph.MatchPrefix, Limit: 50},
		{Name: "handlemux", Mode: graph.MatchSubstring, Limit: 50},
		{Name: "SrvHdl", Mode: graph.MatchFuzzy, Limit: 50},
		{Name: "PkgInf", Mode: graph.MatchFuzzy, Limit: 50},
		{Name: "PkgInf", Mode: graph.MatchFuzzy, Limit: 50, Offset: 50},
	} {
		start := time.Now()
		syms, total, err := r.FindSymbols(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %q: %d of %d in %v", q.Mode, q.Name, len(syms), total, time.Since(start))
	}
	start := time.Now()
	if _, err := r.SymbolByKey(ctx, method.Key); err != nil {
		t.Errorf("SymbolByKey: %v", err)
	}
	t.Logf("SymbolByKey in %v", time.Since(start))
	var pages, free, size int64
	s.rdb.QueryRow(`PRAGMA page_count`).Scan(&pages)
	s.rdb.QueryRow(`PRAGMA freelist_count`).Scan(&free)
	s.rdb.QueryRow(`PRAGMA page_size`).Scan(&size)
	t.Logf("database: %.1f MB, of which %.1f MB free pages", float64(pages*size)/1e6, float64(free*size)/1e6)
}
