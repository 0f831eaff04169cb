package sextant_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sextant-dev/sextant/internal/cli"
	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// The crash test re-executes this test binary as the indexer, so that it
// can be killed with SIGKILL like a real `sextant index`.
const crashChildEnv = "SEXTANT_CRASH_CHILD"

// crashServeEnv makes the re-executed test binary `sextant serve` over
// stdio, so that the server can be killed while it indexes a root on
// first use.
const crashServeEnv = "SEXTANT_CRASH_SERVE"

func init() {
	if args := os.Getenv(crashServeEnv); args != "" {
		os.Exit(cli.Main(append([]string{"serve", "--db"}, strings.Split(args, string(os.PathListSeparator))...)))
	}
	if os.Getenv(crashChildEnv) == "" {
		return
	}
	parts := strings.SplitN(os.Getenv(crashChildEnv), string(os.PathListSeparator), 2)
	st, err := sqlite.Open(context.Background(), parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: open:", err)
		os.Exit(1)
	}
	if _, err := index.Index(context.Background(), st, parts[1], index.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "child: index:", err)
		os.Exit(1)
	}
	st.Close()
	os.Exit(0)
}

// TestKillIndexAtRandomInstants kills an indexer at random instants, many
// times in a row, and checks after each kill that the database is intact
// and serves a whole snapshot: the old one, or the new one if the indexer
// got to publish it, never a mix.
func TestKillIndexAtRandomInstants(t *testing.T) {
	// CI runs it 200 times (SEXTANT_CRASH_RUNS in .ci/run); a local
	// `go test ./...` runs fewer to stay quick.
	runs := 40
	if testing.Short() {
		runs = 10
	}
	if s := os.Getenv("SEXTANT_CRASH_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), "crash.db")
	writeCrashModule(t, root, 0)

	// A first, clean index gives the snapshot that must keep serving, and
	// the duration over which kill instants are drawn.
	start := time.Now()
	if out, err := crashChild(db, root).CombinedOutput(); err != nil {
		t.Fatalf("first index: %v\n%s", err, out)
	}
	full := time.Since(start)
	symbols := crashCounts(t, ctx, db)
	t.Logf("a full index takes %v; %d runs", full, runs)

	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	published := 0
	for i := 1; i <= runs; i++ {
		writeCrashModule(t, root, i) // each run adds one function
		cmd := crashChild(db, root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(full) * 12 / 10))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-time.After(delay):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d: indexer failed before the kill: %v", i, err)
			}
		}
		got := crashCounts(t, ctx, db)
		switch {
		case got == symbols:
		case got > symbols:
			published++
			symbols = got
		default:
			t.Fatalf("run %d (killed after %v): %d symbols, fewer than the %d already published", i, delay, got, symbols)
		}
	}
	t.Logf("%d runs: %d published a new snapshot before the kill, %d were cut short", runs, published, runs-published)

	// Collections cut short leave old snapshots behind, but the next one
	// catches up: garbage must not pile up run after run.
	sdb, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var snaps int
	if err := sdb.QueryRowContext(ctx, `SELECT count(*) FROM snapshots`).Scan(&snaps); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d snapshots left in the database (1 current)", snaps)
	if snaps > 5 {
		t.Errorf("%d snapshots left after %d runs: old snapshots are not being collected", snaps, runs)
	}
}

func crashChild(db, root string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+db+string(os.PathListSeparator)+root)
	return cmd
}

// crashCounts checks the database after a kill and returns the symbol
// count of the published snapshot, checking it against the rows a reader
// can reach.
func crashCounts(t *testing.T, ctx context.Context, db string) int {
	t.Helper()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatalf("reopening after kill: %v", err)
	}
	defer st.Close()
	if res, err := st.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Fatalf("integrity_check = %q, %v", res, err)
	}
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	if err != nil || len(repos) != 1 {
		t.Fatalf("repositories after kill: %v, %v", repos, err)
	}
	repo := repos[0]
	_, total, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring, Repositories: []string{repo.Name}, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	files, err := r.Files(ctx, repo.Name)
	if err != nil {
		t.Fatal(err)
	}
	if total != repo.Symbols || len(files) != repo.Files {
		t.Fatalf("snapshot %d is mixed: publishes %d symbols and %d files, readers reach %d and %d",
			repo.Snapshot.ID, repo.Symbols, repo.Files, total, len(files))
	}
	return total
}

// writeCrashModule writes a module large enough that writing its snapshot
// takes a fair share of an index run, plus n extra functions.
func writeCrashModule(t *testing.T, root string, n int) {
	t.Helper()
	writeModule(t, root, 8, n)
}

// writeModule writes a module of pkgs packages (p0, p1, ...) of 240 types
// with a method each when n is 0, and p0/extra.go with n functions
// Extra1..Extran: each n gives a snapshot one symbol larger than n-1.
func writeModule(t *testing.T, root string, pkgs, n int) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		must(os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/crash\n\ngo 1.22\n"), 0o644))
		for p := range pkgs {
			dir := filepath.Join(root, fmt.Sprintf("p%d", p))
			must(os.MkdirAll(dir, 0o755))
			for f := range 6 {
				var b strings.Builder
				fmt.Fprintf(&b, "package p%d\n\n", p)
				for k := range 40 {
					fmt.Fprintf(&b, "// T%d_%d is a type.\ntype T%d_%d struct{ A, B int }\n\n", f, k, f, k)
					fmt.Fprintf(&b, "// M is a method.\nfunc (t *T%d_%d) M(x int) int { return t.A + x }\n\n", f, k)
				}
				must(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), []byte(b.String()), 0o644))
			}
		}
	}
	var b strings.Builder
	b.WriteString("package p0\n\n")
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "func Extra%d() {}\n", k)
	}
	must(os.WriteFile(filepath.Join(root, "p0", "extra.go"), []byte(b.String()), 0o644))
}

// TestKillServerWhileIndexing kills `sextant serve` at random instants
// while it indexes a root on first use (the refresh a server runs), with
// another root's snapshot already published: after each kill the
// database is intact, the published root still serves the same whole
// snapshot, and the root being indexed has a whole snapshot, one of its
// stages (syntax, types: each whole as far as it goes), or none.
// Each run indexes a fresh module, so it stays at a few runs (set
// SEXTANT_CRASH_SERVER_RUNS for more).
func TestKillServerWhileIndexing(t *testing.T) {
	runs := 4
	if testing.Short() {
		runs = 1
	}
	if s := os.Getenv("SEXTANT_CRASH_SERVER_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "crash.db")
	published := t.TempDir()
	writeCrashModule(t, published, 0)
	if out, err := crashChild(db, published).CombinedOutput(); err != nil {
		t.Fatalf("first index: %v\n%s", err, out)
	}
	want := crashRepos(t, ctx, db)

	// How long a server takes to index a fresh root and answer.
	full := time.Duration(0)
	rng := rand.New(rand.NewPCG(2, uint64(time.Now().UnixNano())))
	whole := 0
	stages := map[string]int{} // what the kills left current of the fresh root: a stage or the complete snapshot
	for i := 0; i <= runs; i++ {
		// A fresh root: two of the published module's packages, plus i
		// functions.
		fresh := t.TempDir()
		for _, sub := range []string{"p0", "p1"} {
			if err := os.CopyFS(filepath.Join(fresh, sub), os.DirFS(filepath.Join(published, sub))); err != nil {
				t.Fatal(err)
			}
		}
		copyFile(t, filepath.Join(published, "go.mod"), filepath.Join(fresh, "go.mod"))
		writeCrashModule(t, fresh, i)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashServeEnv+"="+strings.Join([]string{db, published, fresh}, string(os.PathListSeparator)))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"crash","version":"0"}}}`)
		fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_symbol","arguments":{"name":"Extra1","mode":"exact"}}}`)
		answered := make(chan struct{})
		go func() {
			buf := make([]byte, 64<<10)
			var out strings.Builder
			for {
				n, err := stdout.Read(buf)
				out.Write(buf[:n])
				if strings.Contains(out.String(), `"id":2`) {
					close(answered)
					io.Copy(io.Discard, stdout)
					return
				}
				if err != nil {
					return
				}
			}
		}()
		if i == 0 {
			// The first run is not killed: it measures the span over
			// which the kill instants of the others are drawn.
			<-answered
			full = time.Since(start)
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("server: %v", err)
			}
			t.Logf("a server indexes a fresh root and answers in %v; %d kills", full, runs)
		} else {
			delay := time.Duration(rng.Int64N(int64(full) * 12 / 10))
			select {
			case <-time.After(delay):
			case <-answered:
			}
			_ = cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
		}
		got := crashRepos(t, ctx, db)
		if got[published] != want[published] {
			t.Fatalf("run %d: the published root changed from %d to %d symbols", i, want[published], got[published])
		}
		if _, ok := got[fresh]; ok {
			whole++
			if i > 0 {
				stages[crashStage(t, ctx, db, fresh)]++
			}
		} else if i == 0 {
			t.Fatalf("the unkilled run answered without indexing the fresh root")
		}
	}
	t.Logf("%d kills: %d left the fresh root indexed (by stage, \"\" complete: %v), %d left it unindexed; none mixed",
		runs, whole-1, stages, runs-(whole-1))
}

// crashStage returns the stage of the current snapshot of the repository
// at root ("" for a complete one).
func crashStage(t *testing.T, ctx context.Context, db, root string) string {
	t.Helper()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	repos, err := graph.Repositories(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, rp := range repos {
		if rp.Root == root {
			return rp.Snapshot.Stage
		}
	}
	t.Fatalf("no repository at %s", root)
	return ""
}

// crashRepos checks the database after a kill, and returns each
// repository's symbol count (by root), checking every snapshot is whole.
func crashRepos(t *testing.T, ctx context.Context, db string) map[string]int {
	t.Helper()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatalf("reopening after kill: %v", err)
	}
	defer st.Close()
	if res, err := st.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Fatalf("integrity_check = %q, %v", res, err)
	}
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	repos, err := r.Repositories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, repo := range repos {
		if repo.Snapshot.ID == 0 {
			continue // registered, never published
		}
		_, total, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring, Repositories: []string{repo.Name}, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		files, err := r.Files(ctx, repo.Name)
		if err != nil {
			t.Fatal(err)
		}
		if total != repo.Symbols || len(files) != repo.Files {
			t.Fatalf("snapshot %d of %s is mixed: publishes %d symbols and %d files, readers reach %d and %d",
				repo.Snapshot.ID, repo.Root, repo.Symbols, repo.Files, total, len(files))
		}
		out[repo.Root] = total
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
