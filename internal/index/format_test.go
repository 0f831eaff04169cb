package index_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// goKeyDigests holds, by graph.IndexFormat, the digest of the stable keys
// this build writes for the Go declarations of testdata/kinds.txtar (see
// keyDigest). The entry of a format never changes: should the keys change
// (what identifies a declaration, how it is hashed), an older build's
// snapshot no longer joins with this build's records, so bump
// graph.IndexFormat (a snapshot of another format is indexed whole) and
// add the new digest under it.
var goKeyDigests = map[int]string{
	1: "b7424f477277675a",
}

// TestIndexFormatGoKeys holds graph.IndexFormat to the stable keys of Go
// declarations: another key for the same source needs another format.
func TestIndexFormatGoKeys(t *testing.T) {
	ctx := context.Background()
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "amd64")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	root := txtartest.Write(t, "testdata/kinds.txtar")
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	checkKeyDigest(t, st, goKeyDigests, "testdata/kinds.txtar")
}

// keyDigest returns the number of symbols a store's current snapshots
// hold and a digest of their stable keys, each beside its qualified name
// and kind, sorted.
func keyDigest(t *testing.T, st graph.Store) (int, string) {
	t.Helper()
	ctx := context.Background()
	r, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms, _, err := r.FindSymbols(ctx, graph.SymbolQuery{Mode: graph.MatchSubstring})
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(syms))
	for i, s := range syms {
		lines[i] = fmt.Sprintf("%s %s %s", s.Key, s.QualifiedName, s.Kind)
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		fmt.Fprintln(h, l)
	}
	return len(lines), fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// checkKeyDigest fails unless the keys of st match the digest digests
// holds for this build's graph.IndexFormat.
func checkKeyDigest(t *testing.T, st graph.Store, digests map[int]string, fixture string) {
	t.Helper()
	n, got := keyDigest(t, st)
	if n == 0 {
		t.Fatalf("%s: no symbol indexed: nothing to hold the format to", fixture)
	}
	if want := digests[graph.IndexFormat]; got != want {
		t.Errorf("the stable keys of the %d declarations of %s have digest %s, format %d's are %q: "+
			"an older build's records would not join with these; bump graph.IndexFormat and add %q under it",
			n, fixture, got, graph.IndexFormat, want, got)
	}
}
