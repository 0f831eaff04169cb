package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/postgres"
	"github.com/sextant-dev/sextant/internal/store/postgres/pgtest"
)

// stressDuration is how long TestConcurrentPublishers runs: 60 s, or
// $SEXTANT_STRESS_DURATION (a Go duration) for shorter local runs.
func stressDuration(t *testing.T) time.Duration {
	if v := os.Getenv("SEXTANT_STRESS_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("SEXTANT_STRESS_DURATION: %v", err)
		}
		return d
	}
	return 60 * time.Second
}

const (
	publishers = 8 // the last one publishes the first one's repository too
	readers    = 20
)

// generation writes snapshot number gen of repo: every record carries gen
// somewhere a reader can check (signatures, file hashes, reference lines,
// callee names, the commit), and the number of symbols varies with gen, so
// a reader that saw rows of two snapshots at once would notice.
func generation(ctx context.Context, s graph.Store, repo graph.Repository, gen int) (graph.Snapshot, error) {
	w, err := s.BeginSnapshot(ctx, repo, "g"+strconv.Itoa(gen))
	if err != nil {
		return graph.Snapshot{}, err
	}
	defer w.Abort()
	n := 20 + gen%30
	pkgPath := "example.com/" + repo.Name
	tag := "gen=" + strconv.Itoa(gen)
	var syms []graph.Symbol
	var files []graph.File
	var refs []graph.Ref
	var edges []graph.CallEdge
	key := func(i int) string {
		return graph.StableKey(graph.Identity{Language: "go", Repository: repo.Name, PackagePath: pkgPath,
			QualifiedName: "F" + strconv.Itoa(i), Kind: graph.KindFunc})
	}
	for i := range n {
		path := fmt.Sprintf("f%d.go", i)
		syms = append(syms, graph.Symbol{Key: key(i), PackagePath: pkgPath, PackageName: "p", ModulePath: pkgPath,
			Path: path, Name: "F" + strconv.Itoa(i), QualifiedName: "F" + strconv.Itoa(i), Kind: graph.KindFunc,
			Signature: tag, Doc: tag, Exported: true, StartLine: 1, StartCol: 1, EndLine: 3, EndCol: 2})
		files = append(files, graph.File{Path: path, Package: pkgPath, Hash: tag})
		refs = append(refs, graph.Ref{Target: key(0), Path: path, Line: gen, Col: 1, EndCol: 3, Enclosing: key(i),
			Kind: graph.RefCall})
		edges = append(edges, graph.CallEdge{Caller: key(0), CalleeName: tag, Path: "f0.go", Line: i + 1, Col: 1,
			Coverage: graph.CoverageExact, Via: graph.ViaStatic})
	}
	pkg := graph.Package{Path: pkgPath, Name: "p", ModulePath: pkgPath, Dir: ".", Hash: tag}
	if err := w.AddPackage(ctx, pkg, files, syms, nil); err != nil {
		return graph.Snapshot{}, err
	}
	if err := w.AddRefs(ctx, refs); err != nil {
		return graph.Snapshot{}, err
	}
	if err := w.AddCallEdges(ctx, edges); err != nil {
		return graph.Snapshot{}, err
	}
	return w.Publish(ctx)
}

// checkView reads one repository through r and returns an error when the
// rows it sees do not all belong to the snapshot its status names.
func checkView(ctx context.Context, r graph.Reader, repo string) (graph.RepositoryStatus, error) {
	st, err := r.Repository(ctx, repo)
	if err != nil {
		return st, err
	}
	want := "gen=" + strings.TrimPrefix(st.VCSHead, "g")
	gen, _ := strconv.Atoi(strings.TrimPrefix(st.VCSHead, "g"))
	syms, total, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchPrefix, Name: "f", Repositories: []string{repo}})
	if err != nil {
		return st, err
	}
	if total != st.Symbols || len(syms) != st.Symbols {
		return st, fmt.Errorf("%s snapshot %d: %d symbols found (total %d), status says %d", repo, st.Snapshot.ID, len(syms), total, st.Symbols)
	}
	for _, s := range syms {
		if s.Signature != want {
			return st, fmt.Errorf("%s snapshot %d (%s): symbol %s has %s", repo, st.Snapshot.ID, want, s.Name, s.Signature)
		}
	}
	exact, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "F1", Repositories: []string{repo}})
	if err != nil {
		return st, err
	}
	if len(exact) != 1 || exact[0].Doc != want {
		return st, fmt.Errorf("%s snapshot %d (%s): exact F1 = %+v", repo, st.Snapshot.ID, want, exact)
	}
	files, err := r.Files(ctx, repo)
	if err != nil {
		return st, err
	}
	if len(files) != st.Files {
		return st, fmt.Errorf("%s snapshot %d: %d files, status says %d", repo, st.Snapshot.ID, len(files), st.Files)
	}
	for _, f := range files {
		if f.Hash != want {
			return st, fmt.Errorf("%s snapshot %d (%s): file %s has %s", repo, st.Snapshot.ID, want, f.Path, f.Hash)
		}
	}
	refs, total, err := r.Refs(ctx, graph.RefQuery{Targets: []string{syms[0].Key}, Limit: 1000})
	if err != nil {
		return st, err
	}
	if total != st.Symbols || len(refs) != total {
		return st, fmt.Errorf("%s snapshot %d: %d references (total %d), want %d", repo, st.Snapshot.ID, len(refs), total, st.Symbols)
	}
	for _, ref := range refs {
		if ref.Line != gen {
			return st, fmt.Errorf("%s snapshot %d (%s): reference of generation %d", repo, st.Snapshot.ID, want, ref.Line)
		}
	}
	edges, err := r.CallEdges(ctx, graph.EdgeQuery{Callers: []string{syms[0].Key}})
	if err != nil {
		return st, err
	}
	if len(edges) != st.Symbols {
		return st, fmt.Errorf("%s snapshot %d: %d call edges, want %d", repo, st.Snapshot.ID, len(edges), st.Symbols)
	}
	for _, e := range edges {
		if e.CalleeName != want {
			return st, fmt.Errorf("%s snapshot %d (%s): call edge of %s", repo, st.Snapshot.ID, want, e.CalleeName)
		}
	}
	return st, nil
}

// TestConcurrentPublishers runs 8 publishers (two of them on the same
// repository), each with a store of its own as if in its own process, and
// 20 readers against one database, for stressDuration. It checks that no
// operation fails, that every reader sees each repository whole (all its
// rows from the snapshot its status names, even while newer snapshots are
// published and older ones collected), that a reader opened later never
// sees an older snapshot, and that every publish is visible to a reader
// opened as soon as Publish returns. Afterwards only the current snapshots
// remain.
func TestConcurrentPublishers(t *testing.T) {
	dsn := pgtest.Schema(t)
	d := stressDuration(t)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	bg := context.Background()

	openStore := func() *postgres.Store {
		s, err := postgres.Open(bg, dsn)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	var (
		errs      atomic.Int64
		gens      atomic.Int64
		publishes atomic.Int64
		reads     atomic.Int64
		mu        sync.Mutex
		firstErrs []string
	)
	fail := func(format string, args ...any) {
		if errs.Add(1) <= 10 {
			mu.Lock()
			firstErrs = append(firstErrs, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
	}

	// Every repository has one snapshot before the readers start.
	setup := openStore()
	repos := make([]graph.Repository, publishers-1)
	for i := range repos {
		r, err := setup.EnsureRepository(bg, fmt.Sprintf("/src/r%d", i), fmt.Sprintf("r%d", i))
		if err != nil {
			t.Fatal(err)
		}
		repos[i] = r
		if _, err := generation(bg, setup, r, int(gens.Add(1))); err != nil {
			t.Fatal(err)
		}
	}

	var wg sync.WaitGroup
	for p := range publishers {
		s := openStore()
		wg.Go(func() {
			root := fmt.Sprintf("/src/r%d", p%len(repos)) // the last publisher shares r0
			for ctx.Err() == nil {
				repo, err := s.EnsureRepository(bg, root, "ignored")
				if err != nil {
					fail("publisher %d: EnsureRepository: %v", p, err)
					return
				}
				gen := int(gens.Add(1))
				snap, err := generation(bg, s, repo, gen)
				if err != nil {
					fail("publisher %d: publish generation %d: %v", p, gen, err)
					continue
				}
				publishes.Add(1)
				r, err := s.Read(bg)
				if err != nil {
					fail("publisher %d: Read: %v", p, err)
					continue
				}
				st, err := checkView(bg, r, repo.Name)
				r.Close()
				switch {
				case err != nil:
					fail("publisher %d: after publishing %d: %v", p, snap.ID, err)
				case st.Snapshot.ID < snap.ID:
					fail("publisher %d: published snapshot %d of %s, a reader opened after sees %d", p, snap.ID, repo.Name, st.Snapshot.ID)
				case st.Snapshot.ID == snap.ID && st.VCSHead != "g"+strconv.Itoa(gen):
					fail("publisher %d: snapshot %d has head %s, published g%d", p, snap.ID, st.VCSHead, gen)
				}
			}
		})
	}
	readStores := []*postgres.Store{openStore(), openStore(), openStore(), openStore()}
	for i := range readers {
		s := readStores[i%len(readStores)]
		wg.Go(func() {
			last := map[string]int64{}
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for ctx.Err() == nil {
				r, err := s.Read(bg)
				if err != nil {
					fail("reader %d: Read: %v", i, err)
					continue
				}
				// Read every repository, twice, with pauses between, so
				// publishes and collections happen under the pinned view.
				var seen map[string]int64
				for pass := range 2 {
					now := map[string]int64{}
					for _, repo := range repos {
						st, err := checkView(bg, r, repo.Name)
						if err != nil {
							fail("reader %d: %v", i, err)
							continue
						}
						now[repo.Name] = st.Snapshot.ID
						if st.Snapshot.ID < last[repo.Name] {
							fail("reader %d: %s went back from snapshot %d to %d", i, repo.Name, last[repo.Name], st.Snapshot.ID)
						}
						time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
					}
					if pass == 1 {
						for name, id := range now {
							if seen[name] != id {
								fail("reader %d: the pinned view of %s moved from %d to %d", i, name, seen[name], id)
							}
						}
					}
					seen = now
				}
				for name, id := range seen {
					last[name] = id
				}
				if err := r.Close(); err != nil {
					fail("reader %d: Close: %v", i, err)
				}
				reads.Add(1)
			}
		})
	}
	wg.Wait()
	t.Logf("%s: %d publishes, %d pinned reads of all %d repositories, %d errors", d, publishes.Load(), reads.Load(), len(repos), errs.Load())
	for _, e := range firstErrs {
		t.Error(e)
	}
	if errs.Load() > 0 {
		t.Fatalf("%d errors", errs.Load())
	}
	if publishes.Load() < publishers || reads.Load() < readers {
		t.Fatalf("too little happened: %d publishes, %d reads", publishes.Load(), reads.Load())
	}

	// With every reader closed, collection leaves only current snapshots.
	if err := setup.Collect(bg); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	var snaps, orphans int
	if err := conn.QueryRow(bg, `SELECT count(*) FROM snapshots`).Scan(&snaps); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(bg, `SELECT count(*) FROM symbols WHERE snapshot_id NOT IN (SELECT current_snapshot FROM repositories)`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if snaps != len(repos) || orphans != 0 {
		t.Errorf("after collection: %d snapshots (want %d), %d symbols of old snapshots (want 0)", snaps, len(repos), orphans)
	}
}
