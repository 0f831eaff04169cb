package index_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/index"
	"github.com/sextant-dev/sextant/internal/store/sqlite"
	"github.com/sextant-dev/sextant/internal/txtartest"
)

// TestStreamedEdgesSameRecords indexes a module twice, once with every
// streamed batch of call edges inserted as it comes (a round of one
// edge), once with the edges left for Publish (a round larger than them
// all), and requires the same records and counts: when the edges go in
// must not change what the snapshot holds.
func TestStreamedEdgesSameRecords(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	ctx := context.Background()
	root := txtartest.Write(t, "testdata/amend.txtar")
	run := func(round int) (index.Result, snapshotDump) {
		defer index.SetEdgeRound(round)()
		st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "sextant.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		res, err := index.Index(ctx, st, root, index.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res, dumpSnapshot(t, st)
	}
	eachRes, each := run(1)
	lastRes, last := run(1 << 30)
	if eachRes.CallEdges == 0 || eachRes.CallEdges != lastRes.CallEdges || eachRes.Refs != lastRes.Refs {
		t.Errorf("counts differ: %d edges and %d refs inserted as they came, %d and %d at Publish",
			eachRes.CallEdges, eachRes.Refs, lastRes.CallEdges, lastRes.Refs)
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{{"edges", each.edges, last.edges}, {"refs", each.refs, last.refs}, {"effects", each.effects, last.effects},
		{"symbols", each.symbols, last.symbols}} {
		if len(c.want) == 0 {
			t.Errorf("no %s in the fixture's index", c.name)
		}
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s inserted as they came (+) differ from those inserted at Publish (-):\n%s", c.name, diffLines(c.got, c.want))
		}
	}
}
