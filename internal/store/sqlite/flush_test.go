package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestFlushXRefsSameRecords writes the same cross-references into two
// repositories of one store, once all at Publish and once with
// FlushXRefs between the batches (as Index does: references and
// implementations first, then call edges whose strings are partly new),
// and checks that both snapshots hold the same rows, compared by value,
// and that every string is interned once per snapshot.
func TestFlushXRefsSameRecords(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	pkgs := largeSnapshot("flush", 900)
	var refs []graph.Ref
	var edges []graph.CallEdge
	for _, p := range pkgs {
		refs = append(refs, p.refs...)
		edges = append(edges, p.edges...)
	}
	refs, edges = refs[:50000], edges[:20000] // enough for many batches, in a second
	// Implementations naming some keys also named by the refs, some new.
	var impls []graph.Implements
	for i := 0; i+1 < len(pkgs[0].syms); i += 2 {
		impls = append(impls, graph.Implements{Type: pkgs[0].syms[i].Key, Interface: pkgs[0].syms[i+1].Key, Pointer: i%4 == 0},
			graph.Implements{Type: fmt.Sprintf("onlyimpl%d", i), Interface: pkgs[0].syms[i+1].Key})
	}
	// An edge batch with callers and names no reference has.
	for i := range 500 {
		edges = append(edges, graph.CallEdge{Caller: fmt.Sprintf("onlyedge%d", i%37), CalleeName: fmt.Sprintf("fmt.New%d", i),
			Path: fmt.Sprintf("new/path%d.go", i%5), Line: i + 1, Col: 2, Coverage: graph.CoverageExact, Via: graph.ViaStatic})
	}

	write := func(root string, flush bool) graph.Repository {
		repo, err := s.EnsureRepository(ctx, root, root)
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.BeginSnapshot(ctx, repo, "")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		for _, p := range pkgs {
			if err := w.AddPackage(ctx, p.pkg, p.files, p.syms, nil); err != nil {
				t.Fatal(err)
			}
		}
		f := func() {
			if flush {
				if err := w.(graph.XRefFlusher).FlushXRefs(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		f() // nothing buffered yet
		for lo := 0; lo < len(refs); lo += 4096 {
			if err := w.AddRefs(ctx, refs[lo:min(lo+4096, len(refs))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.AddImplements(ctx, impls); err != nil {
			t.Fatal(err)
		}
		f()
		f() // nothing new
		half := len(edges) / 2
		if err := w.AddCallEdges(ctx, edges[:half]); err != nil {
			t.Fatal(err)
		}
		f()
		if err := w.AddCallEdges(ctx, edges[half:]); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Publish(ctx); err != nil {
			t.Fatal(err)
		}
		return repo
	}
	plain := write("/plain", false)
	flushed := write("/flushed", true)

	dump := func(repo graph.Repository) map[string][]string {
		var snap int64
		if err := s.wdb.QueryRowContext(ctx, `SELECT current_snapshot FROM repositories WHERE id = ?`, repo.ID).Scan(&snap); err != nil {
			t.Fatal(err)
		}
		out := dumpPacked(t, s.wdb, snap)
		queries := map[string]string{
			"interned": `SELECT value FROM interned WHERE snapshot_id = ?1`,
			"implements": `SELECT t.value, i.value, x.pointer FROM implements x JOIN interned t ON t.id = x.type
				JOIN interned i ON i.id = x.iface WHERE x.snapshot_id = ?1`,
		}
		for name, q := range queries {
			rows, err := s.wdb.QueryContext(ctx, q, snap)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				out[name] = append(out[name], strings.TrimSuffix(fmt.Sprintln(vals...), "\n"))
			}
			rows.Close()
			slices.Sort(out[name])
		}
		return out
	}
	want, got := dump(plain), dump(flushed)
	if n := len(want["refs"]); n != len(refs) {
		t.Fatalf("%d references stored, want %d", n, len(refs))
	}
	for _, name := range []string{"interned", "refs", "edges", "implements", "dangling"} {
		if !slices.Equal(want[name], got[name]) {
			t.Errorf("%s: %d rows written at Publish, %d with FlushXRefs, or they differ", name, len(want[name]), len(got[name]))
		}
	}
	if d := got["dangling"]; !slices.Equal(d, []string{"0"}) {
		t.Errorf("rows pointing outside their snapshot's strings: %v", d)
	}
}
