package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestAmend amends a published snapshot: the directory replaced is gone
// and its new records are there, the rest is untouched, a reader that
// pinned the base keeps seeing it, a stale base is refused, and the next
// whole snapshot collects the amended data set.
func TestAmend(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	repo, err := s.EnsureRepository(ctx, "/src/amend", "amend")
	if err != nil {
		t.Fatal(err)
	}
	base := publishGeneration(t, s, repo, 1, 200) // p0: G1_0..99, p1: G1_100..199
	find := func(r graph.Reader, name string, mode graph.MatchMode) []graph.Symbol {
		t.Helper()
		syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: name, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		return syms
	}
	before, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	// Warm the name cache, which an amend must not leave stale.
	if got := find(before, "G1_5", graph.MatchFuzzy); len(got) == 0 {
		t.Fatal("fuzzy G1_5 found nothing before the amend")
	}
	target := find(before, "G1_150", graph.MatchExact)[0]
	// And the interned strings Refs names ids by, to which the amend
	// adds some.
	if _, total, err := before.Refs(ctx, graph.RefQuery{Targets: []string{target.Key}, IncludeTests: true}); err != nil || total != 1 {
		t.Fatalf("references to %s before the amend: %d, %v", target.Name, total, err)
	}

	aw, err := s.BeginAmend(ctx, repo, base.ID, "gen1+")
	if err != nil {
		t.Fatal(err)
	}
	if err := aw.RemoveDirs(ctx, []string{"p0"}); err != nil {
		t.Fatal(err)
	}
	pkg := graph.Package{Path: "example.com/amend/p0", Name: "p0", ModulePath: "example.com/amend", Dir: "p0", API: "api"}
	sym := graph.Symbol{Key: graph.StableKey(graph.Identity{Language: "go", Repository: "amend", PackagePath: pkg.Path,
		QualifiedName: "Amended", Kind: graph.KindFunc}), PackagePath: pkg.Path, PackageName: "p0", ModulePath: pkg.ModulePath,
		Path: "p0/new.go", Name: "Amended", QualifiedName: "Amended", Kind: graph.KindFunc, Exported: true,
		StartLine: 3, StartCol: 1, EndLine: 5, EndCol: 2}
	if err := aw.AddPackage(ctx, pkg, []graph.File{{Path: "p0/new.go", Package: pkg.Path, Hash: "h"}}, []graph.Symbol{sym}, nil); err != nil {
		t.Fatal(err)
	}
	if err := aw.AddRefs(ctx, []graph.Ref{{Target: target.Key, Path: "p0/new.go", Line: 4, Col: 2, EndCol: 8,
		Enclosing: sym.Key, Kind: graph.RefCall}}); err != nil {
		t.Fatal(err)
	}
	if err := aw.AddCallEdges(ctx, []graph.CallEdge{{Caller: sym.Key, Callee: target.Key, Path: "p0/new.go", Line: 4, Col: 2,
		Coverage: graph.CoverageExact, Via: graph.ViaStatic}}); err != nil {
		t.Fatal(err)
	}
	amended, err := aw.Publish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if amended.ID <= base.ID || !slices.Equal(amended.Amended, []string{"p0"}) {
		t.Fatalf("amended snapshot %+v after %+v", amended, base)
	}
	checkCalleeTable(t, s)

	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := r.Repository(ctx, "amend")
	if err != nil {
		t.Fatal(err)
	}
	if st.Snapshot.ID != amended.ID || !slices.Equal(st.Snapshot.Amended, []string{"p0"}) || st.Symbols != 101 ||
		st.Packages != 2 || len(st.Modules) != 1 {
		t.Errorf("status after the amend: %+v", st)
	}
	if got := find(r, "G1_5", graph.MatchExact); len(got) != 0 {
		t.Errorf("G1_5 of the replaced directory is still there: %+v", got)
	}
	if got := find(r, "G1_5", graph.MatchFuzzy); slices.ContainsFunc(got, func(s graph.Symbol) bool { return s.Path < "p1" }) {
		t.Errorf("the name cache still has symbols of p0: %d matches", len(got))
	}
	if got := find(r, "Amende", graph.MatchPrefix); len(got) != 1 || got[0].Key != sym.Key {
		t.Errorf("prefix Amende: %+v", got)
	}
	refs, total, err := r.Refs(ctx, graph.RefQuery{Targets: []string{target.Key}, IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	if total != 2 || !slices.ContainsFunc(refs, func(ref graph.Ref) bool { return ref.Path == "p0/new.go" && ref.Enclosing == sym.Key }) {
		t.Errorf("references to %s: %+v", target.Name, refs)
	}
	edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callees: []string{target.Key}})
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) != 2 {
		t.Errorf("callers of %s: %+v", target.Name, edges)
	}
	if diags, err := r.Diagnostics(ctx, "amend", 0); err != nil || len(diags) != 1 || diags[0].Package != "example.com/amend/p1" {
		t.Errorf("diagnostics after the amend: %+v, %v", diags, err)
	}
	if p, err := r.Package(ctx, "amend", pkg.Path); err != nil || p.API != "api" {
		t.Errorf("package %s: %+v, %v", pkg.Path, p, err)
	}

	// The reader pinned before the amend still sees the base.
	if got := find(before, "G1_5", graph.MatchExact); len(got) != 1 {
		t.Errorf("the reader of the base lost G1_5: %+v", got)
	}
	if got := find(before, "Amended", graph.MatchExact); len(got) != 0 {
		t.Errorf("the reader of the base sees the amend: %+v", got)
	}
	old, err := before.Repository(ctx, "amend")
	if err != nil || old.Snapshot.ID != base.ID {
		t.Errorf("the reader of the base reports %+v, %v", old, err)
	}

	// An amend of a base that is no longer current is refused.
	stale, err := s.BeginAmend(ctx, repo, base.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := stale.RemoveDirs(ctx, []string{"p1"}); !errors.Is(err, graph.ErrBaseMoved) {
		t.Errorf("amending a stale base: %v, want ErrBaseMoved", err)
	}
	stale.Abort()

	// Collection keeps the amended data set; a whole snapshot replaces it.
	if err := s.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	if got := find(r, "G1_150", graph.MatchExact); len(got) != 1 {
		t.Errorf("after collection: %+v", got)
	}
	r2, _ := s.Read(ctx)
	if got := find(r2, "Amended", graph.MatchExact); len(got) != 1 {
		t.Errorf("a new reader after collection: %+v", got)
	}
	r2.Close()
	whole := publishGeneration(t, s, repo, 2, 100)
	counts := rowCounts(t, s)
	if len(counts) != 1 || counts[whole.ID] == nil {
		t.Errorf("rows after a whole snapshot follows the amend: %v", counts)
	}
	var ok string
	if err := s.wdb.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check: %q, %v", ok, err)
	}
}

// TestUpgradeFromV4 opens a version 4 database (no amended snapshots): it
// keeps its snapshot, and can be amended.
func TestUpgradeFromV4(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v4.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range slices.Concat(schemaV1, schemaV2, schemaEffects, schemaSearch, []string{
		`INSERT INTO meta (key, value) VALUES ('schema_version', '4')`,
		`INSERT INTO repositories (id, name, root, vcs_head, current_snapshot) VALUES (4, 'tools', '/src/tools', 'abc', 2)`,
		`INSERT INTO snapshots (id, repo_id, created_at, packages, symbols) VALUES (2, 4, 0, 1, 1)`,
		`INSERT INTO packages (snapshot_id, path, name, module_path, dir, hash, test_only, errors) VALUES (2, 'm/p', 'p', 'm', 'p', 'h', 0, 0)`,
		`INSERT INTO units (id, snapshot_id, package_path, package_name, module_path, path) VALUES (1, 2, 'm/p', 'p', 'm', 'p/p.go')`,
		`INSERT INTO symbols (snapshot_id, unit_id, name, lname, kind, exported, test_only, start_line, start_col,
			end_line, end_col, key, receiver, signature, doc) VALUES (2, 1, 'F', 'f', 6, 1, 0, 1, 1, 2, 2, 'K', '', '', '')`,
	}) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 4 database: %v", err)
	}
	defer s.Close()
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.Repository(ctx, "tools")
	r.Close()
	if err != nil || st.Snapshot.ID != 2 || st.Symbols != 1 || len(st.Snapshot.Amended) != 0 {
		t.Fatalf("after the upgrade: %+v, %v", st, err)
	}
	aw, err := s.BeginAmend(ctx, st.Repository, 2, "abc")
	if err != nil {
		t.Fatal(err)
	}
	if err := aw.RemoveDirs(ctx, []string{"p"}); err != nil {
		t.Fatal(err)
	}
	snap, err := aw.Publish(ctx)
	if err != nil || snap.ID <= 2 || !slices.Equal(snap.Amended, []string{"p"}) {
		t.Fatalf("amending the upgraded snapshot: %+v, %v", snap, err)
	}
	r, err = s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if st, err := r.Repository(ctx, "tools"); err != nil || st.Symbols != 0 || st.Packages != 0 {
		t.Errorf("after the amend: %+v, %v", st, err)
	}
}

// checkCalleeTable checks that calls_by_callee holds exactly the call
// sites of calls_by_caller that have a callee, and that every row's
// unresolved count is right.
func checkCalleeTable(t *testing.T, s *Store) {
	t.Helper()
	decode := func(table, key string) []string {
		t.Helper()
		var out []string
		rows, err := s.wdb.Query(`SELECT snapshot_id, ` + key + `, path, sites, ` +
			map[bool]string{true: "unresolved", false: "-1"}[table == "calls_by_caller"] + ` FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var snap, key, path, unresolved int64
			var sites []byte
			if err := rows.Scan(&snap, &key, &path, &sites, &unresolved); err != nil {
				t.Fatal(err)
			}
			u := unpacker{buf: sites}
			n := int64(0)
			for u.more() {
				e := u.site()
				if e.cov == unresolvedCode {
					n++
				}
				caller, callee := key, e.other
				if table == "calls_by_callee" {
					caller, callee = e.other, key
				}
				if callee != 0 {
					out = append(out, fmt.Sprintf("%d %d>%d %d:%d:%d %d %d %v %v", snap, caller, callee, path, e.line,
						e.col, e.cov, e.via, e.goStmt, e.deferred))
				}
			}
			if u.err != nil {
				t.Fatalf("%s: %v", table, u.err)
			}
			if unresolved >= 0 && unresolved != n {
				t.Errorf("%s row of %d in %d counts %d unresolved sites, has %d", table, key, path, unresolved, n)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	byCaller, byCallee := decode("calls_by_caller", "caller"), decode("calls_by_callee", "callee")
	if len(byCaller) == 0 || !slices.Equal(byCaller, byCallee) {
		t.Errorf("call sites with a callee: %d by caller, %d by callee, or they differ:\n%v\n%v",
			len(byCaller), len(byCallee), byCaller, byCallee)
	}
}

// TestUpgradeFromV5 opens a version 5 database (callees found by an index
// of edges, references and call edges a row each): its snapshot keeps
// its references and call edges, found both ways, through the upgrades
// to versions 6 and 7.
func TestUpgradeFromV5(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v5.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range slices.Concat(schemaV1, schemaV2, schemaEffects, schemaSearch, schemaAmend, []string{
		`INSERT INTO meta (key, value) VALUES ('schema_version', '5')`,
		`INSERT INTO repositories (id, name, root, vcs_head, current_snapshot) VALUES (4, 'tools', '/src/tools', 'abc', 2)`,
		`INSERT INTO snapshots (id, repo_id, created_at, packages, symbols) VALUES (2, 4, 0, 1, 0)`,
		`INSERT INTO interned (id, snapshot_id, value) VALUES (1, 2, 'A'), (2, 2, 'B'), (3, 2, 'C'), (4, 2, 'p.go'),
			(5, 2, 'fmt.Println'), (6, 2, 'q_test.go')`,
		// A calls B twice and C once; C calls fmt.Println, outside the graph,
		// and something it cannot resolve.
		`INSERT INTO edges (snapshot_id, caller, callee, callee_name, path, line, col, coverage, via, is_go, is_defer) VALUES
			(2, 1, 2, NULL, 4, 3, 2, 1, 1, 0, 0), (2, 1, 3, NULL, 4, 4, 2, 1, 1, 0, 0),
			(2, 3, NULL, 5, 4, 9, 2, 1, 1, 0, 0), (2, 1, 2, NULL, 4, 5, 2, 1, 1, 0, 1),
			(2, 3, NULL, NULL, 4, 10, 3, 3, 3, 0, 0)`,
		// B is used in p.go by A (twice at one place) and in a test file.
		`INSERT INTO refs (snapshot_id, target, path, line, col, end_col, enclosing, kind, test_only) VALUES
			(2, 2, 4, 5, 2, 3, 1, 1, 0), (2, 2, 6, 7, 9, 10, NULL, 2, 1), (2, 2, 4, 3, 2, 3, 1, 1, 0),
			(2, 2, 4, 3, 2, 3, 1, 2, 0)`,
	}) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 5 database: %v", err)
	}
	defer s.Close()
	checkCalleeTable(t, s)
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sites := func(q graph.EdgeQuery) string {
		t.Helper()
		edges, err := r.CallEdges(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range edges {
			out = append(out, fmt.Sprintf("%s>%s%s:%d:%v", e.Caller, e.Callee, e.CalleeName, e.Line, e.Defer))
		}
		return strings.Join(out, " ")
	}
	if got, want := sites(graph.EdgeQuery{Callees: []string{"B"}}), "A>B:3:false A>B:5:true"; got != want {
		t.Errorf("callers of B: %s, want %s", got, want)
	}
	if got, want := sites(graph.EdgeQuery{Callers: []string{"A", "C"}}),
		"A>B:3:false A>C:4:false A>B:5:true C>fmt.Println:9:false C>:10:false"; got != want {
		t.Errorf("callees of A and C: %s, want %s", got, want)
	}
	if n, err := r.UnresolvedCalls(ctx, "tools"); err != nil || n != 1 {
		t.Errorf("unresolved calls: %d, %v; want 1", n, err)
	}
	refs, total, err := r.Refs(ctx, graph.RefQuery{Targets: []string{"B"}, IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ref := range refs {
		got = append(got, fmt.Sprintf("%s:%d:%d-%d %s %s %v", ref.Path, ref.Line, ref.Col, ref.EndCol, ref.Enclosing,
			ref.Kind, ref.TestOnly))
	}
	want := []string{"p.go:3:2-3 A call false", "p.go:3:2-3 A read false", "p.go:5:2-3 A call false",
		"q_test.go:7:9-10  read true"}
	if total != 4 || !slices.Equal(got, want) {
		t.Errorf("references to B: %d\n%s\nwant 4\n%s", total, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, table := range []string{"edges", "edges_by_callee", "refs_v6"} {
		if ok, err := hasTable(ctx, s.wdb, table); err != nil || ok {
			t.Errorf("table %s left after the upgrade: %v, %v", table, ok, err)
		}
	}
}
