package query

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/index"
)

// TestFreshWithSymlinkInsideRoot: a .go file that is a symlink (relative
// or absolute) to a file inside the root is indexed through the link and compared with the disk
// the same way: two calls in a row answer fresh from one snapshot, with
// the refresh on (no re-index per call) and off.
func TestFreshWithSymlinkInsideRoot(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(root, name)); err != nil {
			t.Skipf("os.Symlink reported success and made no link (Wine 8 does): %v", err)
		}
	}
	st := indexFixture(t, func() string {
		write("go.mod", "module example.com/linked\n\ngo 1.22\n")
		write("a.go", "package linked\n\n// A is a plain file.\nfunc A() {}\n")
		// The target is no .go file of its own, so only the link declares B.
		write("shared/b.go.in", "package linked\n\n// B is declared through a link.\nfunc B() {}\n")
		link("shared/b.go.in", "b.go")
		// An absolute link that points back inside the root is one too.
		write("shared/c.go.in", "package linked\n\n// C is declared through an absolute link.\nfunc C() {}\n")
		link(filepath.Join(root, "shared/c.go.in"), "c.go")
		return root
	}).store
	reindex := func(ctx context.Context, root string, _ func(Progress)) error {
		_, err := index.Refresh(ctx, st, root, index.Options{})
		return err
	}
	for _, refresh := range []bool{true, false} {
		svc, err := New(st, []string{root}, reindex)
		if err != nil {
			t.Fatal(err)
		}
		svc.SetRefresh(refresh)
		f := &fixture{dir: root, store: st, svc: svc}
		var first int64
		for i := range 3 {
			o := ok[*FindSymbolOutput](t, f, "find_symbol", `{"name":"B"}`)
			if i == 0 {
				if c := ok[*FindSymbolOutput](t, f, "find_symbol", `{"name":"C"}`); len(c.Results) != 1 {
					t.Errorf("find_symbol C through the absolute link: %d results", len(c.Results))
				}
			}
			if !o.Fresh || len(o.StaleReasons) > 0 {
				t.Errorf("refresh %v, call %d: fresh %v, stale %q; want fresh", refresh, i+1, o.Fresh, o.StaleReasons)
			}
			if i == 0 {
				first = o.SnapshotID
			} else if o.SnapshotID != first {
				t.Errorf("refresh %v, call %d: snapshot %d after %d; the link re-indexed the root", refresh, i+1, o.SnapshotID, first)
			}
			if len(o.Results) != 1 {
				t.Errorf("find_symbol B through the link: %d results", len(o.Results))
			}
		}
		if !refresh {
			// An edit of the target, in a directory of no indexed file,
			// is seen as an edit of the link, watch or no watch.
			write("shared/b.go.in", "package linked\n\n// B is declared through a link, and edited.\nfunc B() {}\n")
			o := ok[*FindSymbolOutput](t, f, "find_symbol", `{"name":"B"}`)
			if o.Fresh || !slices.Contains(o.StaleReasons, "changed: b.go") {
				t.Errorf("after editing the link's target: fresh %v, stale %q; want changed: b.go", o.Fresh, o.StaleReasons)
			}
		}
		svc.Close()
	}
}
