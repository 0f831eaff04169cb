package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// fakeStore records what Index writes. Only the writing half of
// graph.Store is implemented; Read is not needed here.
type fakeStore struct {
	repos   []graph.Repository
	writers []*fakeWriter
	failOn  string // name of a writer method that fails
}

var _ graph.Store = (*fakeStore)(nil)

func (s *fakeStore) EnsureRepository(ctx context.Context, root, name string) (graph.Repository, error) {
	r := graph.Repository{ID: int64(len(s.repos) + 1), Name: name, Root: root}
	s.repos = append(s.repos, r)
	return r, nil
}

func (s *fakeStore) BeginSnapshot(ctx context.Context, repo graph.Repository, vcsHead string) (graph.SnapshotWriter, error) {
	w := &fakeWriter{repo: repo, head: vcsHead, failOn: s.failOn}
	s.writers = append(s.writers, w)
	return w, nil
}

func (s *fakeStore) Read(ctx context.Context) (graph.Reader, error) {
	return graph.Reader{}, errors.New("fakeStore cannot read")
}

func (s *fakeStore) Close() error { return nil }

type fakeWriter struct {
	repo      graph.Repository
	head      string
	failOn    string
	modules   []graph.Module
	packages  []PackageRecords
	files     []graph.File
	diags     []graph.Diagnostic
	refs      []graph.Ref
	edges     []graph.CallEdge
	impls     []graph.Implements
	effects   []graph.EffectRecord
	published bool
	aborted   bool
}

func (w *fakeWriter) fail(method string) error {
	if w.failOn == method {
		return errors.New(method + " failed")
	}
	return nil
}

func (w *fakeWriter) AddModules(ctx context.Context, mods []graph.Module) error {
	w.modules = append(w.modules, mods...)
	return w.fail("AddModules")
}

func (w *fakeWriter) AddPackage(ctx context.Context, pkg graph.Package, files []graph.File, syms []graph.Symbol, diags []graph.Diagnostic) error {
	w.packages = append(w.packages, PackageRecords{pkg, files, syms, diags})
	return w.fail("AddPackage")
}

func (w *fakeWriter) AddFiles(ctx context.Context, files []graph.File) error {
	w.files = append(w.files, files...)
	return w.fail("AddFiles")
}

func (w *fakeWriter) AddDiagnostics(ctx context.Context, diags []graph.Diagnostic) error {
	w.diags = append(w.diags, diags...)
	return w.fail("AddDiagnostics")
}

func (w *fakeWriter) AddRefs(ctx context.Context, refs []graph.Ref) error {
	w.refs = append(w.refs, refs...)
	return w.fail("AddRefs")
}

func (w *fakeWriter) AddCallEdges(ctx context.Context, edges []graph.CallEdge) error {
	w.edges = append(w.edges, edges...)
	return w.fail("AddCallEdges")
}

func (w *fakeWriter) AddImplements(ctx context.Context, impls []graph.Implements) error {
	w.impls = append(w.impls, impls...)
	return w.fail("AddImplements")
}

func (w *fakeWriter) AddEffects(ctx context.Context, recs []graph.EffectRecord) error {
	w.effects = append(w.effects, recs...)
	return w.fail("AddEffects")
}

func (w *fakeWriter) Publish(ctx context.Context) (graph.Snapshot, error) {
	if err := w.fail("Publish"); err != nil {
		return graph.Snapshot{}, err
	}
	if w.aborted {
		return graph.Snapshot{}, errors.New("publish after abort")
	}
	w.published = true
	return graph.Snapshot{ID: 7, RepositoryID: w.repo.ID}, nil
}

func (w *fakeWriter) Abort() error {
	if !w.published {
		w.aborted = true
	}
	return nil
}

func TestIndex(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, "testdata/kinds.txtar")
	writeFile(t, dir, ".git/HEAD", "ref: refs/heads/main\n")
	writeFile(t, dir, ".git/packed-refs", "# pack-refs with: peeled fully-peeled sorted\n"+
		"0123456789abcdef0123456789abcdef01234567 refs/heads/main\n")

	// Index through a symlink: the repository is recorded at the real path.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("cannot create symlinks: %v", err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Skipf("os.Symlink reported success and made no link (Wine 8 does): %v", err)
	}
	st := &fakeStore{}
	var phases []string
	res, err := Index(context.Background(), st, link, Options{Progress: func(p Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
		if p.Done > p.Total && p.Total > 0 {
			t.Errorf("progress %+v", p)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{PhaseDiscover, PhaseLoad, PhaseExtract, PhasePublish}; !slices.Equal(phases, want) {
		t.Errorf("phases %q, want %q", phases, want)
	}
	if len(st.writers) != 1 {
		t.Fatalf("%d snapshots begun", len(st.writers))
	}
	w := st.writers[0]
	if !w.published || w.aborted {
		t.Errorf("published %v aborted %v", w.published, w.aborted)
	}
	if res.Repository.Name != "example.com/kinds" || res.Repository.Root != dir {
		t.Errorf("repository %+v, want example.com/kinds at %s", res.Repository, dir)
	}
	if w.head != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("vcs head %q", w.head)
	}
	if res.Snapshot.ID != 7 || res.Duration <= 0 || res.Modules != 1 {
		t.Errorf("result %+v", res)
	}
	var pkgs, files, syms, diags int
	var paths []string
	for _, p := range w.packages {
		pkgs++
		files += len(p.Files)
		syms += len(p.Symbols)
		diags += len(p.Diagnostics)
		paths = append(paths, p.Package.Path)
	}
	if !slices.Equal(paths, []string{"example.com/kinds", "example.com/kinds/sub", "example.com/kinds_test"}) {
		t.Errorf("packages %q", paths)
	}
	files += len(w.files)
	diags += len(w.diags)
	if res.Packages != pkgs || res.Files != files || res.Symbols != syms || res.Diagnostics != diags || syms < 50 {
		t.Errorf("result counts %+v, written %d packages %d files %d symbols %d diagnostics", res, pkgs, files, syms, diags)
	}
	if res.Refs != len(w.refs) || res.CallEdges != len(w.edges) || res.Implementations != len(w.impls) ||
		len(w.refs) == 0 || len(w.edges) == 0 || len(w.impls) == 0 {
		t.Errorf("result counts %d refs, %d edges, %d implementations; written %d, %d, %d",
			res.Refs, res.CallEdges, res.Implementations, len(w.refs), len(w.edges), len(w.impls))
	}
	if len(w.files) != 1 || w.files[0].Path != "go.mod" || w.files[0].Package != "" || w.files[0].Hash == "" {
		t.Errorf("manifest files %+v", w.files)
	}
	if len(w.modules) != 1 || w.modules[0].Path != "example.com/kinds" {
		t.Errorf("modules %+v", w.modules)
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A module that cannot load at all becomes a diagnostic; the rest is
// indexed. The repository has no root module, so it is named after its
// directory.
func TestIndexUnitFailure(t *testing.T) {
	hermetic(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "multi")
	writeFile(t, dir, "good/go.mod", "module example.com/good\n\ngo 1.22\n")
	writeFile(t, dir, "good/g.go", "package good\n\nfunc G() {}\n")
	writeFile(t, dir, "future/go.mod", "module example.com/future\n\ngo 1.999\n")
	writeFile(t, dir, "future/f.go", "package future\n")
	writeFile(t, dir, "broken/go.mod", "module example.com/broken\nrequire (\n")

	st := &fakeStore{}
	res, err := Index(context.Background(), st, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repository.Name != "multi" {
		t.Errorf("repository named %q", res.Repository.Name)
	}
	w := st.writers[0]
	if len(w.packages) != 1 || w.packages[0].Package.Path != "example.com/good" {
		t.Errorf("packages %+v", w.packages)
	}
	var got []string
	for _, d := range w.diags {
		got = append(got, d.Path)
		if d.Kind != "list" || d.Message == "" {
			t.Errorf("diagnostic %+v", d)
		}
	}
	if !slices.Equal(got, []string{"broken/go.mod", "future/go.mod"}) {
		t.Errorf("diagnostics at %q", got)
	}

	// Nothing loadable: a coded error and no snapshot (the one begun,
	// before loading, is aborted).
	only := filepath.Join(dir, "future")
	st = &fakeStore{}
	_, err = Index(context.Background(), st, only, Options{})
	if graph.CodeOf(err) != graph.CodeIndexingFailed || slices.ContainsFunc(st.writers, func(w *fakeWriter) bool { return w.published || !w.aborted }) {
		t.Errorf("got %v with %d snapshots begun, some not aborted", err, len(st.writers))
	}
	var ge *graph.Error
	if errors.As(err, &ge) {
		if ds, _ := ge.Data["diagnostics"].([]graph.Diagnostic); len(ds) != 1 || !strings.Contains(ds[0].Message, "1.999") {
			t.Errorf("diagnostics %+v", ge.Data["diagnostics"])
		}
	}

	// No module at all.
	_, err = Index(context.Background(), &fakeStore{}, t.TempDir(), Options{})
	if graph.CodeOf(err) != graph.CodeIndexingFailed {
		t.Errorf("indexing an empty directory: %v", err)
	}
}

// Cancelling, or a failing write, aborts the snapshot: the previous one
// keeps serving.
func TestIndexAborts(t *testing.T) {
	hermetic(t)
	dir := txtartest.Write(t, "testdata/kinds.txtar")

	for _, phase := range []string{PhaseLoad, PhaseExtract, PhasePublish} {
		ctx, cancel := context.WithCancel(context.Background())
		st := &fakeStore{}
		_, err := Index(ctx, st, dir, Options{Progress: func(p Progress) {
			if p.Phase == phase && (p.Done == 1 || phase == PhaseLoad) {
				cancel()
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled in %s: got %v, want context.Canceled", phase, err)
		}
		for _, w := range st.writers {
			if !w.aborted || w.published {
				t.Errorf("cancelled in %s: writer not aborted", phase)
			}
		}
		if phase == PhasePublish && len(st.writers) != 1 {
			t.Errorf("cancelled in %s: %d snapshots begun", phase, len(st.writers))
		}
	}

	methods := []string{"AddModules", "AddFiles", "AddPackage", "AddRefs", "AddCallEdges", "AddImplements", "AddEffects", "Publish"}
	if testing.Short() {
		// The Windows stage (.ci/windows.sh): a whole index per method
		// takes ten seconds under Wine, for logic the same everywhere.
		methods = []string{"AddPackage", "Publish"}
	}
	for _, method := range methods {
		st := &fakeStore{failOn: method}
		_, err := Index(context.Background(), st, dir, Options{})
		if err == nil || !strings.Contains(err.Error(), method+" failed") {
			t.Errorf("%s failing: got %v", method, err)
		}
		if w := st.writers[0]; !w.aborted || w.published {
			t.Errorf("%s failing: writer aborted %v published %v", method, w.aborted, w.published)
		}
	}
}

func TestVCSHead(t *testing.T) {
	const (
		h1 = "1111111111111111111111111111111111111111"
		h2 = "2222222222222222222222222222222222222222"
	)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A loose ref, read from a subdirectory of the work tree.
	writeFile(t, base, "loose/.git/HEAD", "ref: refs/heads/main\n")
	writeFile(t, base, "loose/.git/refs/heads/main", h1+"\n")
	writeFile(t, base, "loose/sub/x", "")
	// A detached HEAD.
	writeFile(t, base, "detached/.git/HEAD", h2+"\n")
	// A packed ref.
	writeFile(t, base, "packed/.git/HEAD", "ref: refs/heads/dev\n")
	writeFile(t, base, "packed/.git/packed-refs", "# pack-refs\n"+h1+" refs/heads/main\n^"+h1+"\n"+h2+" refs/heads/dev\n")
	// A linked work tree: .git is a file, refs live in the common dir.
	writeFile(t, base, "main/.git/refs/heads/feature", h2+"\n")
	writeFile(t, base, "main/.git/worktrees/wt/HEAD", "ref: refs/heads/feature\n")
	writeFile(t, base, "main/.git/worktrees/wt/commondir", "../..\n")
	writeFile(t, base, "main/.git/worktrees/wt/gitdir", filepath.Join(base, "wt/.git")+"\n")
	writeFile(t, base, "wt/.git", "gitdir: "+filepath.Join(base, "main/.git/worktrees/wt")+"\n")
	// An unborn branch, and a ref that tries to leave the git dir.
	writeFile(t, base, "unborn/.git/HEAD", "ref: refs/heads/main\n")
	writeFile(t, base, "escape/.git/HEAD", "ref: refs/../../../etc/passwd\n")
	// A .git file naming another repository's git directory, or another
	// work tree's, and a commondir naming another repository's refs:
	// none is this work tree's.
	writeFile(t, base, "foreign/.git", "gitdir: "+filepath.Join(base, "main/.git")+"\n")
	writeFile(t, base, "main/.git/HEAD", "ref: refs/heads/feature\n")
	writeFile(t, base, "stolen/.git", "gitdir: "+filepath.Join(base, "main/.git/worktrees/wt")+"\n")
	writeFile(t, base, "common/.git/HEAD", "ref: refs/heads/feature\n")
	writeFile(t, base, "common/.git/commondir", filepath.Join(base, "main/.git")+"\n")

	for dir, want := range map[string]string{
		"loose/sub": h1,
		"detached":  h2,
		"packed":    h2,
		"wt":        h2,
		"unborn":    "",
		"escape":    "",
		"foreign":   "",
		"stolen":    "",
		"common":    "",
	} {
		if got := vcsHead(filepath.Join(base, dir)); got != want {
			t.Errorf("%s: head %q, want %q", dir, got, want)
		}
	}
}

// Two modules with one path (a copied example) cannot both be in a
// snapshot: the first is indexed, the second is a diagnostic.
func TestIndexDuplicateModulePath(t *testing.T) {
	hermetic(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"a", "b"} {
		writeFile(t, dir, sub+"/go.mod", "module example.com/dup\n\ngo 1.22\n")
		writeFile(t, dir, sub+"/d.go", "package dup\n\nfunc F() {}\n")
	}
	st := &fakeStore{}
	if _, err := Index(context.Background(), st, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	w := st.writers[0]
	if len(w.packages) != 1 || w.packages[0].Package.Dir != "a" {
		t.Errorf("packages %+v", w.packages)
	}
	if len(w.diags) != 1 || w.diags[0].Path != "b/go.mod" || !strings.Contains(w.diags[0].Message, "not indexed") {
		t.Errorf("diagnostics %+v", w.diags)
	}
}

// A module a go.mod requires that is neither in the module cache nor
// downloaded (indexing downloads nothing) gets one INDEXING_FAILED diagnostic at
// its require line, naming it and the packages indexed without its
// types; everything else is indexed. An import that no required module
// provides keeps only its import's diagnostic.
func TestIndexUnavailableModule(t *testing.T) {
	hermetic(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "go.mod", "module example.com/app\n\ngo 1.24\n\nrequire (\n\tgithub.com/nobody/absent v1.2.3\n\tgithub.com/nobody/gone v0.1.0\n)\n")
	writeFile(t, dir, "go.sum", "github.com/nobody/absent v1.2.3 h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"+
		"github.com/nobody/absent v1.2.3/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n")
	writeFile(t, dir, "a.go", "package app\n\nimport \"github.com/nobody/absent/sub\"\n\nfunc A() int { return sub.X }\n\nfunc Fine() int { return 1 }\n")
	writeFile(t, dir, "b/b.go", "package b\n\nimport (\n\t\"github.com/nobody/absent\"\n\t\"github.com/nobody/gone\"\n\t\"example.org/never/required\"\n)\n\nvar V = absent.Y + gone.Z + required.W\n")
	writeFile(t, dir, "c/c.go", "package c\n\nfunc C() {}\n")

	st := &fakeStore{}
	res, err := Index(context.Background(), st, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := st.writers[len(st.writers)-1]
	var pkgs []string
	symbols := 0
	for _, p := range w.packages {
		pkgs = append(pkgs, p.Package.Path)
		symbols += len(p.Symbols)
	}
	if !slices.Equal(pkgs, []string{"example.com/app", "example.com/app/b", "example.com/app/c"}) || symbols < 4 {
		t.Errorf("indexed %v with %d symbols, want every package", pkgs, symbols)
	}
	type want struct {
		line             int
		module, importer string
	}
	wants := []want{
		{6, "module github.com/nobody/absent v1.2.3 is not in the module cache, and Sextant does not download", "packages example.com/app, example.com/app/b are indexed without its types"},
		{7, "module github.com/nobody/gone v0.1.0 could not be loaded (missing go.sum entry", "package example.com/app/b is indexed without its types"},
	}
	if len(res.Unavailable) != len(wants) {
		t.Fatalf("Unavailable = %+v, want %d", res.Unavailable, len(wants))
	}
	for i, d := range res.Unavailable {
		wt := wants[i]
		if d.Path != "go.mod" || d.Line != wt.line || !d.UnavailableModule() ||
			!strings.Contains(d.Message, wt.module) || !strings.Contains(d.Message, wt.importer) || !strings.Contains(d.Message, "go mod download") {
			t.Errorf("Unavailable[%d] = %+v, want go.mod:%d naming %q and %q", i, d, wt.line, wt.module, wt.importer)
		}
		if !slices.Contains(w.diags, d) {
			t.Errorf("Unavailable[%d] is not among the snapshot's diagnostics", i)
		}
	}
	for _, d := range w.diags {
		if strings.Contains(d.Message, "example.org/never/required") && d.UnavailableModule() {
			t.Errorf("an import no go.mod requires is reported as an unavailable module: %+v", d)
		}
	}
}
