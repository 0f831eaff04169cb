package index_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestIndexSQLite indexes the kinds fixture into the real embedded store
// twice and reads it back the way the query layer will.
func TestIndexSQLite(t *testing.T) {
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	ctx := context.Background()

	root := txtartest.Write(t, "testdata/kinds.txtar")

	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "sextant.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	first, err := index.Index(ctx, st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := index.Index(ctx, st, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if second.Snapshot.ID <= first.Snapshot.ID || second.Repository.ID != first.Repository.ID {
		t.Errorf("second index: snapshot %d after %d, repository %d then %d",
			second.Snapshot.ID, first.Snapshot.ID, first.Repository.ID, second.Repository.ID)
	}
	if first.Symbols != second.Symbols || first.Files != second.Files || first.Packages != second.Packages {
		t.Errorf("re-indexing unchanged code changed the counts: %+v then %+v", first, second)
	}

	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const repo = "example.com/kinds"
	status, err := r.Repository(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if status.Snapshot.ID != second.Snapshot.ID || status.Packages != second.Packages ||
		status.Files != second.Files || status.Symbols != second.Symbols || status.Diagnostics != second.Diagnostics {
		t.Errorf("status %+v does not match the index result %+v", status, second)
	}
	if len(status.Modules) != 1 || status.Modules[0].Path != repo || status.Modules[0].GoVersion != "1.24" {
		t.Errorf("modules %+v", status.Modules)
	}

	// A symbol found by name keeps its key, signature and position, and
	// its fields and methods are its children.
	syms, err := r.LookupSymbols(ctx, graph.Lookup{QualifiedName: "Server", Repository: repo})
	if err != nil || len(syms) != 1 {
		t.Fatalf("LookupSymbols(Server) = %+v, %v", syms, err)
	}
	server := syms[0]
	if server.Signature != "type Server struct{...}" || server.Path != "kinds.go" || server.StartLine != 39 || server.Doc != "Server serves." {
		t.Errorf("Server: %+v", server)
	}
	byKey, err := r.SymbolByKey(ctx, server.Key)
	if err != nil || byKey.QualifiedName != "Server" {
		t.Errorf("SymbolByKey = %+v, %v", byKey, err)
	}
	children, err := r.Children(ctx, repo, server.Key)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range children {
		names = append(names, c.QualifiedName)
	}
	want := []string{"Server.Base", "Server.Logger", "Server.Reader", "Server.Name", "Server.Port", "Server.handler", "Server.Start", "Server.String", "Server.inTest"}
	if !slices.Equal(names, want) {
		t.Errorf("children of Server %q, want %q", names, want)
	}

	found, total, err := r.FindSymbols(ctx, graph.SymbolQuery{Name: "Dévéloppé", Mode: graph.MatchExact})
	if err != nil || total != 1 || found[0].StartCol != 10 {
		t.Errorf("FindSymbols(Dévéloppé) = %+v, %d, %v", found, total, err)
	}

	files, err := r.Files(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	wantFiles := []string{"doc.go", "go.mod", "ignored.go", "kinds.go", "kinds_ext_test.go", "kinds_test.go", "linux.go", "sub/sub.go", "unicode.go"}
	if !slices.Equal(paths, wantFiles) {
		t.Errorf("files %q, want %q", paths, wantFiles)
	}
	pkgs, err := r.Packages(ctx, repo)
	if err != nil || len(pkgs) != 3 || !pkgs[2].TestOnly || pkgs[0].Hash == "" {
		t.Errorf("packages %+v, %v", pkgs, err)
	}
}
