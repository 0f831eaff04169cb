package sqlbase

import (
	"database/sql"
	"errors"
	"slices"
	"testing"

	"github.com/sextant-dev/sextant/internal/graph"
)

// TestCodes checks that every kind and effect has a code of each width
// that reads back as itself, and that an unknown code says so.
func TestCodes(t *testing.T) {
	c16, c64 := NewCodes[int16](), NewCodes[int64]()
	for _, k := range graph.Kinds {
		if c, ok := c16.Kind[k]; !ok || Kind(c) != k || int64(c) != c64.Kind[k] {
			t.Errorf("kind %q: code %d, %v", k, c, ok)
		}
	}
	for _, e := range append(slices.Clone(graph.AllEffects), graph.EffectOpen, graph.EffectPure) {
		if c, ok := c64.Effect[e]; !ok || Effect(c) != e {
			t.Errorf("effect %q: code %d, %v", e, c, ok)
		}
	}
	if c, ok := c16.Via[""]; !ok || c != 0 || Via(c) != "" {
		t.Errorf(`via "": code %d, %v`, c, ok)
	}
	if got := Kind(int16(0)); got != "" {
		t.Errorf("Kind(0) = %q, want empty (code 0 is unused)", got)
	}
	if got := Coverage(int64(99)); got != "unknown(99)" {
		t.Errorf("Coverage(99) = %q", got)
	}
	if got := RefKind(int16(-1)); got != "unknown(-1)" {
		t.Errorf("RefKind(-1) = %q", got)
	}
}

func TestBuilder(t *testing.T) {
	var q Builder[Question]
	q.Where("a = %s AND b < %s", 1, "x")
	q.Conds = append(q.Conds, "c IN ("+q.Arg(2)+")")
	if got, want := q.Clause(), " WHERE a = ?1 AND b < ?2 AND c IN (?3)"; got != want {
		t.Errorf("Question: %q, want %q", got, want)
	}
	var d Builder[Dollar]
	if got := d.Clause(); got != "" {
		t.Errorf("empty clause: %q", got)
	}
	d.Where("a = ANY(%s)", []int{1})
	if got, want := d.Clause(), " WHERE a = ANY($1)"; got != want || len(d.Args) != 1 {
		t.Errorf("Dollar: %q (%d args), want %q", got, len(d.Args), want)
	}
}

// fakeRow is a row that fails with err or scans a fixed repository.
type fakeRow struct{ err error }

func (r fakeRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	*dest[0].(*int64), *dest[1].(*string), *dest[2].(*string), *dest[3].(*string) = 7, "alpha", "/src/alpha", "abc"
	return nil
}

func TestScanRepository(t *testing.T) {
	r, err := ScanRepository(fakeRow{}, "/src/alpha", sql.ErrNoRows)
	if err != nil || r != (graph.Repository{ID: 7, Name: "alpha", Root: "/src/alpha", VCSHead: "abc"}) {
		t.Errorf("ScanRepository = %+v, %v", r, err)
	}
	if _, err := ScanRepository(fakeRow{sql.ErrNoRows}, "/x", sql.ErrNoRows); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("no row: %v, want ErrNotFound", err)
	}
	if _, err := ScanRepository(fakeRow{errors.New("broken")}, "/x", sql.ErrNoRows); err == nil || errors.Is(err, graph.ErrNotFound) {
		t.Errorf("failure: %v, want a failure that is not ErrNotFound", err)
	}
}

func TestSearchColumns(t *testing.T) {
	sym := &graph.Symbol{Name: "Serve", QualifiedName: "Server.Serve", Doc: "Serve answers.", Path: "srv/srv.go", PackagePath: "example.com/srv"}
	name, doc, _, _, path := SearchColumns(sym)
	if name != "server serve serve" || doc != "serve answers" || path != "srv srv go example com srv" {
		t.Errorf("SearchColumns = %q, %q, %q", name, doc, path)
	}
}
