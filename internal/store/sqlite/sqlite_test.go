package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlbase"
	"github.com/sextant-dev/sextant/internal/store/storetest"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "sextant.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	// Closed before t.TempDir removes the file, which Windows refuses
	// while it is open; a second Close is harmless.
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) graph.Store { return openTemp(t) })
}

func TestKindCodes(t *testing.T) {
	for _, k := range graph.Kinds {
		c, ok := codes.Kind[k]
		if !ok {
			t.Errorf("kind %q has no code in kindNames", k)
		}
		if sqlbase.Kind(c) != k {
			t.Errorf("sqlbase.Kind(codes.Kind[%q]) = %q", k, sqlbase.Kind(c))
		}
	}
}

// TestXrefCodes checks that every reference kind, coverage and via has a
// stored code that reads back as itself.
func TestXrefCodes(t *testing.T) {
	for _, k := range graph.RefKinds {
		if c, ok := codes.RefKind[k]; !ok || sqlbase.RefKind(c) != k {
			t.Errorf("reference kind %q: code %d, %v", k, c, ok)
		}
	}
	for _, cov := range []graph.Coverage{graph.CoverageExact, graph.CoverageCandidate, graph.CoverageUnresolved,
		graph.CoveragePackageLevel} {
		if c, ok := codes.Coverage[cov]; !ok || sqlbase.Coverage(c) != cov {
			t.Errorf("coverage %q: code %d, %v", cov, c, ok)
		}
	}
	if codes.Coverage[graph.CoverageUnresolved] != unresolvedCode {
		t.Errorf("unresolved coverage is code %d, not unresolvedCode (%d), which rowPacker counts",
			codes.Coverage[graph.CoverageUnresolved], unresolvedCode)
	}
	for _, via := range []graph.Via{"", graph.ViaStatic, graph.ViaInterface, graph.ViaFuncValue, graph.ViaGo,
		graph.ViaDefer} {
		if c, ok := codes.Via[via]; !ok || sqlbase.Via(c) != via {
			t.Errorf("via %q: code %d, %v", via, c, ok)
		}
	}
	if got := sqlbase.RefKind(int64(42)); got != "unknown(42)" {
		t.Errorf("nameOf(42) = %q", got)
	}
}

func TestPragmas(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	defer s.Close()
	for _, db := range []*sql.DB{s.wdb, s.rdb} {
		var mode string
		if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v; want wal", mode, err)
		}
		var busy string
		if err := db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy); err != nil || busy != busyTimeoutMS {
			t.Errorf("busy_timeout = %s, %v; want %s", busy, err, busyTimeoutMS)
		}
	}
	var sync int
	if err := s.wdb.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil || sync != 1 {
		t.Errorf("synchronous = %d, %v; want 1 (NORMAL)", sync, err)
	}
	if _, err := s.rdb.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('x', 'y')`); err == nil {
		t.Errorf("read pool accepted a write")
	}
	v, err := s.SQLiteVersion(ctx)
	if err != nil || !strings.HasPrefix(v, "3.") {
		t.Errorf("SQLiteVersion = %q, %v", v, err)
	}
	t.Logf("SQLite %s", v)
}

func TestIntegrityCheck(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	defer s.Close()
	repo, err := s.EnsureRepository(ctx, "/src/x", "x")
	if err != nil {
		t.Fatal(err)
	}
	for gen := range 3 {
		publishGeneration(t, s, repo, gen, 200)
	}
	got, err := s.IntegrityCheck(ctx)
	if err != nil || got != "ok" {
		t.Errorf("IntegrityCheck = %q, %v; want ok", got, err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("SEXTANT_DB", "/tmp/elsewhere.db")
	if p, err := DefaultPath(); err != nil || p != "/tmp/elsewhere.db" {
		t.Errorf("DefaultPath with SEXTANT_DB = %q, %v", p, err)
	}
	cache := t.TempDir()
	t.Setenv("SEXTANT_DB", "")
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	p, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "sextant.db" || filepath.Base(filepath.Dir(p)) != "sextant" {
		t.Errorf("DefaultPath = %q, want .../sextant/sextant.db", p)
	}
}

func TestPathWithSpecialCharacters(t *testing.T) {
	special := "a dir?#%"
	if runtime.GOOS == "windows" {
		special = "a dir#%" // Windows forbids '?' in a file name
	}
	path := filepath.Join(t.TempDir(), special, "db name.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not created at %q: %v", path, err)
	}
}

func TestSchemaVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sextant.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// Reopening a current database works and keeps the version.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, path); err != nil {
		t.Fatalf("reopening: %v", err)
	}
	if _, err := s.wdb.ExecContext(ctx, `UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, path)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "99") {
		t.Errorf("Open of a newer schema: err = %v, want ErrNewerSchema naming version 99", err)
	}

	// A database that is not Sextant's is refused, not modified.
	other := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE people (name TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(ctx, other); err == nil || !strings.Contains(err.Error(), "not a sextant database") {
		t.Errorf("Open of a foreign database: err = %v", err)
	}
}

// publishGeneration publishes a snapshot of repo holding n functions named
// G<gen>_<i> spread over a few files and packages.
func publishGeneration(t testing.TB, s *Store, repo graph.Repository, gen, n int) graph.Snapshot {
	t.Helper()
	ctx := context.Background()
	w, err := s.BeginSnapshot(ctx, repo, fmt.Sprint("gen", gen))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := writeGeneration(ctx, w, repo, gen, n); err != nil {
		t.Fatal(err)
	}
	snap, err := w.Publish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func writeGeneration(ctx context.Context, w graph.SnapshotWriter, repo graph.Repository, gen, n int) error {
	const perPkg = 100
	for p := 0; p*perPkg < n; p++ {
		pkgPath := fmt.Sprintf("example.com/%s/p%d", repo.Name, p)
		pkg := graph.Package{Path: pkgPath, Name: fmt.Sprint("p", p), ModulePath: "example.com/" + repo.Name,
			Dir: fmt.Sprint("p", p)}
		var files []graph.File
		var syms []graph.Symbol
		seen := map[string]bool{}
		for i := p * perPkg; i < min((p+1)*perPkg, n); i++ {
			path := fmt.Sprintf("p%d/f%d.go", p, i%7)
			if !seen[path] {
				seen[path] = true
				files = append(files, graph.File{Path: path, Package: pkgPath, Size: int64(i)})
			}
			name := fmt.Sprintf("G%d_%d", gen, i)
			syms = append(syms, graph.Symbol{
				Key: graph.StableKey(graph.Identity{Language: "go", Repository: repo.Name, PackagePath: pkgPath,
					QualifiedName: name, Kind: graph.KindFunc}),
				PackagePath: pkgPath, PackageName: pkg.Name, ModulePath: pkg.ModulePath, Path: path,
				Name: name, QualifiedName: name, Kind: graph.KindFunc, Signature: "func " + name + "()",
				Doc: name + " does things.", Exported: true, StartLine: i + 1, StartCol: 1, EndLine: i + 3, EndCol: 2,
			})
		}
		diags := []graph.Diagnostic{{Package: pkgPath, Path: files[0].Path, Line: 1, Col: 1, Kind: "type",
			Message: "gen " + fmt.Sprint(gen)}}
		if err := w.AddPackage(ctx, pkg, files, syms, diags); err != nil {
			return err
		}
		// One reference to and one call out of every symbol (to the one
		// before it, the first to a function outside the graph), and one
		// implementation per package.
		var refs []graph.Ref
		var edges []graph.CallEdge
		for i, sym := range syms {
			refs = append(refs, graph.Ref{Target: sym.Key, Path: sym.Path, Line: i + 1, Col: 2, EndCol: 5,
				Kind: graph.RefCall})
			e := graph.CallEdge{Caller: sym.Key, CalleeName: "fmt.Println", Path: sym.Path, Line: i + 1, Col: 2,
				Coverage: graph.CoverageExact, Via: graph.ViaStatic}
			if i > 0 {
				e.Callee, e.CalleeName = syms[i-1].Key, ""
			}
			edges = append(edges, e)
		}
		if err := w.AddRefs(ctx, refs); err != nil {
			return err
		}
		if err := w.AddCallEdges(ctx, edges); err != nil {
			return err
		}
		if err := w.AddImplements(ctx, []graph.Implements{{Type: syms[0].Key, Interface: "iface"}}); err != nil {
			return err
		}
	}
	return w.AddModules(ctx, []graph.Module{{Path: "example.com/" + repo.Name, Dir: "."}})
}

// rowCounts returns how many rows each snapshot table holds per snapshot.
func rowCounts(t *testing.T, s *Store) map[int64]map[string]int {
	t.Helper()
	out := map[int64]map[string]int{}
	for _, table := range append([]string{"snapshots"}, snapshotTables...) {
		col := "snapshot_id"
		if table == "snapshots" {
			col = "id"
		}
		rows, err := s.wdb.Query(`SELECT ` + col + `, count(*) FROM ` + table + ` GROUP BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			if out[id] == nil {
				out[id] = map[string]int{}
			}
			out[id][table] = n
		}
		rows.Close()
	}
	return out
}

func TestGarbageCollectionRows(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	defer s.Close()
	a, _ := s.EnsureRepository(ctx, "/src/a", "a")
	b, _ := s.EnsureRepository(ctx, "/src/b", "b")
	a1 := publishGeneration(t, s, a, 1, 150)
	b1 := publishGeneration(t, s, b, 1, 120)

	pinned, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()

	a2 := publishGeneration(t, s, a, 2, 130)
	counts := rowCounts(t, s)
	if _, ok := counts[a1.ID]; ok {
		t.Errorf("rows of collected snapshot %d remain: %v", a1.ID, counts[a1.ID])
	}
	// interned: 130 keys, 14 paths, "fmt.Println" and "iface"; each key
	// is used, and calls, in one file; every edge but the first of each
	// package has a callee.
	want := map[string]int{"snapshots": 1, "symbols": 130, "packages": 2, "diagnostics": 2, "modules": 1,
		"files": 14, "units": 14, "refs": 130, "calls_by_caller": 130, "calls_by_callee": 128, "implements": 2,
		"interned": 146}
	if got := counts[a2.ID]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows of snapshot %d = %v, want %v", a2.ID, got, want)
	}
	if got := counts[b1.ID]["symbols"]; got != 120 {
		t.Errorf("snapshot %d of another repository has %d symbols, want 120", b1.ID, got)
	}
	if len(counts) != 2 {
		t.Errorf("snapshots with rows: %v, want only %d and %d", counts, a2.ID, b1.ID)
	}

	// The reader pinned before the collection still sees the old rows.
	syms, total, err := pinned.FindSymbols(ctx, graph.SymbolQuery{Name: "G1_", Mode: graph.MatchPrefix,
		Repositories: []string{"a"}, Limit: 5})
	if err != nil || total != 150 || len(syms) != 5 {
		t.Errorf("pinned reader: %d of %d G1_ symbols, %v; want 5 of 150", len(syms), total, err)
	}

	// Rows left by a crash between a publish and its collection are
	// removed by the next Collect.
	if _, err := s.wdb.ExecContext(ctx, `INSERT INTO snapshots (repo_id, created_at) VALUES (?, 0)`, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rowCounts(t, s)); n != 2 {
		t.Errorf("after Collect, %d snapshots have rows, want 2", n)
	}
}

func TestConcurrentReadersDuringPublish(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	defer s.Close()
	repo, err := s.EnsureRepository(ctx, "/src/c", "c")
	if err != nil {
		t.Fatal(err)
	}
	const n, generations, readers = 40, 5, 3
	publishGeneration(t, s, repo, 0, n)

	done := make(chan struct{})
	var wg sync.WaitGroup
	var views atomic.Int64
	errs := make(chan error, readers)
	for range readers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := checkConsistentView(ctx, s, n); err != nil {
					errs <- err
					return
				}
				views.Add(1)
			}
		})
	}
	// On a loaded machine the readers may not get to run during the first
	// few publishes: keep publishing (within reason) until one has.
	for gen := 1; gen <= generations || views.Load() == 0 && gen <= 20*generations; gen++ {
		publishGeneration(t, s, repo, gen, n)
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if views.Load() == 0 {
		t.Error("no reader checked a view while snapshots were published")
	}
	t.Logf("%d views checked during %d publishes", views.Load(), generations)
	if got, err := s.IntegrityCheck(ctx); err != nil || got != "ok" {
		t.Errorf("IntegrityCheck = %q, %v", got, err)
	}
}

// checkConsistentView checks that one Reader sees exactly one generation:
// its n symbols, its status and its diagnostics, whatever is published
// while it reads.
func checkConsistentView(ctx context.Context, s *Store, n int) error {
	r, err := s.Read(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.Repository(ctx, "c")
	if err != nil {
		return err
	}
	gen := strings.TrimPrefix(st.VCSHead, "gen")
	syms, total, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "G", Mode: graph.MatchPrefix})
	if err != nil {
		return err
	}
	if total != n || len(syms) != n || st.Symbols != n {
		return fmt.Errorf("snapshot %d: %d symbols listed, %d returned, status says %d; want %d",
			st.Snapshot.ID, total, len(syms), st.Symbols, n)
	}
	for _, sy := range syms {
		if !strings.HasPrefix(sy.Name, "G"+gen+"_") {
			return fmt.Errorf("snapshot %d of generation %s holds %s", st.Snapshot.ID, gen, sy.Name)
		}
	}
	again, err := r.Repository(ctx, "c")
	if err != nil {
		return err
	}
	if again.Snapshot.ID != st.Snapshot.ID {
		return fmt.Errorf("reader moved from snapshot %d to %d", st.Snapshot.ID, again.Snapshot.ID)
	}
	return nil
}

func TestWritersQueue(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	defer s.Close()
	a, _ := s.EnsureRepository(ctx, "/src/a", "a")
	b, _ := s.EnsureRepository(ctx, "/src/b", "b")
	var wg sync.WaitGroup
	for i, repo := range []graph.Repository{a, b, a, b} {
		wg.Go(func() { publishGeneration(t, s, repo, i, 50) })
	}
	wg.Wait()
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := r.Repositories(ctx)
	if err != nil || len(st) != 2 || st[0].Symbols != 50 || st[1].Symbols != 50 {
		t.Errorf("Repositories = %+v, %v", st, err)
	}
}

// TestQueryPlans checks that the symbol lookups the tools make often are
// index searches, not scans of the symbols table.
func TestQueryPlans(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	defer s.Close()
	type query struct {
		sql  string
		args []any
	}
	queries := map[string]query{
		"key":      {`SELECT s.id` + symbolFrom + ` WHERE s.key = 'K'`, nil},
		"children": {`SELECT s.id` + symbolFrom + ` WHERE s.parent = 'K' AND s.snapshot_id = 1`, nil},
		"by id":    {`SELECT ` + symbolColumns + symbolByIDFrom + ` WHERE s.id IN (1, 2, 3)`, nil},
	}
	// Name searches of every mode run in memory (names.go).
	for name, q := range queries {
		rows, err := s.rdb.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q.sql, q.args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "; ")
		t.Logf("%s: %s", name, text)
		if !strings.Contains(text, "SEARCH s USING") {
			t.Errorf("%s: plan %q does not search symbols by index", name, text)
		}
	}
	checkXrefPlans(t, s)
}

// checkXrefPlans checks that the cross-reference queries find keys by the
// interned index and then search refs, edges and implements by theirs.
func checkXrefPlans(t *testing.T, s *Store) {
	ctx := context.Background()
	type query struct {
		sql   string
		args  []any
		wants []string // each must be in the plan
	}
	keysBy := "SEARCH k USING COVERING INDEX interned_value (snapshot_id=? AND value=?)"
	refs, refArgs := refsQuery([]string{"K1", "K2"})
	byCaller, callerArgs := edgesQuery([]string{"K1"}, true)
	byCallee, calleeArgs := edgesQuery([]string{"K1", "K2"}, false)
	queries := map[string]query{
		"refs by target": {refs, refArgs, []string{keysBy, "SEARCH x USING INDEX refs_target (snapshot_id=? AND target=?)"}},
		"calls by caller": {byCaller, callerArgs,
			[]string{keysBy, "SEARCH x USING INDEX calls_caller (snapshot_id=? AND caller=?)"}},
		"calls by callee": {byCallee, calleeArgs,
			[]string{keysBy, "SEARCH x USING INDEX calls_callee (snapshot_id=? AND callee=?)"}},
		"implementations by interface": {implsQuery(true), []any{"K"},
			[]string{keysBy, "SEARCH x USING INDEX implements_iface (snapshot_id=? AND iface=?)"}},
		"implementations by type": {implsQuery(false), []any{"K"},
			[]string{keysBy, "SEARCH x USING INDEX implements_type (snapshot_id=? AND type=?)"}},
		"unresolved calls": {`SELECT coalesce(sum(unresolved), 0) FROM calls_by_caller
			WHERE snapshot_id = ? AND unresolved > 0`, []any{1},
			[]string{"USING COVERING INDEX calls_unresolved (snapshot_id=? AND unresolved>?)"}},
	}
	for name, q := range queries {
		rows, err := s.rdb.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q.sql, q.args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "; ")
		t.Logf("%s: %s", name, text)
		for _, want := range q.wants {
			if !strings.Contains(text, want) {
				t.Errorf("%s: plan %q lacks %q", name, text, want)
			}
		}
	}
}

// crashChildEnv names the database a crash-test child writes to.
const crashChildEnv = "SEXTANT_STORE_CRASH_CHILD_DB"

// TestCrashChild is not a test: TestCrashSafety runs the test binary with
// it as a child process that publishes snapshots until it is killed.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("run by TestCrashSafety")
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := s.EnsureRepository(ctx, "/src/c", "c")
	if err != nil {
		t.Fatal(err)
	}
	for gen := 1; ; gen++ {
		publishGeneration(t, s, repo, gen, crashSymbols)
		if gen == 1 {
			fmt.Println("ready")
		}
	}
}

const crashSymbols = 400

// TestCrashSafety kills a process that keeps publishing snapshots with
// SIGKILL at arbitrary instants, and checks that the database is sound
// and serves one complete snapshot each time.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crash.db")
	delays := []time.Duration{0, 15 * time.Millisecond, 60 * time.Millisecond}
	for _, delay := range delays {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for sc.Scan() && sc.Text() != "ready" {
		}
		time.Sleep(delay)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		go io.Copy(io.Discard, out)
		cmd.Wait()

		s, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("reopening after kill at +%v: %v", delay, err)
		}
		if got, err := s.IntegrityCheck(ctx); err != nil || got != "ok" {
			t.Errorf("after kill at +%v: integrity_check = %q, %v", delay, got, err)
		}
		if err := checkConsistentView(ctx, s, crashSymbols); err != nil {
			t.Errorf("after kill at +%v: %v", delay, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUpgradeFromV1 opens a version 1 database holding a published
// snapshot: the upgrade keeps the repository and its name, drops the
// snapshot (it has no cross-references), and the store then works.
func TestUpgradeFromV1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range schemaV1 {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range []string{
		`INSERT INTO meta (key, value) VALUES ('schema_version', '1')`,
		`INSERT INTO repositories (id, name, root, vcs_head, current_snapshot) VALUES (7, 'tools~2', '` + filepath.Clean("/src/tools") + `', 'abc', 3)`,
		`INSERT INTO snapshots (id, repo_id, created_at, symbols) VALUES (3, 7, 0, 1)`,
		`INSERT INTO units (id, snapshot_id, package_path, package_name, module_path, path) VALUES (1, 3, 'p', 'p', 'm', 'p.go')`,
		`INSERT INTO symbols (snapshot_id, unit_id, name, lname, kind, exported, test_only, start_line, start_col,
			end_line, end_col, key, receiver, signature, doc) VALUES (3, 1, 'F', 'f', 6, 1, 0, 1, 1, 2, 2, 'K', '', '', '')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 1 database: %v", err)
	}
	defer s.Close()
	if v, err := schemaVersion(ctx, s.rdb); err != nil || v != SchemaVersion {
		t.Errorf("schema version after upgrade = %d, %v; want %d", v, err, SchemaVersion)
	}
	var n int
	s.rdb.QueryRow(`SELECT count(*) FROM symbols`).Scan(&n)
	if n != 0 {
		t.Errorf("%d symbols survive the upgrade, want none", n)
	}
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := r.Repositories(ctx); err != nil || len(st) != 0 {
		t.Errorf("Repositories after upgrade = %+v, %v; want none published", st, err)
	}
	r.Close()
	repo, err := s.EnsureRepository(ctx, "/src/tools", "tools")
	if err != nil || repo.ID != 7 || repo.Name != "tools~2" {
		t.Fatalf("EnsureRepository after upgrade = %+v, %v; want the kept repository 7, tools~2", repo, err)
	}
	snap := publishGeneration(t, s, repo, 1, 10)
	if snap.ID <= 3 {
		t.Errorf("snapshot after upgrade has id %d, want one after the dropped 3", snap.ID)
	}
	r, err = s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, err := r.UnresolvedCalls(ctx, "tools~2"); err != nil || n != 0 {
		t.Errorf("UnresolvedCalls after upgrade = %d, %v", n, err)
	}
	if got, err := s.IntegrityCheck(ctx); err != nil || got != "ok" {
		t.Errorf("integrity_check = %q, %v", got, err)
	}
}

// TestUpgradeToSearch opens a version 2 database holding a published
// snapshot: the upgrade adds the search index, keeps the repository, drops
// the snapshot (it has no search rows), and search works on the next one;
// collecting that snapshot later removes its search rows too.
func TestUpgradeToSearch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range slices.Concat(schemaV1, schemaV2) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range []string{
		`INSERT INTO meta (key, value) VALUES ('schema_version', '2')`,
		`INSERT INTO repositories (id, name, root, vcs_head, current_snapshot) VALUES (4, 'tools', '` + filepath.Clean("/src/tools") + `', 'abc', 2)`,
		`INSERT INTO snapshots (id, repo_id, created_at, symbols) VALUES (2, 4, 0, 1)`,
		`INSERT INTO units (id, snapshot_id, package_path, package_name, module_path, path) VALUES (1, 2, 'p', 'p', 'm', 'p.go')`,
		`INSERT INTO symbols (snapshot_id, unit_id, name, lname, kind, exported, test_only, start_line, start_col,
			end_line, end_col, key, receiver, signature, doc) VALUES (2, 1, 'F', 'f', 6, 1, 0, 1, 1, 2, 2, 'K', '', '', '')`,
		`INSERT INTO interned (snapshot_id, value) VALUES (2, 'K')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 2 database: %v", err)
	}
	defer s.Close()
	if v, err := schemaVersion(ctx, s.rdb); err != nil || v != SchemaVersion {
		t.Errorf("schema version after upgrade = %d, %v; want %d", v, err, SchemaVersion)
	}
	for _, table := range []string{"symbols", "interned", "snapshots"} {
		var n int
		s.rdb.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n)
		if n != 0 {
			t.Errorf("%d rows of %s survive the upgrade, want none", n, table)
		}
	}
	repo, err := s.EnsureRepository(ctx, "/src/tools", "tools")
	if err != nil || repo.ID != 4 {
		t.Fatalf("EnsureRepository after upgrade = %+v, %v; want the kept repository 4", repo, err)
	}
	publishGeneration(t, s, repo, 1, 10)
	search := func() int {
		r, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		hits, err := r.SearchText(ctx, graph.TextQuery{Words: []string{"p0"}})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if n := search(); n == 0 {
		t.Errorf("no search hits after upgrade and publish")
	}
	publishGeneration(t, s, repo, 2, 10)
	var rows, syms int
	s.rdb.QueryRow(`SELECT count(*) FROM symbol_text`).Scan(&rows)
	s.rdb.QueryRow(`SELECT count(*) FROM symbols`).Scan(&syms)
	if rows != syms {
		t.Errorf("after collecting the old snapshot: %d search rows for %d symbols", rows, syms)
	}
	if got, err := s.IntegrityCheck(ctx); err != nil || got != "ok" {
		t.Errorf("integrity_check = %q, %v", got, err)
	}
}

// TestBeginSnapshotCollects checks that old snapshots a publish left
// behind (its collection was cut short) are deleted when the next snapshot
// of the repository begins, not only once it is published.
func TestBeginSnapshotCollects(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	defer s.Close()
	repo, _ := s.EnsureRepository(ctx, "/src/a", "a")
	publishGeneration(t, s, repo, 1, 20)
	cur := publishGeneration(t, s, repo, 2, 20)
	// What a publish killed before its collection leaves: an older
	// snapshot with rows.
	if _, err := s.wdb.ExecContext(ctx, `INSERT INTO snapshots (id, repo_id, created_at) VALUES (?, ?, 0)`, cur.ID-1, repo.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.ExecContext(ctx, `INSERT INTO packages (snapshot_id, path, name, module_path, dir, hash, test_only, errors)
		VALUES (?, 'old', 'old', 'm', 'old', '', 0, 0)`, cur.ID-1); err != nil {
		t.Fatal(err)
	}
	if counts := rowCounts(t, s); len(counts) != 2 {
		t.Fatalf("before: rows of %d snapshots, want 2: %v", len(counts), counts)
	}
	w, err := s.BeginSnapshot(ctx, repo, "gen3")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if counts := rowCounts(t, s); len(counts) != 1 || counts[cur.ID] == nil {
		t.Errorf("after BeginSnapshot: %v, want the rows of snapshot %d alone", counts, cur.ID)
	}
}

// TestUpgradeToLanguage opens a version 9 database, whose symbols have no
// language: the upgrade adds the column, and the old Go symbols read back
// with none ("" is Go).
func TestUpgradeToLanguage(t *testing.T) {
	ctx := context.Background()
	s := upgraded(t, 9, append(append(dropFormat, dropTestRuns...), `ALTER TABLE symbols DROP COLUMN language`, `ALTER TABLE snapshots DROP COLUMN build`,
		`ALTER TABLE snapshots DROP COLUMN indexers`)...)
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms, n, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchPrefix})
	if err != nil || n == 0 {
		t.Fatalf("FindSymbols after upgrade: %d, %v", n, err)
	}
	for _, sym := range syms {
		if sym.Language != "" {
			t.Errorf("%s: language %q after upgrade, want none", sym.QualifiedName, sym.Language)
		}
	}
}

// A version 10 database, whose snapshots do not say what made them,
// upgrades in place: its snapshot serves on, saying nothing of it.
func TestUpgradeToProvenance(t *testing.T) {
	ctx := context.Background()
	s := upgraded(t, 10, append(append(dropFormat, dropTestRuns...), `ALTER TABLE snapshots DROP COLUMN build`, `ALTER TABLE snapshots DROP COLUMN indexers`)...)
	sts, err := graph.Repositories(ctx, s)
	if err != nil || len(sts) != 1 || sts[0].Symbols == 0 || sts[0].Snapshot.Build != "" || sts[0].Snapshot.Indexers != nil {
		t.Errorf("repositories after upgrade = %+v, %v; want the old snapshot, saying nothing of what made it", sts, err)
	}
}

// upgraded makes a database of schema version from one of today's (a
// repository "old" with a published generation, then stmts run on it and
// its version set back), opens it as today's code does, and checks that
// the upgrade reached SchemaVersion.
func upgraded(t *testing.T, version int, stmts ...string) *Store {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("v%d.db", version))
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := s.EnsureRepository(ctx, "/src/old", "old")
	if err != nil {
		t.Fatal(err)
	}
	publishGeneration(t, s, repo, 1, 3)
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append(stmts, fmt.Sprintf(`UPDATE meta SET value = '%d' WHERE key = 'schema_version'`, version)) {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			t.Fatalf("making a version %d database: %v", version, err)
		}
	}
	db.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version %d database: %v", version, err)
	}
	t.Cleanup(func() { s.Close() })
	if v, err := schemaVersion(ctx, s.rdb); err != nil || v != SchemaVersion {
		t.Errorf("schema version after upgrade = %d, %v; want %d", v, err, SchemaVersion)
	}
	return s
}
