package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// testProvenance: what made a snapshot (graph.Provenancer) comes back
// with its status, from Publish and from a new read; a snapshot whose
// writer did not say has none. Every snapshot published is of this
// build's graph.IndexFormat, said or not.
func testProvenance(t *testing.T, s graph.Store) {
	ctx := context.Background()
	repo := ensure(t, s, "made")
	w := begin(t, s, repo)
	defer w.Abort()
	p, ok := w.(graph.Provenancer)
	if !ok {
		t.Fatalf("the writer %T keeps no provenance", w)
	}
	build, indexers := "linux/amd64 tags=integration", []string{"go go/types go1.26.0", "typescript scip-typescript 0.4.0"}
	p.SetProvenance(build, indexers)
	snap, err := w.Publish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Build != build || !slices.Equal(snap.Indexers, indexers) {
		t.Errorf("Publish = %q %q, want %q %q", snap.Build, snap.Indexers, build, indexers)
	}
	st := status(t, s, repo.Name)
	if st.Snapshot.Build != build || !slices.Equal(st.Snapshot.Indexers, indexers) {
		t.Errorf("read back %q %q, want %q %q", st.Snapshot.Build, st.Snapshot.Indexers, build, indexers)
	}
	if snap.Format != graph.IndexFormat || st.Snapshot.Format != graph.IndexFormat {
		t.Errorf("format %d from Publish, %d read back; want this build's %d", snap.Format, st.Snapshot.Format, graph.IndexFormat)
	}
	publishOne(t, s, repo, "Unsaid")
	st = status(t, s, repo.Name)
	if st.Snapshot.Build != "" || st.Snapshot.Indexers != nil {
		t.Errorf("a snapshot whose writer said nothing reads back %q %q", st.Snapshot.Build, st.Snapshot.Indexers)
	}
	if st.Snapshot.Format != graph.IndexFormat {
		t.Errorf("a snapshot whose writer said nothing reads back format %d, want this build's %d", st.Snapshot.Format, graph.IndexFormat)
	}
}

// status is the published status of repository name.
func status(t *testing.T, s graph.Store, name string) graph.RepositoryStatus {
	t.Helper()
	r := read(t, s)
	sts, err := r.Repositories(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("repository %s is not published", name)
	return graph.RepositoryStatus{}
}
