package query

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
)

// TestStaleOtherFormat: a snapshot an older build wrote, of records of
// another format (graph.Snapshot.Format), is stale though no file
// changed, saying why; with the refresh on, the first call indexes it
// whole and answers from a snapshot of this build's format.
func TestStaleOtherFormat(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	ctx := context.Background()
	root := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/old\n\ngo 1.22\n",
		"a.go":   "package old\n\n// A is all there is.\nfunc A() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dbPath := filepath.Join(t.TempDir(), "db")
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := index.Index(ctx, st, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE snapshots SET format = 0`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	reindex := func(ctx context.Context, root string, _ func(Progress)) error {
		_, err := index.Refresh(ctx, st, root, index.Options{})
		return err
	}
	for _, refresh := range []bool{false, true} {
		svc, err := New(st, []string{root}, reindex)
		if err != nil {
			t.Fatal(err)
		}
		svc.SetRefresh(refresh)
		f := &fixture{dir: root, store: st, svc: svc}
		o := ok[*FindSymbolOutput](t, f, "find_symbol", `{"name":"A"}`)
		svc.Close()
		if len(o.Results) != 1 {
			t.Errorf("refresh %v: find_symbol A found %d", refresh, len(o.Results))
		}
		if !refresh {
			if o.Fresh || len(o.StaleReasons) != 1 || !strings.Contains(o.StaleReasons[0], "format 0") {
				t.Errorf("refresh off: fresh %v, stale %q; want stale for the format", o.Fresh, o.StaleReasons)
			}
			continue
		}
		sts, err := graph.Repositories(ctx, st)
		if !o.Fresh || err != nil || len(sts) != 1 || sts[0].Snapshot.Format != graph.IndexFormat || o.SnapshotID != sts[0].Snapshot.ID {
			t.Errorf("refresh on: fresh %v, stale %q, snapshot %d; repositories %+v, %v; want an answer from a whole index of format %d",
				o.Fresh, o.StaleReasons, o.SnapshotID, sts, err, graph.IndexFormat)
		}
	}
}
