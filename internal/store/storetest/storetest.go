// Package storetest is the conformance suite of graph.Store. Every backend
// runs it from its own tests, so the query layer can rely on one behaviour
// whichever store it is given:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) graph.Store { ... a fresh, empty store ... })
//	}
//
// The suite checks what graph's interface documents and the choices the
// backends share where the documentation leaves room (orderings, how
// unknown names and kinds are reported).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// Run runs the conformance suite. open must return a fresh, empty store
// each time it is called; Run closes every store it opens.
func Run(t *testing.T, open func(t *testing.T) graph.Store) {
	fresh := func(t *testing.T) graph.Store {
		t.Helper()
		s := open(t)
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("closing store: %v", err)
			}
		})
		return s
	}
	t.Run("EnsureRepository", func(t *testing.T) { testEnsureRepository(t, fresh(t)) })
	t.Run("PublishVisibility", func(t *testing.T) { testPublishVisibility(t, fresh(t)) })
	t.Run("Abort", func(t *testing.T) { testAbort(t, fresh(t)) })
	t.Run("MonotonicSnapshots", func(t *testing.T) { testMonotonicSnapshots(t, fresh(t)) })
	t.Run("GarbageCollection", func(t *testing.T) { testGarbageCollection(t, fresh(t)) })
	t.Run("XrefVisibility", func(t *testing.T) { testXrefVisibility(t, fresh(t)) })
	t.Run("XrefWriteErrors", func(t *testing.T) { testXrefWriteErrors(t, fresh(t)) })
	t.Run("ImplicitRefs", func(t *testing.T) { testImplicitRefs(t, fresh(t)) })
	t.Run("Effects", func(t *testing.T) { testEffects(t, fresh(t)) })
	t.Run("SearchText", func(t *testing.T) { testSearchText(t, fresh(t)) })
	t.Run("SearchTextPrefix", func(t *testing.T) { testSearchTextPrefix(t, fresh(t)) })
	t.Run("Language", func(t *testing.T) { testLanguage(t, fresh(t)) })
	t.Run("Provenance", func(t *testing.T) { testProvenance(t, fresh(t)) })
	t.Run("TestRuns", func(t *testing.T) { testTestRuns(t, fresh(t)) })

	// The query tests share one store holding the fixture.
	s := fresh(t)
	fx := loadFixture(t, s)
	t.Run("Repositories", func(t *testing.T) { testRepositories(t, s, fx) })
	t.Run("FindSymbols", func(t *testing.T) { testFindSymbols(t, s) })
	t.Run("FindSymbolsPaging", func(t *testing.T) { testFindSymbolsPaging(t, s) })
	t.Run("FindSymbolsInvalid", func(t *testing.T) { testFindSymbolsInvalid(t, s) })
	t.Run("SymbolByKey", func(t *testing.T) { testSymbolByKey(t, s, fx) })
	t.Run("LookupSymbols", func(t *testing.T) { testLookupSymbols(t, s) })
	t.Run("Children", func(t *testing.T) { testChildren(t, s, fx) })
	t.Run("FilesAndPackages", func(t *testing.T) { testFilesAndPackages(t, s, fx) })
	t.Run("Diagnostics", func(t *testing.T) { testDiagnostics(t, s, fx) })
	t.Run("NotFound", func(t *testing.T) { testNotFound(t, s, fx) })
	t.Run("SymbolsByKeys", func(t *testing.T) { testSymbolsByKeys(t, s, fx) })
	t.Run("Refs", func(t *testing.T) { testRefs(t, s, fx) })
	t.Run("RefsInvalid", func(t *testing.T) { testRefsInvalid(t, s, fx) })
	t.Run("CallEdges", func(t *testing.T) { testCallEdges(t, s, fx) })
	t.Run("CallEdgesInvalid", func(t *testing.T) { testCallEdgesInvalid(t, s, fx) })
	t.Run("UnresolvedCalls", func(t *testing.T) { testUnresolvedCalls(t, s) })
	t.Run("UseCounts", func(t *testing.T) { testUseCounts(t, s, fx) })
	t.Run("Implementations", func(t *testing.T) { testImplementations(t, s, fx) })
}

// The fixture: two repositories, alpha (two packages) and beta (one),
// with overlapping names so that ranking, filters and repository scoping
// all have something to tell apart.

const (
	alpha = "alpha"
	beta  = "beta"
)

// fixture is what loadFixture wrote, for comparison with what is read.
type fixture struct {
	repos    map[string]graph.Repository
	snaps    map[string]graph.Snapshot
	modules  map[string][]graph.Module
	packages map[string][]graph.Package // ordered by path
	files    map[string][]graph.File    // ordered by path
	symbols  map[string]graph.Symbol    // by qualified name + "@" + repository
	diags    map[string][]graph.Diagnostic
	xrefs    map[string]xrefs // cross-references by repository
}

// sym builds a fixture symbol with its stable key.
func sym(repo, pkgPath, pkgName, path, qn string, kind graph.Kind, line int, opts ...func(*graph.Symbol)) graph.Symbol {
	name := qn
	if i := strings.LastIndexByte(qn, '.'); i >= 0 {
		name = qn[i+1:]
	}
	s := graph.Symbol{
		Repository:    repo,
		PackagePath:   pkgPath,
		PackageName:   pkgName,
		ModulePath:    "example.com/" + repo,
		Path:          path,
		Name:          name,
		QualifiedName: qn,
		Kind:          kind,
		Signature:     string(kind) + " " + qn,
		Doc:           qn + " is a fixture.",
		Exported:      name[0] >= 'A' && name[0] <= 'Z',
		TestOnly:      strings.HasSuffix(path, "_test.go"),
		StartLine:     line,
		StartCol:      1,
		EndLine:       line + 2,
		EndCol:        2,
	}
	variant := ""
	if s.TestOnly {
		variant = "test"
	}
	s.Key = graph.StableKey(graph.Identity{Language: "go", Repository: repo, PackagePath: pkgPath,
		QualifiedName: qn, Kind: kind, Variant: variant})
	for _, o := range opts {
		o(&s)
	}
	return s
}

func child(parent graph.Symbol, recv string) func(*graph.Symbol) {
	return func(s *graph.Symbol) {
		s.Parent = parent.Key
		s.Receiver = recv
	}
}

func loadFixture(t *testing.T, s graph.Store) *fixture {
	t.Helper()
	ctx := context.Background()
	fx := &fixture{
		repos:    map[string]graph.Repository{},
		snaps:    map[string]graph.Snapshot{},
		modules:  map[string][]graph.Module{},
		packages: map[string][]graph.Package{},
		files:    map[string][]graph.File{},
		symbols:  map[string]graph.Symbol{},
		diags:    map[string][]graph.Diagnostic{},
		xrefs:    map[string]xrefs{},
	}

	// alpha
	const srv, cli = "example.com/alpha/server", "example.com/alpha/client"
	mux := sym(alpha, srv, "server", "server/mux.go", "ServeMux", graph.KindType, 5)
	server := sym(alpha, srv, "server", "server/server.go", "Server", graph.KindType, 3)
	client := sym(alpha, cli, "client", "client/client.go", "Client", graph.KindType, 3)
	serverSyms := []graph.Symbol{
		// Written out of source order, to check that Children sorts.
		sym(alpha, srv, "server", "server/mux.go", "ServeMux.ServeHTTP", graph.KindMethod, 30, child(mux, "*ServeMux")),
		mux,
		sym(alpha, srv, "server", "server/mux.go", "ServeMux.mu", graph.KindField, 6, child(mux, "")),
		sym(alpha, srv, "server", "server/mux.go", "ServeMux.Handle", graph.KindMethod, 20, child(mux, "*ServeMux")),
		sym(alpha, srv, "server", "server/mux.go", "NewServeMux", graph.KindFunc, 40),
		server,
		sym(alpha, srv, "server", "server/server.go", "Server.Serve", graph.KindMethod, 10, child(server, "*Server")),
		sym(alpha, srv, "server", "server/server.go", "newServer", graph.KindFunc, 20),
		sym(alpha, srv, "server", "server/server.go", "HTTPServer", graph.KindType, 30),
		sym(alpha, srv, "server", "server/server_test.go", "TestServer", graph.KindFunc, 5),
		sym(alpha, srv, "server", "server/server_test.go", "serveHelper", graph.KindFunc, 15),
	}
	clientSyms := []graph.Symbol{
		client,
		sym(alpha, cli, "client", "client/client.go", "serve", graph.KindFunc, 10),
		sym(alpha, cli, "client", "client/client.go", "Client.Serve", graph.KindMethod, 20, child(client, "Client")),
	}
	srvPkg := graph.Package{Path: srv, Name: "server", ModulePath: "example.com/alpha", Dir: "server",
		Hash: strings.Repeat("a", 64), Errors: 1}
	cliPkg := graph.Package{Path: cli, Name: "client", ModulePath: "example.com/alpha", Dir: "client",
		Hash: strings.Repeat("b", 64)}
	file := func(path, pkg string) graph.File {
		return graph.File{Path: path, Package: pkg, Hash: strings.Repeat("c", 64), Size: int64(100 + len(path)),
			ModTimeNS: 1700000000000000000 + int64(len(path)), Test: strings.HasSuffix(path, "_test.go")}
	}
	srvFiles := []graph.File{file("server/server_test.go", srv), file("server/mux.go", srv), file("server/server.go", srv)}
	cliFiles := []graph.File{file("client/client.go", cli)}
	ignored := graph.File{Path: "client/client_windows.go", Hash: strings.Repeat("d", 64), Size: 42, Ignored: true}
	typeErr := graph.Diagnostic{Package: srv, Path: "server/server.go", Line: 12, Col: 3, Kind: "type",
		Message: "undefined: frob"}
	modErr := graph.Diagnostic{Kind: "list", Message: "go.mod: unknown directive"}
	alphaMods := []graph.Module{{Path: "example.com/alpha", Dir: ".", GoVersion: "1.22"},
		{Path: "example.com/alpha/tools", Dir: "tools", GoVersion: "1.23"}}

	// beta
	betaSyms := []graph.Symbol{
		sym(beta, "example.com/beta", "beta", "beta.go", "Serve", graph.KindFunc, 3),
		sym(beta, "example.com/beta", "beta", "beta.go", "ServeMux", graph.KindType, 10),
	}
	betaPkg := graph.Package{Path: "example.com/beta", Name: "beta", ModulePath: "example.com/beta", Dir: ".",
		Hash: strings.Repeat("e", 64)}
	betaFiles := []graph.File{file("beta.go", "example.com/beta")}
	betaMods := []graph.Module{{Path: "example.com/beta", Dir: ".", GoVersion: "1.21"}}

	keys := map[string]string{}
	for _, list := range [][]graph.Symbol{serverSyms, clientSyms, betaSyms} {
		for _, sy := range list {
			keys[sy.QualifiedName+"@"+sy.Repository] = sy.Key
		}
	}
	fx.xrefs = fixtureXrefs(keys)

	write := func(name string, mods []graph.Module, add func(w graph.SnapshotWriter) error) {
		repo, err := s.EnsureRepository(ctx, "/src/"+name, name)
		if err != nil {
			t.Fatalf("EnsureRepository(%s): %v", name, err)
		}
		w, err := s.BeginSnapshot(ctx, repo, "head-"+name)
		if err != nil {
			t.Fatalf("BeginSnapshot(%s): %v", name, err)
		}
		defer w.Abort()
		if err := w.AddModules(ctx, mods); err != nil {
			t.Fatalf("AddModules(%s): %v", name, err)
		}
		if err := add(w); err != nil {
			t.Fatalf("writing %s: %v", name, err)
		}
		if err := fx.xrefs[name].add(ctx, w); err != nil {
			t.Fatalf("writing cross-references of %s: %v", name, err)
		}
		snap, err := w.Publish(ctx)
		if err != nil {
			t.Fatalf("Publish(%s): %v", name, err)
		}
		repo.VCSHead = "head-" + name
		fx.repos[name] = repo
		fx.snaps[name] = snap
		fx.modules[name] = mods
	}
	write(alpha, alphaMods, func(w graph.SnapshotWriter) error {
		if err := w.AddPackage(ctx, srvPkg, srvFiles, serverSyms, []graph.Diagnostic{typeErr}); err != nil {
			return err
		}
		if err := w.AddPackage(ctx, cliPkg, cliFiles, clientSyms, nil); err != nil {
			return err
		}
		if err := w.AddFiles(ctx, []graph.File{ignored}); err != nil {
			return err
		}
		return w.AddDiagnostics(ctx, []graph.Diagnostic{modErr})
	})
	write(beta, betaMods, func(w graph.SnapshotWriter) error {
		return w.AddPackage(ctx, betaPkg, betaFiles, betaSyms, nil)
	})

	fx.packages[alpha] = []graph.Package{cliPkg, srvPkg}
	fx.packages[beta] = []graph.Package{betaPkg}
	fx.files[alpha] = []graph.File{cliFiles[0], ignored, srvFiles[1], srvFiles[2], srvFiles[0]}
	fx.files[beta] = betaFiles
	fx.diags[alpha] = []graph.Diagnostic{modErr, typeErr}
	for _, list := range [][]graph.Symbol{serverSyms, clientSyms, betaSyms} {
		for _, sy := range list {
			fx.symbols[sy.QualifiedName+"@"+sy.Repository] = sy
		}
	}
	return fx
}

// read opens a Reader and closes it when the test ends.
func read(t *testing.T, s graph.Store) graph.Reader {
	t.Helper()
	r, err := s.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("closing reader: %v", err)
		}
	})
	return stripLayers(t, r)
}

// ids renders symbols as qualified_name@repository, the way the tests
// write their expectations.
func ids(syms []graph.Symbol) []string {
	out := make([]string, len(syms))
	for i, s := range syms {
		out[i] = s.QualifiedName + "@" + s.Repository
	}
	return out
}

func equalStrings(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

func testEnsureRepository(t *testing.T, s graph.Store) {
	ctx := context.Background()
	ensure := func(root, name string) graph.Repository {
		t.Helper()
		r, err := s.EnsureRepository(ctx, root, name)
		if err != nil {
			t.Fatalf("EnsureRepository(%q, %q): %v", root, name, err)
		}
		if r.ID == 0 || r.Root != filepath.Clean(root) { // cleaned, so \src\a\tools on Windows
			t.Fatalf("EnsureRepository(%q, %q) = %+v", root, name, r)
		}
		return r
	}
	a := ensure("/src/a/tools", "tools")
	tests := []struct {
		root, name, want string
	}{
		{"/src/a/tools", "tools", "tools"},         // same root: same repository
		{"/src/a/tools", "renamed", "tools"},       // an existing repository keeps its name
		{"/src/b/tools", "tools", "tools~2"},       // name taken by another root
		{"/src/c/tools", "tools", "tools~3"},       // and again
		{"/src/b/tools", "tools", "tools~2"},       // stable once chosen
		{"/src/d/tools~2", "tools~2", "tools~2~2"}, // the suffixed name is taken too
		{"/src/e/other", "other", "other"},
	}
	for _, tt := range tests {
		got := ensure(tt.root, tt.name)
		if got.Name != tt.want {
			t.Errorf("EnsureRepository(%q, %q).Name = %q, want %q", tt.root, tt.name, got.Name, tt.want)
		}
		if filepath.Clean(tt.root) == a.Root && got.ID != a.ID {
			t.Errorf("EnsureRepository(%q) ID = %d, want %d", tt.root, got.ID, a.ID)
		}
	}
	// Unpublished repositories are not listed.
	r := read(t, s)
	if st, err := r.Repositories(ctx); err != nil || len(st) != 0 {
		t.Errorf("Repositories before any publish = %v, %v; want none", st, err)
	}
}

// publishOne writes one snapshot of repo holding the named package-level
// functions in one package, and publishes it.
func publishOne(t *testing.T, s graph.Store, repo graph.Repository, names ...string) graph.Snapshot {
	t.Helper()
	ctx := context.Background()
	w := begin(t, s, repo)
	defer w.Abort()
	addNames(t, w, repo, names...)
	snap, err := w.Publish(ctx)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	return snap
}

func addNames(t *testing.T, w graph.SnapshotWriter, repo graph.Repository, names ...string) {
	t.Helper()
	pkgPath := "example.com/" + repo.Name
	var syms []graph.Symbol
	for i, n := range names {
		syms = append(syms, sym(repo.Name, pkgPath, "p", "p.go", n, graph.KindFunc, 10*(i+1)))
	}
	pkg := graph.Package{Path: pkgPath, Name: "p", ModulePath: pkgPath, Dir: "."}
	files := []graph.File{{Path: "p.go", Package: pkgPath}}
	if err := w.AddPackage(context.Background(), pkg, files, syms, nil); err != nil {
		t.Fatalf("AddPackage: %v", err)
	}
}

// names returns the names FindSymbols finds for a case-insensitive prefix
// "" (every symbol of the view), sorted by the ranking.
func visibleNames(t *testing.T, r graph.Reader) []string {
	t.Helper()
	syms, total, err := r.FindSymbols(context.Background(), graph.SymbolQuery{Mode: graph.MatchPrefix})
	if err != nil {
		t.Fatalf("FindSymbols: %v", err)
	}
	if total != len(syms) {
		t.Fatalf("FindSymbols total = %d, returned %d with no limit", total, len(syms))
	}
	out := make([]string, len(syms))
	for i, s := range syms {
		out[i] = s.Name
	}
	return out
}

func testPublishVisibility(t *testing.T, s graph.Store) {
	ctx := context.Background()
	repo := ensure(t, s, "vis")
	before := read(t, s)

	w, err := s.BeginSnapshot(ctx, repo, "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	addNames(t, w, repo, "One", "Two")
	during := read(t, s) // opened while the snapshot is written, before Publish
	for name, r := range map[string]graph.Reader{"before": before, "during": during} {
		if got := visibleNames(t, r); len(got) != 0 {
			t.Errorf("%s reader sees %v before Publish", name, got)
		}
		if _, err := r.Repository(ctx, "vis"); !errors.Is(err, graph.ErrNotFound) {
			t.Errorf("%s reader: Repository before Publish: err = %v, want ErrNotFound", name, err)
		}
	}
	s1, err := w.Publish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := visibleNames(t, during); len(got) != 0 {
		t.Errorf("reader opened before Publish sees %v after it", got)
	}

	v1 := read(t, s)
	if got, want := visibleNames(t, v1), []string{"One", "Two"}; !equalStrings(got, want) {
		t.Errorf("after Publish: names = %v, want %v", got, want)
	}
	st, err := v1.Repository(ctx, "vis")
	if err != nil {
		t.Fatal(err)
	}
	if st.Snapshot.ID != s1.ID || st.VCSHead != "v1" || st.Symbols != 2 {
		t.Errorf("Repository after Publish = %+v, want snapshot %d, head v1, 2 symbols", st, s1.ID)
	}
	oneKey := graph.StableKey(graph.Identity{Language: "go", Repository: "vis", PackagePath: "example.com/vis",
		QualifiedName: "One", Kind: graph.KindFunc})

	// A second publish (which collects the first snapshot) does not change
	// what v1 sees.
	s2 := publishOne(t, s, repo, "Three")
	if s2.ID <= s1.ID {
		t.Errorf("second snapshot id %d not after first %d", s2.ID, s1.ID)
	}
	if got, want := visibleNames(t, v1), []string{"One", "Two"}; !equalStrings(got, want) {
		t.Errorf("pinned reader after second Publish: names = %v, want %v", got, want)
	}
	if _, err := v1.SymbolByKey(ctx, oneKey); err != nil {
		t.Errorf("pinned reader: SymbolByKey(One) after second Publish: %v", err)
	}
	if st, err := v1.Repository(ctx, "vis"); err != nil || st.Snapshot.ID != s1.ID {
		t.Errorf("pinned reader: Repository = %+v, %v; want snapshot %d", st, err, s1.ID)
	}

	v2 := read(t, s)
	if got, want := visibleNames(t, v2), []string{"Three"}; !equalStrings(got, want) {
		t.Errorf("after second Publish: names = %v, want %v", got, want)
	}
	if _, err := v2.SymbolByKey(ctx, oneKey); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("new reader: SymbolByKey(One) err = %v, want ErrNotFound", err)
	}
	if st, err := v2.Repository(ctx, "vis"); err != nil || st.Snapshot.ID != s2.ID || st.VCSHead != "" {
		t.Errorf("new reader: Repository = %+v, %v; want snapshot %d, no head", st, err, s2.ID)
	}
}

func testAbort(t *testing.T, s graph.Store) {
	ctx := context.Background()
	repo := ensure(t, s, "abort")
	s1 := publishOne(t, s, repo, "Kept")

	tests := []struct {
		name  string
		write bool // add records before aborting
	}{
		{"after writing", true},
		{"before writing", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := s.BeginSnapshot(ctx, repo, "aborted")
			if err != nil {
				t.Fatal(err)
			}
			if tt.write {
				addNames(t, w, repo, "Lost")
			}
			if err := w.Abort(); err != nil {
				t.Fatalf("Abort: %v", err)
			}
			if err := w.Abort(); err != nil {
				t.Errorf("second Abort: %v", err)
			}
			if err := w.AddFiles(ctx, []graph.File{{Path: "x.go"}}); err == nil {
				t.Errorf("AddFiles after Abort succeeded")
			}
			if _, err := w.Publish(ctx); err == nil {
				t.Errorf("Publish after Abort succeeded")
			}
			r := read(t, s)
			if got, want := visibleNames(t, r), []string{"Kept"}; !equalStrings(got, want) {
				t.Errorf("after Abort: names = %v, want %v", got, want)
			}
			if st, err := r.Repository(ctx, "abort"); err != nil || st.Snapshot.ID != s1.ID || st.VCSHead != "" {
				t.Errorf("after Abort: Repository = %+v, %v; want snapshot %d", st, err, s1.ID)
			}
		})
	}

	// Abort after Publish is a no-op, so it can be deferred.
	w := begin(t, s, repo)
	addNames(t, w, repo, "Final")
	if _, err := w.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Publish: %v", err)
	}
	if _, err := w.Publish(ctx); err == nil {
		t.Errorf("second Publish succeeded")
	}
	if got, want := visibleNames(t, read(t, s)), []string{"Final"}; !equalStrings(got, want) {
		t.Errorf("after Publish and Abort: names = %v, want %v", got, want)
	}
}

func testMonotonicSnapshots(t *testing.T, s graph.Store) {
	ctx := context.Background()
	var repos []graph.Repository
	for _, name := range []string{"m1", "m2", "m3"} {
		r, err := s.EnsureRepository(ctx, "/src/"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		repos = append(repos, r)
	}
	var last int64
	for round := range 3 {
		for _, repo := range repos {
			snap := publishOne(t, s, repo, fmt.Sprintf("F%d", round))
			if snap.ID <= last {
				t.Errorf("snapshot %d of %s not after %d", snap.ID, repo.Name, last)
			}
			if snap.RepositoryID != repo.ID || snap.CreatedAt.IsZero() {
				t.Errorf("Publish = %+v, want repository %d and a creation time", snap, repo.ID)
			}
			last = snap.ID
		}
	}
	// An empty snapshot publishes too.
	w, err := s.BeginSnapshot(ctx, repos[0], "")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := w.Publish(ctx)
	if err != nil || snap.ID <= last {
		t.Fatalf("empty Publish = %+v, %v; want an id after %d", snap, err, last)
	}
	r := read(t, s)
	st, err := r.Repositories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 3 {
		t.Fatalf("Repositories = %d, want 3", len(st))
	}
	if st[0].Name != "m1" || st[0].Snapshot.ID != snap.ID || st[0].Symbols != 0 || st[0].Packages != 0 {
		t.Errorf("empty snapshot status = %+v, want snapshot %d with nothing in it", st[0], snap.ID)
	}
	if got := visibleNames(t, r); !equalStrings(got, []string{"F2", "F2"}) {
		t.Errorf("names = %v, want F2 of m2 and m3", got)
	}
}

func testGarbageCollection(t *testing.T, s graph.Store) {
	ctx := context.Background()
	a := ensure(t, s, "gca")
	b := ensure(t, s, "gcb")
	publishOne(t, s, a, "A1")
	bSnap := publishOne(t, s, b, "B1")
	for i := 2; i <= 4; i++ {
		publishOne(t, s, a, fmt.Sprintf("A%d", i))
	}
	r := read(t, s)
	// Only the current snapshots are reachable, and collecting a's old
	// snapshots left b's alone.
	if got, want := visibleNames(t, r), []string{"A4", "B1"}; !equalStrings(got, want) {
		t.Errorf("names = %v, want %v", got, want)
	}
	for i := 1; i <= 3; i++ {
		syms, err := r.LookupSymbols(ctx, graph.Lookup{QualifiedName: fmt.Sprintf("A%d", i)})
		if err != nil || len(syms) != 0 {
			t.Errorf("LookupSymbols(A%d) = %v, %v; want none", i, ids(syms), err)
		}
	}
	if st, err := r.Repository(ctx, "gcb"); err != nil || st.Snapshot.ID != bSnap.ID {
		t.Errorf("Repository(gcb) = %+v, %v; want snapshot %d", st, err, bSnap.ID)
	}
	files, err := r.Files(ctx, "gca")
	if err != nil || len(files) != 1 {
		t.Errorf("Files(gca) = %v, %v; want the current snapshot's one file", files, err)
	}
}

func testRepositories(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	list, err := r.Repositories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != alpha || list[1].Name != beta {
		t.Fatalf("Repositories = %+v, want alpha and beta", list)
	}
	want := map[string][4]int{alpha: {2, 5, 14, 2}, beta: {1, 1, 2, 0}} // packages, files, symbols, diagnostics
	for _, st := range list {
		one, err := r.Repository(ctx, st.Name)
		if err != nil {
			t.Fatalf("Repository(%s): %v", st.Name, err)
		}
		if !reflect.DeepEqual(one, st) {
			t.Errorf("Repository(%s) = %+v, listed as %+v", st.Name, one, st)
		}
		if st.Repository != fx.repos[st.Name] {
			t.Errorf("%s: repository = %+v, want %+v", st.Name, st.Repository, fx.repos[st.Name])
		}
		snap := fx.snaps[st.Name]
		if st.Snapshot.ID != snap.ID || st.Snapshot.RepositoryID != snap.RepositoryID ||
			!st.Snapshot.CreatedAt.Equal(snap.CreatedAt) {
			t.Errorf("%s: snapshot = %+v, want %+v", st.Name, st.Snapshot, snap)
		}
		if !reflect.DeepEqual(st.Modules, fx.modules[st.Name]) {
			t.Errorf("%s: modules = %+v, want %+v", st.Name, st.Modules, fx.modules[st.Name])
		}
		if got := [4]int{st.Packages, st.Files, st.Symbols, st.Diagnostics}; got != want[st.Name] {
			t.Errorf("%s: counts (packages, files, symbols, diagnostics) = %v, want %v", st.Name, got, want[st.Name])
		}
	}
}

func ptr[T any](v T) *T { return &v }

func testFindSymbols(t *testing.T, s graph.Store) {
	ctx := context.Background()
	r := read(t, s)
	// The ranking: case-sensitive exact name, case-insensitive exact,
	// prefix, the rest; then exported, non-test, shorter name, qualified
	// name, repository, path, line.
	prefixServe := []string{
		"serve@alpha",              // exact
		"Client.Serve@alpha",       // case-insensitive exact, by qualified name
		"Serve@beta",               //
		"Server.Serve@alpha",       //
		"Server@alpha",             // prefix: exported, shorter first,
		"ServeMux@alpha",           // then by repository
		"ServeMux@beta",            //
		"ServeMux.ServeHTTP@alpha", //
		"serveHelper@alpha",        // unexported and test-only
	}
	substringServe := append(append([]string{}, prefixServe...),
		"HTTPServer@alpha",  // the rest: exported non-test, shorter first
		"NewServeMux@alpha", //
		"TestServer@alpha",  // exported test
		"newServer@alpha",   // unexported
	)
	tests := []struct {
		name string
		q    graph.SymbolQuery
		want []string
	}{
		{"exact", graph.SymbolQuery{Name: "Serve", Mode: graph.MatchExact},
			[]string{"Client.Serve@alpha", "Serve@beta", "Server.Serve@alpha"}},
		{"exact is case-sensitive", graph.SymbolQuery{Name: "serve", Mode: graph.MatchExact},
			[]string{"serve@alpha"}},
		{"exact default mode", graph.SymbolQuery{Name: "ServeMux"},
			[]string{"ServeMux@alpha", "ServeMux@beta"}},
		{"exact qualified", graph.SymbolQuery{Name: "ServeMux.Handle", Mode: graph.MatchExact},
			[]string{"ServeMux.Handle@alpha"}},
		{"exact qualified is case-sensitive", graph.SymbolQuery{Name: "servemux.handle", Mode: graph.MatchExact}, nil},
		{"exact none", graph.SymbolQuery{Name: "Serv", Mode: graph.MatchExact}, nil},
		{"prefix", graph.SymbolQuery{Name: "serve", Mode: graph.MatchPrefix}, prefixServe},
		{"prefix upper", graph.SymbolQuery{Name: "SERVEM", Mode: graph.MatchPrefix},
			[]string{"ServeMux@alpha", "ServeMux@beta"}},
		{"substring", graph.SymbolQuery{Name: "serve", Mode: graph.MatchSubstring}, substringServe},
		{"substring middle", graph.SymbolQuery{Name: "EMU", Mode: graph.MatchSubstring},
			[]string{"ServeMux@alpha", "ServeMux@beta", "NewServeMux@alpha"}},
		{"fuzzy humps", graph.SymbolQuery{Name: "NewSrvMux", Mode: graph.MatchFuzzy},
			[]string{"NewServeMux@alpha"}},
		{"fuzzy initials", graph.SymbolQuery{Name: "NSM", Mode: graph.MatchFuzzy},
			[]string{"NewServeMux@alpha"}},
		{"fuzzy unanchored", graph.SymbolQuery{Name: "SrvMux", Mode: graph.MatchFuzzy},
			[]string{"ServeMux@alpha", "ServeMux@beta", "NewServeMux@alpha"}},
		{"fuzzy exact first", graph.SymbolQuery{Name: "ServeMux", Mode: graph.MatchFuzzy},
			[]string{"ServeMux@alpha", "ServeMux@beta", "NewServeMux@alpha"}},
		{"fuzzy acronym", graph.SymbolQuery{Name: "HttpSrv", Mode: graph.MatchFuzzy},
			[]string{"HTTPServer@alpha"}},
		{"fuzzy acronym letters", graph.SymbolQuery{Name: "HSrv", Mode: graph.MatchFuzzy},
			[]string{"HTTPServer@alpha"}},
		{"fuzzy lower-case hump", graph.SymbolQuery{Name: "srvHlp", Mode: graph.MatchFuzzy},
			[]string{"serveHelper@alpha"}},
		{"fuzzy one hump stays in one hump", graph.SymbolQuery{Name: "srvhlp", Mode: graph.MatchFuzzy}, nil},
		{"fuzzy order matters", graph.SymbolQuery{Name: "MuxNew", Mode: graph.MatchFuzzy}, nil},
		{"fuzzy humps start alike", graph.SymbolQuery{Name: "NewErvMux", Mode: graph.MatchFuzzy}, nil},
		{"filter kind", graph.SymbolQuery{Name: "serve", Mode: graph.MatchPrefix, Kinds: []graph.Kind{graph.KindMethod}},
			[]string{"Client.Serve@alpha", "Server.Serve@alpha", "ServeMux.ServeHTTP@alpha"}},
		{"filter kinds", graph.SymbolQuery{Name: "serve", Mode: graph.MatchPrefix,
			Kinds: []graph.Kind{graph.KindType, graph.KindFunc}},
			[]string{"serve@alpha", "Serve@beta", "Server@alpha", "ServeMux@alpha", "ServeMux@beta", "serveHelper@alpha"}},
		{"filter repository", graph.SymbolQuery{Name: "serve", Mode: graph.MatchPrefix, Repositories: []string{beta}},
			[]string{"Serve@beta", "ServeMux@beta"}},
		{"filter repositories", graph.SymbolQuery{Name: "serve", Mode: graph.MatchPrefix,
			Repositories: []string{beta, alpha}}, prefixServe},
		{"filter unknown repository", graph.SymbolQuery{Name: "serve", Mode: graph.MatchPrefix,
			Repositories: []string{"nope"}}, nil},
		{"filter path prefix", graph.SymbolQuery{Name: "serve", Mode: graph.MatchPrefix, PathPrefix: "client/"},
			[]string{"serve@alpha", "Client.Serve@alpha"}},
		{"filter path prefix is a string prefix", graph.SymbolQuery{Name: "serve", Mode: graph.MatchSubstring,
			PathPrefix: "server/server"},
			[]string{"Server.Serve@alpha", "Server@alpha", "serveHelper@alpha", "HTTPServer@alpha", "TestServer@alpha",
				"newServer@alpha"}},
		{"filter unexported", graph.SymbolQuery{Name: "serve", Mode: graph.MatchPrefix, Exported: ptr(false)},
			[]string{"serve@alpha", "serveHelper@alpha"}},
		{"filter exported", graph.SymbolQuery{Name: "new", Mode: graph.MatchSubstring, Exported: ptr(true)},
			[]string{"NewServeMux@alpha"}},
		{"filters combined", graph.SymbolQuery{Name: "SrvMux", Mode: graph.MatchFuzzy, Repositories: []string{alpha},
			Kinds: []graph.Kind{graph.KindType}, Exported: ptr(true), PathPrefix: "server/"},
			[]string{"ServeMux@alpha"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total, err := r.FindSymbols(ctx, tt.q)
			if err != nil {
				t.Fatalf("FindSymbols(%+v): %v", tt.q, err)
			}
			if !equalStrings(ids(got), tt.want) {
				t.Errorf("FindSymbols(%+v)\n got %v\nwant %v", tt.q, ids(got), tt.want)
			}
			if total != len(tt.want) {
				t.Errorf("FindSymbols(%+v) total = %d, want %d", tt.q, total, len(tt.want))
			}
			// Brief gives the same symbols in the same order, the fields
			// it promises equal to the whole rows'.
			bq := tt.q
			bq.Brief = true
			brief, btotal, err := r.FindSymbols(ctx, bq)
			if err != nil {
				t.Fatalf("FindSymbols(%+v): %v", bq, err)
			}
			if btotal != total || len(brief) != len(got) {
				t.Fatalf("brief: %d of %d, whole: %d of %d", len(brief), btotal, len(got), total)
			}
			for i := range got {
				if b, w := briefOf(brief[i]), briefOf(got[i]); b != w {
					t.Errorf("brief row %d:\n got %+v\nwant %+v", i, b, w)
				}
			}
		})
	}
}

// briefOf keeps the fields graph.SymbolQuery.Brief promises.
func briefOf(s graph.Symbol) graph.Symbol {
	return graph.Symbol{Key: s.Key, Repository: s.Repository, Path: s.Path, Name: s.Name, QualifiedName: s.QualifiedName,
		Kind: s.Kind, Signature: s.Signature, Exported: s.Exported, TestOnly: s.TestOnly,
		StartLine: s.StartLine, StartCol: s.StartCol, EndLine: s.EndLine, EndCol: s.EndCol}
}

func testFindSymbolsPaging(t *testing.T, s graph.Store) {
	ctx := context.Background()
	r := read(t, s)
	for _, mode := range []graph.MatchMode{graph.MatchPrefix, graph.MatchSubstring, graph.MatchFuzzy} {
		all, total, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "serve", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if total != len(all) || total < 5 {
			t.Fatalf("%s: total %d, returned %d", mode, total, len(all))
		}
		tests := []struct{ offset, limit int }{{0, 3}, {2, 3}, {total - 2, 5}, {total, 3}, {total + 5, 3}, {1, 0}}
		for _, tt := range tests {
			page, n, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "serve", Mode: mode, Offset: tt.offset, Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			end := len(all)
			if tt.limit > 0 {
				end = min(tt.offset+tt.limit, len(all))
			}
			var want []graph.Symbol
			if tt.offset < len(all) {
				want = all[tt.offset:end]
			}
			if n != total || !equalStrings(ids(page), ids(want)) {
				t.Errorf("%s offset %d limit %d: got %v (total %d), want %v (total %d)",
					mode, tt.offset, tt.limit, ids(page), n, ids(want), total)
			}
		}
	}
}

func testFindSymbolsInvalid(t *testing.T, s graph.Store) {
	ctx := context.Background()
	r := read(t, s)
	for _, q := range []graph.SymbolQuery{
		{Name: "x", Mode: "regexp"},
		{Name: "x", Mode: graph.MatchPrefix, Kinds: []graph.Kind{"class"}},
	} {
		if _, _, err := r.FindSymbols(ctx, q); graph.CodeOf(err) != graph.CodeInvalidArgument {
			t.Errorf("FindSymbols(%+v) err = %v, want INVALID_ARGUMENT", q, err)
		}
	}
}

func testSymbolByKey(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	for id, want := range fx.symbols {
		got, err := r.SymbolByKey(ctx, want.Key)
		if err != nil {
			t.Errorf("SymbolByKey(%s): %v", id, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SymbolByKey(%s)\n got %+v\nwant %+v", id, got, want)
		}
	}
}

func testLookupSymbols(t *testing.T, s graph.Store) {
	ctx := context.Background()
	r := read(t, s)
	tests := []struct {
		l    graph.Lookup
		want []string
	}{
		{graph.Lookup{QualifiedName: "Serve"}, []string{"Serve@beta"}},
		{graph.Lookup{QualifiedName: "Server.Serve"}, []string{"Server.Serve@alpha"}},
		{graph.Lookup{QualifiedName: "ServeMux"}, []string{"ServeMux@alpha", "ServeMux@beta"}},
		{graph.Lookup{QualifiedName: "ServeMux", Repository: beta}, []string{"ServeMux@beta"}},
		{graph.Lookup{QualifiedName: "ServeMux", PackagePath: "example.com/alpha/server"}, []string{"ServeMux@alpha"}},
		{graph.Lookup{QualifiedName: "ServeMux", PackageName: "beta"}, []string{"ServeMux@beta"}},
		{graph.Lookup{QualifiedName: "ServeMux", PathPrefix: "server/"}, []string{"ServeMux@alpha"}},
		{graph.Lookup{QualifiedName: "ServeMux", PathPrefix: "be"}, []string{"ServeMux@beta"}},
		{graph.Lookup{QualifiedName: "ServeMux", Repository: alpha, PackageName: "beta"}, nil},
		{graph.Lookup{QualifiedName: "ServeMux", Repository: "nope"}, nil},
		{graph.Lookup{QualifiedName: "servemux"}, nil},
		{graph.Lookup{QualifiedName: "Nope"}, nil},
	}
	for _, tt := range tests {
		got, err := r.LookupSymbols(ctx, tt.l)
		if err != nil {
			t.Errorf("LookupSymbols(%+v): %v", tt.l, err)
			continue
		}
		if !equalStrings(ids(got), tt.want) {
			t.Errorf("LookupSymbols(%+v) = %v, want %v", tt.l, ids(got), tt.want)
		}
	}
}

func testChildren(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	mux := fx.symbols["ServeMux@alpha"].Key
	server := fx.symbols["Server@alpha"].Key
	tests := []struct {
		repo, parent string
		want         []string
	}{
		{alpha, mux, []string{"ServeMux.mu@alpha", "ServeMux.Handle@alpha", "ServeMux.ServeHTTP@alpha"}},
		{"", mux, []string{"ServeMux.mu@alpha", "ServeMux.Handle@alpha", "ServeMux.ServeHTTP@alpha"}},
		{alpha, server, []string{"Server.Serve@alpha"}},
		{beta, mux, nil},
		{alpha, fx.symbols["NewServeMux@alpha"].Key, nil},
	}
	for _, tt := range tests {
		got, err := r.Children(ctx, tt.repo, tt.parent)
		if err != nil {
			t.Errorf("Children(%q, %s): %v", tt.repo, tt.parent, err)
			continue
		}
		if !equalStrings(ids(got), tt.want) {
			t.Errorf("Children(%q, %s) = %v, want %v", tt.repo, tt.parent, ids(got), tt.want)
		}
	}
	got, err := r.Children(ctx, alpha, mux)
	if err == nil && len(got) > 0 && !reflect.DeepEqual(got[0], fx.symbols["ServeMux.mu@alpha"]) {
		t.Errorf("Children(alpha, ServeMux)[0] = %+v, want %+v", got[0], fx.symbols["ServeMux.mu@alpha"])
	}
}

func testFilesAndPackages(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	for _, repo := range []string{alpha, beta} {
		files, err := r.Files(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(files, fx.files[repo]) {
			t.Errorf("Files(%s)\n got %+v\nwant %+v", repo, files, fx.files[repo])
		}
		for _, want := range fx.files[repo] {
			got, err := r.File(ctx, repo, want.Path)
			if err != nil || got != want {
				t.Errorf("File(%s, %s) = %+v, %v; want %+v", repo, want.Path, got, err, want)
			}
		}
		pkgs, err := r.Packages(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pkgs, fx.packages[repo]) {
			t.Errorf("Packages(%s)\n got %+v\nwant %+v", repo, pkgs, fx.packages[repo])
		}
		for _, want := range fx.packages[repo] {
			got, err := r.Package(ctx, repo, want.Path)
			if err != nil || got != want {
				t.Errorf("Package(%s, %s) = %+v, %v; want %+v", repo, want.Path, got, err, want)
			}
		}
	}
	// A file of one repository is not found in another.
	if _, err := r.File(ctx, beta, "server/mux.go"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("File(beta, server/mux.go) err = %v, want ErrNotFound", err)
	}
	if _, err := r.Package(ctx, beta, "example.com/alpha/server"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("Package(beta, example.com/alpha/server) err = %v, want ErrNotFound", err)
	}
}

func testDiagnostics(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	tests := []struct {
		repo  string
		limit int
		want  []graph.Diagnostic
	}{
		{alpha, 0, fx.diags[alpha]},
		{alpha, 1, fx.diags[alpha][:1]},
		{alpha, 10, fx.diags[alpha]},
		{beta, 0, nil},
	}
	for _, tt := range tests {
		got, err := r.Diagnostics(ctx, tt.repo, tt.limit)
		if err != nil {
			t.Errorf("Diagnostics(%s, %d): %v", tt.repo, tt.limit, err)
			continue
		}
		if len(got) != len(tt.want) || len(got) > 0 && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Diagnostics(%s, %d)\n got %+v\nwant %+v", tt.repo, tt.limit, got, tt.want)
		}
	}
}

func testNotFound(t *testing.T, s graph.Store, fx *fixture) {
	ctx := context.Background()
	r := read(t, s)
	// An existing repository with no published snapshot is not found either.
	if _, err := s.EnsureRepository(ctx, "/src/unpublished", "unpublished"); err != nil {
		t.Fatal(err)
	}
	r2 := read(t, s)
	calls := []struct {
		name string
		err  func() error
	}{
		{"Repository", func() error { _, err := r.Repository(ctx, "nope"); return err }},
		{"Repository unpublished", func() error { _, err := r2.Repository(ctx, "unpublished"); return err }},
		{"SymbolByKey", func() error { _, err := r.SymbolByKey(ctx, strings.Repeat("A", 32)); return err }},
		{"File", func() error { _, err := r.File(ctx, alpha, "missing.go"); return err }},
		{"File repository", func() error { _, err := r.File(ctx, "nope", "server/mux.go"); return err }},
		{"Files", func() error { _, err := r.Files(ctx, "nope"); return err }},
		{"Package", func() error { _, err := r.Package(ctx, alpha, "example.com/missing"); return err }},
		{"Package repository", func() error { _, err := r.Package(ctx, "nope", "example.com/beta"); return err }},
		{"Packages", func() error { _, err := r.Packages(ctx, "nope"); return err }},
		{"Diagnostics", func() error { _, err := r.Diagnostics(ctx, "nope", 0); return err }},
		{"Children", func() error { _, err := r.Children(ctx, "nope", fx.symbols["ServeMux@alpha"].Key); return err }},
		{"BeginSnapshot", func() error {
			_, err := s.BeginSnapshot(ctx, graph.Repository{ID: 1 << 40, Name: "ghost"}, "")
			return err
		}},
	}
	for _, c := range calls {
		if err := c.err(); !errors.Is(err, graph.ErrNotFound) {
			t.Errorf("%s: err = %v, want one wrapping graph.ErrNotFound", c.name, err)
		}
	}
}

// ensure adds the repository name, rooted at /src/name, failing the test
// if the store refuses it.
func ensure(t *testing.T, s graph.Store, name string) graph.Repository {
	t.Helper()
	repo, err := s.EnsureRepository(context.Background(), "/src/"+name, name)
	if err != nil {
		t.Fatalf("EnsureRepository(%s): %v", name, err)
	}
	return repo
}

// begin starts a snapshot of repo, failing the test if it cannot; the
// caller publishes or aborts it.
func begin(t *testing.T, s graph.Store, repo graph.Repository) graph.SnapshotWriter {
	t.Helper()
	w, err := s.BeginSnapshot(context.Background(), repo, "")
	if err != nil {
		t.Fatalf("BeginSnapshot: %v", err)
	}
	return w
}
