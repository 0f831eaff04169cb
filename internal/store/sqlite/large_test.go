package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	refs  []graph.Ref
	edges []graph.CallEdge
}

// The cross-references of largeSnapshot: two references and two thirds of
// a call edge per symbol, shaped like golang.org/x/tools (about 300k refs
// and 100k edges). Most targets have a handful of uses; hotTarget (the
// first symbol) is used hotUses times from all over, like a common helper.
const (
	largeRefs  = 300000
	largeEdges = 100000
	hotUses    = 2000
)

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
		out = append(out, pkgRecords{pkg: pkg, files: files, syms: syms})
	}
	addLargeXrefs(out)
	return out
}

// addLargeXrefs adds largeRefs references and largeEdges call edges to
// the packages of a largeSnapshot, each written with the package it is in.
// Every ref and edge of symbol i's body points at symbols spread over the
// whole snapshot; one reference in 150 (hotUses in all) is to the first
// symbol, and one edge in 50 is to it.
func addLargeXrefs(pkgs []pkgRecords) {
	var all []graph.Symbol
	for _, p := range pkgs {
		all = append(all, p.syms...)
	}
	n := len(all)
	refsPer, edgesPer := largeRefs/n, largeEdges*3/n // per symbol; edges on every third symbol
	kinds := []graph.RefKind{graph.RefCall, graph.RefRead, graph.RefType, graph.RefRead, graph.RefWrite}
	for p := range pkgs {
		pk := &pkgs[p]
		for k, s := range pk.syms {
			i := p*150 + k // packages hold 150 symbols
			for j := range refsPer {
				t := all[(i*7919+j*104729)%n]
				if (i*refsPer+j)%(largeRefs/hotUses) == 0 {
					t = all[0]
				}
				pk.refs = append(pk.refs, graph.Ref{Target: t.Key, Path: s.Path, Line: s.StartLine + j + 1,
					Col: 2 + j, EndCol: 2 + j + len(t.Name), Enclosing: s.Key, Kind: kinds[(i+j)%len(kinds)],
					TestOnly: i%10 == 0})
			}
			if i%3 != 0 {
				continue
			}
			for j := range edgesPer {
				c := all[(i*31+j*7)%n]
				if (i+j)%50 == 0 {
					c = all[0]
				}
				e := graph.CallEdge{Caller: s.Key, Callee: c.Key, Path: s.Path, Line: s.StartLine + j + 1, Col: 3,
					Coverage: graph.CoverageExact, Via: graph.ViaStatic}
				switch (i + j) % 10 {
				case 7:
					e.Coverage, e.Via = graph.CoverageCandidate, graph.ViaInterface
				case 8:
					e.Callee, e.CalleeName = "", fmt.Sprintf("fmt.Sprint%d", j)
				case 9:
					e.Callee, e.Coverage, e.Via = "", graph.CoverageUnresolved, graph.ViaFuncValue
				}
				pk.edges = append(pk.edges, e)
			}
		}
	}
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
		symbolsWritten, cpuSyms := time.Since(start), cpuTime()
		for _, r := range recs {
			if err := w.AddRefs(ctx, r.refs); err != nil {
				t.Fatal(err)
			}
			if err := w.AddCallEdges(ctx, r.edges); err != nil {
				t.Fatal(err)
			}
		}
		written, cpu1 := time.Since(start), cpuTime()
		if _, err := w.Publish(ctx); err != nil {
			t.Fatal(err)
		}
		// Publish inserts the buffered cross-references, commits, then
		// collects the previous snapshot (none in round 0).
		t.Logf("round %d: AddPackage of %d symbols %v (cpu %v); AddRefs+AddCallEdges of %d refs and %d edges %v "+
			"(cpu %v); Publish %v (cpu %v); total %v (cpu %v)",
			round, n, symbolsWritten.Round(time.Millisecond), (cpuSyms - cpu0).Round(time.Millisecond),
			largeRefs, largeEdges, (written - symbolsWritten).Round(time.Millisecond), (cpu1 - cpuSyms).Round(time.Millisecond),
			(time.Since(start) - written).Round(time.Millisecond), (cpuTime() - cpu1).Round(time.Millisecond),
			time.Since(start).Round(time.Millisecond), (cpuTime() - cpu0).Round(time.Millisecond))
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

	hot := largeSnapshot("tools", 2000)[0].syms[0].Key // the first symbol of the snapshot
	for _, q := range []graph.RefQuery{
		{Targets: []string{hot}, Limit: 50},
		{Targets: []string{hot}, Limit: 50},
		{Targets: []string{hot}, Limit: 50, IncludeTests: true},
		{Targets: []string{hot}, Limit: 50, Offset: 1000, IncludeTests: true},
		{Targets: []string{hot}, Limit: 50, Kinds: []graph.RefKind{graph.RefCall}, PathPrefix: "internal/pkg1"},
		{Targets: []string{exact.Key}, Limit: 50, IncludeTests: true},
	} {
		start := time.Now()
		refs, total, err := r.Refs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Refs(%+v): %d of %d in %v", q, len(refs), total, time.Since(start))
	}
	for _, q := range []graph.EdgeQuery{
		{Callees: []string{hot}},
		{Callees: []string{hot}},
		{Callees: []string{hot}, Coverage: []graph.Coverage{graph.CoverageCandidate}},
		{Callers: []string{some[3].Key}},
		{Callees: []string{exact.Key}},
	} {
		start := time.Now()
		edges, err := r.CallEdges(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("CallEdges(callers %d, callees %d, coverage %v): %d in %v", len(q.Callers), len(q.Callees), q.Coverage,
			len(edges), time.Since(start))
	}
	start = time.Now()
	unresolved, err := r.UnresolvedCalls(ctx, "tools")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("UnresolvedCalls: %d in %v", unresolved, time.Since(start))
	// Sizes of the cross-reference tables and indexes (each index after
	// its table).
	for _, name := range [][2]string{{"refs", "refs"}, {"refs_target", "refs"}, {"calls_by_caller", "calls_by_caller"},
		{"calls_caller", "calls_by_caller"}, {"calls_by_callee", "calls_by_callee"}, {"calls_callee", "calls_by_callee"},
		{"interned", "interned"}, {"interned_value", "interned"}} {
		var rows, bytes int64
		s.rdb.QueryRow(`SELECT count(*) FROM ` + name[1]).Scan(&rows)
		if err := s.rdb.QueryRow(`SELECT sum(pgsize) FROM dbstat WHERE name = ?`, name[0]).Scan(&bytes); err == nil {
			t.Logf("%s: %.1f MB for %d rows (%.0f bytes a row)", name[0], float64(bytes)/1e6, rows,
				float64(bytes)/float64(max(rows, 1)))
		} else {
			t.Logf("%s: %d rows", name[0], rows)
		}
	}
	var pages, free, size int64
	s.rdb.QueryRow(`PRAGMA page_count`).Scan(&pages)
	s.rdb.QueryRow(`PRAGMA freelist_count`).Scan(&free)
	s.rdb.QueryRow(`PRAGMA page_size`).Scan(&size)
	t.Logf("database: %.1f MB, of which %.1f MB free pages", float64(pages*size)/1e6, float64(free*size)/1e6)
}
