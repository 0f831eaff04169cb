package index

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestIndexStoresExtractedXRefs indexes each cross-reference fixture into
// the real SQLite store with Index, which resolves and writes references
// and implementations while the last call graph finishes (and has the
// store insert them before the edges), and checks that the snapshot holds
// exactly the records Extract hands over in one pass after everything:
// the same references, call edges and implementations, compared by value.
func TestIndexStoresExtractedXRefs(t *testing.T) {
	hermetic(t)
	archives, err := filepath.Glob("testdata/xref/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no fixtures in testdata/xref (%v)", err)
	}
	ctx := context.Background()
	for _, archive := range archives {
		name := strings.TrimSuffix(filepath.Base(archive), ".txtar")
		t.Run(name, func(t *testing.T) {
			dir := txtartest.Write(t, archive)
			dbPath := filepath.Join(t.TempDir(), "sextant.db")
			st, err := sqlite.Open(ctx, dbPath)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			res, err := Index(ctx, st, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := extractAll(t, res.Repository.Name, dir)
			if len(want.refs) == 0 {
				t.Fatal("the fixture has no references")
			}
			if res.Refs != len(want.refs) || res.CallEdges != len(want.edges) || res.Implementations != len(want.impls) {
				t.Errorf("Index counted %d refs, %d edges, %d implementations; Extract gave %d, %d, %d",
					res.Refs, res.CallEdges, res.Implementations, len(want.refs), len(want.edges), len(want.impls))
			}

			r, err := st.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var targets, implicit, callers, ifaces []string
			for _, ref := range want.refs {
				if ref.Implicit {
					implicit = append(implicit, ref.Target)
				} else {
					targets = append(targets, ref.Target)
				}
			}
			for _, e := range want.edges {
				callers = append(callers, e.Caller)
			}
			// A (type, interface) pair is stored once, the first kept.
			seen := map[[2]string]bool{}
			var wantImpls []string
			for _, im := range want.impls {
				if p := [2]string{im.Type, im.Interface}; !seen[p] {
					seen[p] = true
					wantImpls = append(wantImpls, fmt.Sprint(im))
					ifaces = append(ifaces, im.Interface)
				}
			}
			gotRefs, _, err := r.Refs(ctx, graph.RefQuery{Targets: targets, Implicit: implicit, IncludeTests: true})
			if err != nil {
				t.Fatal(err)
			}
			var gotEdges []graph.CallEdge
			if len(callers) > 0 {
				if gotEdges, err = r.CallEdges(ctx, graph.EdgeQuery{Callers: callers}); err != nil {
					t.Fatal(err)
				}
			}
			var gotImpls []string
			slices.Sort(ifaces)
			for _, iface := range slices.Compact(ifaces) {
				ims, err := r.Implementations(ctx, iface, true)
				if err != nil {
					t.Fatal(err)
				}
				for _, im := range ims {
					gotImpls = append(gotImpls, fmt.Sprint(im))
				}
			}
			for i := range gotRefs {
				gotRefs[i].Repository = ""
			}
			for i := range gotEdges {
				gotEdges[i].Repository = ""
			}
			sameRows(t, "references", want.refs, gotRefs)
			sameRows(t, "call edges", want.edges, gotEdges)
			slices.Sort(wantImpls)
			slices.Sort(gotImpls)
			if !slices.Equal(wantImpls, gotImpls) {
				t.Errorf("implementations: stored %q, extracted %q", gotImpls, wantImpls)
			}

			// Nothing else is stored: the queries above cover every row.
			db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// References and call sites are packed a row per key and file,
			// so every key stored must be one queried above.
			for table, keys := range map[string][]string{
				"refs target":            slices.Concat(targets, implicit),
				"calls_by_caller caller": callers,
				"implements iface":       ifaces,
			} {
				name, col, _ := strings.Cut(table, " ")
				rows, err := db.Query(`SELECT DISTINCT i.value FROM ` + name + ` x JOIN interned i ON i.id = x.` + col + ` ORDER BY 1`)
				if err != nil {
					t.Fatal(err)
				}
				var stored []string
				for rows.Next() {
					var k string
					if err := rows.Scan(&k); err != nil {
						t.Fatal(err)
					}
					stored = append(stored, k)
				}
				rows.Close()
				keys = slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "" })
				slices.Sort(keys)
				if keys = slices.Compact(keys); !slices.Equal(stored, keys) && !(len(stored) == 0 && len(keys) == 0) {
					t.Errorf("%s: %d keys stored, %d extracted", name, len(stored), len(keys))
				}
			}
		})
	}
}

// sameRows reports whether two lists hold the same records, in any order.
func sameRows[T any](t *testing.T, what string, want, got []T) {
	t.Helper()
	str := func(rows []T) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = fmt.Sprintf("%+v", r)
		}
		slices.Sort(out)
		return out
	}
	w, g := str(want), str(got)
	if !slices.Equal(w, g) {
		t.Errorf("%s: %d stored, %d extracted, or they differ:\nstored    %q\nextracted %q", what, len(g), len(w), g, w)
	}
}
